/*
 * Live skills: operator skill roots staged into a session plugin dir are loaded by the real grok 1.0.41.
 * Through createSession the evidence is what the model is told (grok's "skills are available" reminder in the
 * main-turn request) and the plugin dir on grok's command line. Below createSession, a second test drives the
 * same pieces session.ts uses (stageSkills → spawnAgent → connectAcp → handshake) to read grok's own command
 * list, which createSession keeps to itself.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { connectAcp, X_AI } from "../../../src/acp/index.js";
import { buildAgentArgv, buildAgentEnv, spawnAgent } from "../../../src/grok/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { handshake } from "../../../src/runtime/handshake.js";
import { stageSkills } from "../../../src/skills/index.js";
import { mainRequestText, withLiveRig } from "../../support/live-turns.js";

const SKILL_NAME = "tide-tables";
const SKILL_DESCRIPTION = "Reads tide tables for the harbour before planning a sailing trip.";

/** Creates a temp skill root holding SKILL.md; the caller removes `parent`. */
function writeSkillRoot(): { parent: string; root: string } {
  const parent = mkdtempSync(join(tmpdir(), "gs-live-skill-"));
  const root = join(parent, SKILL_NAME);
  mkdirSync(root);
  writeFileSync(
    join(root, "SKILL.md"),
    `---\nname: ${SKILL_NAME}\ndescription: ${SKILL_DESCRIPTION}\n---\nLook up the tide before answering.\n`,
  );
  return { parent, root };
}

function pluginDirsOf(pid: number): string[] {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  return argv.flatMap((arg, i) => (arg === "--plugin-dir" && argv[i + 1] ? [argv[i + 1]!] : []));
}

/** The skills grok listed to the model, as `name: description` lines with their absolute paths. */
function skillsToldToModel(told: string): { name: string; description: string; path: string }[] {
  const block =
    /The following skills are available for use:\n([\s\S]*?)(?:\n\n[A-Z]|<\/system-reminder>)/.exec(told)?.[1] ?? "";
  return [...block.matchAll(/^- ([^:\n]+): (.*)\n\s+Absolute path: (.*)$/gm)].map((m) => ({
    name: m[1]!,
    description: m[2]!,
    path: m[3]!,
  }));
}

test("a staged skill and the bundled grok-seat skill are offered to the model, and the staged dir is removed on dispose", async (t) => {
  await withLiveRig(t, {}, async (rig) => {
    const skill = writeSkillRoot();
    const session = await createSession({ ...rig.sessionOptions, additionalSkillPaths: [skill.root] });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const dirs = pluginDirsOf(session.agent!.pid!);
      assert.equal(dirs.length, 1, "one session plugin dir on grok's command line");
      const staged = dirs[0]!;
      assert.ok(existsSync(join(staged, "skills", SKILL_NAME, "SKILL.md")), "the skill was staged into the plugin dir");

      const result = await session.prompt("say pong");
      assert.equal(result.text, "pong from mock");
      const offered = skillsToldToModel(mainRequestText(rig));
      assert.deepEqual(
        offered.map((s) => s.name).sort(),
        ["grok-seat", SKILL_NAME].sort(),
        "grok told the model about exactly the staged skills",
      );
      const mine = offered.find((s) => s.name === SKILL_NAME)!;
      assert.equal(mine.description, SKILL_DESCRIPTION);
      assert.equal(mine.path, join(staged, "skills", SKILL_NAME, "SKILL.md"), "grok loaded it from the staged copy");
      assert.equal(offered.find((s) => s.name === "grok-seat")!.path, join(staged, "skills", "grok-seat", "SKILL.md"));

      await session.dispose();
      assert.equal(existsSync(staged), false, "the staged plugin dir is gone after dispose");
      assert.equal(existsSync(dirname(staged)), false, "and so is its temp parent");
      assert.ok(existsSync(join(skill.root, "SKILL.md")), "the operator's own skill root is untouched");
    } finally {
      await session.dispose();
      rmSync(skill.parent, { recursive: true, force: true });
    }
  });
});

