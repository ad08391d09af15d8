/*
 * Dispose against an agent tree that ignores SIGTERM, on the REAL Gemini CLI: launched as a custom agent
 * without GEMINI_CLI_NO_RELAUNCH (so it re-executes itself into a child), with a preload that makes every
 * node process of the tree ignore SIGTERM (NODE_OPTIONS reaches the relaunched child too). Dispose must
 * escalate to SIGKILL of the process group: zero survivors.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { defaultInstallRoot } from "../../src/agents/index.js";
import { createSession } from "../../src/runtime/index.js";
import { descendants, procText, startAgentRig } from "./rig.js";
import { agentTest } from "./results.js";

const AGENTS = (process.env.GROK_SEAT_AGENTS ?? "gemini").split(",").map((s) => s.trim());
const alive = (pids: readonly number[]) => pids.filter((pid) => descendants(pid).includes(pid));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("gemini: SIGKILL escalation (real agent, offline)", { skip: !AGENTS.includes("gemini") }, () => {
  agentTest(
    "gemini",
    ["sigkill-escalation"],
    "gemini: a relaunched Gemini tree that ignores SIGTERM is killed by dispose's SIGKILL escalation, leaving no survivor",
    async () => {
      const rig = await startAgentRig("gemini", {});
      try {
        const preload = join(rig.home, "ignore-sigterm.cjs");
        // Ignore SIGTERM, and keep Gemini from installing its own SIGTERM handler (which would exit).
        writeFileSync(
          preload,
          [
            "process.on('SIGTERM', () => {});",
            "for (const m of ['on', 'addListener', 'once', 'prependListener', 'prependOnceListener']) {",
            "  const original = process[m];",
            "  process[m] = function (event, ...rest) { return event === 'SIGTERM' ? this : original.call(this, event, ...rest); };",
            "}",
            "",
          ].join("\n"),
        );
        const graceMs = 1_500;
        const session = await createSession({
          ...rig.options,
          agent: undefined,
          // Gemini's own launch (host Node + its bundle + --acp) without the profile's env (no GEMINI_CLI_NO_RELAUNCH).
          agentCommand: rig.profile.launchArgv({ installRoot: defaultInstallRoot() }),
          agentEnv: { ...rig.options.agentEnv, NODE_OPTIONS: `--require ${preload}` },
          killGraceMs: graceMs,
        });
        assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
        const turn = await session.prompt("hello");
        assert.equal(turn.stopReason, "end_turn", JSON.stringify(turn));
        const pids = descendants(session.agent!.pid!);
        const tree = procText(pids);
        assert.ok(
          tree.length >= 2 && tree.filter((p) => p.cmdline.includes("gemini.js")).length >= 2,
          `Gemini relaunched itself into a child: ${tree.map((p) => p.cmdline.replace(/\0/g, " ").slice(0, 80)).join(" | ")}`,
        );
        // The premise: SIGTERM alone does not end this tree.
        for (const pid of pids) process.kill(pid, "SIGTERM");
        await sleep(800);
        assert.deepEqual(alive(pids), pids, "every process of the tree ignored SIGTERM");
        const started = Date.now();
        const { survivors } = await session.dispose();
        const took = Date.now() - started;
        assert.deepEqual(survivors, [], "dispose reports no survivor");
        assert.deepEqual(alive(pids), [], "no process of the tree survives");
        assert.ok(took >= graceMs - 100, `dispose waited out the SIGTERM grace (${took} ms) before SIGKILL`);
      } finally {
        await rig.cleanup();
      }
    },
  );
});