test("with includeBundledSkill false only the operator's skill is offered", async (t) => {
  await withLiveRig(t, {}, async (rig) => {
    const skill = writeSkillRoot();
    const session = await createSession({
      ...rig.sessionOptions,
      additionalSkillPaths: [skill.root],
      includeBundledSkill: false,
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      await session.prompt("say pong");
      assert.deepEqual(
        skillsToldToModel(mainRequestText(rig)).map((s) => s.name),
        [SKILL_NAME],
      );
    } finally {
      await session.dispose();
      rmSync(skill.parent, { recursive: true, force: true });
    }
  });
});

for (const via of ["--plugin-dir and _meta.pluginDirs", "_meta.pluginDirs alone"] as const) {
  test(`grok lists the staged skills as commands of the session plugin when the dir is passed by ${via}`, async (t) => {
    await withLiveRig(t, {}, async (rig) => {
      const skill = writeSkillRoot();
      const staged = stageSkills({ additionalSkillPaths: [skill.root] });
      const updates: SessionNotification[] = [];
      const argv = buildAgentArgv({
        binary: rig.binary,
        pluginDirs: via === "_meta.pluginDirs alone" ? [] : [staged.dir],
      });
      const agent = await spawnAgent({
        argv,
        env: buildAgentEnv(rig.sessionOptions.env, rig.sessionOptions.agentEnv),
        cwd: rig.sandbox.project,
      });
      const peer = await connectAcp(agent.stream, {
        onSessionUpdate: (n) => void updates.push(n),
        onExtNotification: () => undefined,
        onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
      });
      try {
        const { session } = await handshake(peer, {
          cwd: rig.sandbox.project,
          mcpServers: [],
          pluginDirs: [staged.dir],
          env: rig.sessionOptions.env,
          clientVersion: "0.0.0-test",
        });
        const list = await peer.request<{
          commands: Array<{ name: string; description?: string; _meta?: Record<string, unknown> }>;
        }>(X_AI.commandsList, { sessionId: session.sessionId });
        const fromPlugin = list.commands.filter((c) => c._meta?.pluginName === "grok-seat-session");
        assert.deepEqual(fromPlugin.map((c) => c.name).sort(), ["grok-seat", SKILL_NAME].sort());
        const mine = fromPlugin.find((c) => c.name === SKILL_NAME)!;
        assert.equal(mine.description, SKILL_DESCRIPTION);
        assert.equal(mine._meta?.qualifiedName, `grok-seat-session:${SKILL_NAME}`);
        assert.equal(mine._meta?.path, join(staged.dir, "skills", SKILL_NAME, "SKILL.md"));

        // grok also pushes them as an available_commands_update for this session, before or after the
        // session/new response, so wait for it (bounded) rather than assume an order.
        const pushed = (): string[] =>
          updates
            .filter((n) => n.sessionId === session.sessionId && n.update.sessionUpdate === "available_commands_update")
            .flatMap((n) => (n.update.sessionUpdate === "available_commands_update" ? n.update.availableCommands : []))
            .filter((c) => (c._meta as Record<string, unknown> | undefined)?.pluginName === "grok-seat-session")
            .map((c) => c.name);
        for (let waitedMs = 0; !pushed().includes(SKILL_NAME) && waitedMs < 10_000; waitedMs += 100)
          await new Promise((r) => setTimeout(r, 100));
        assert.ok(
          pushed().includes(SKILL_NAME) && pushed().includes("grok-seat"),
          `pushed: ${JSON.stringify(pushed())}`,
        );
      } finally {
        peer.close();
        await agent.terminate({ graceMs: 1_000 });
        staged.cleanup();
        rmSync(skill.parent, { recursive: true, force: true });
      }
    });
  });
}
