/*
 * What the real grok 1.0.41 runs without asking (issue 14 §9), both ways: under `--allow read` (execute needs
 * approval, no approver: every request is denied) a command grok asks about is gated and never runs, while the
 * commands it does not ask about run anyway — these facts are asserted so a grok change is noticed. With grok's own
 * `[permission] ask = ["Bash"]` in config.toml grok asks for every command, and `seat probe` says which case holds.
 * Whether a command ran is read from the disk (touch/mkdir/redirect targets) or from the model's follow-up request.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createGatedSession } from "../../support/gated-session.js";
import { runSeat } from "../../support/cli.js";
import type { LiveRig } from "../../support/live-rig.js";
import { withLiveRig } from "../../support/live-turns.js";

interface Case {
  command: string;
  /** A path (relative to the project) the command creates when it runs. */
  creates?: string;
  asked: boolean;
}

// Measured with scripts/record-unasked-commands.mjs on grok 1.0.41.
const UNASKED: Case[] = [
  { command: "ls", asked: false },
  { command: "cat /etc/hostname", asked: false },
  { command: "git status", asked: false },
  { command: "echo hi", asked: false },
  { command: "touch unasked-touch.txt", creates: "unasked-touch.txt", asked: false },
  { command: "touch unasked-chain.txt && echo done", creates: "unasked-chain.txt", asked: false },
  { command: "mkdir unasked-dir", creates: "unasked-dir", asked: false },
  { command: "ls && touch unasked-after-ls.txt", creates: "unasked-after-ls.txt", asked: false },
  { command: "touch ../unasked-outside-cwd.txt", creates: "../unasked-outside-cwd.txt", asked: false },
];
const ASKED: Case[] = [
  { command: "echo hi > gated-redirect.txt", creates: "gated-redirect.txt", asked: true },
  { command: "cp /etc/hostname gated-cp.txt", creates: "gated-cp.txt", asked: true },
  { command: "sh -c 'touch gated-sh.txt'", creates: "gated-sh.txt", asked: true },
];

function scriptFor(cases: Case[]) {
  return {
    rules: cases.map((c, i) => ({
      match: `run command ${i} now`,
      replies: [
        {
          toolCalls: [{ name: "run_terminal_command", arguments: { command: c.command, description: `command ${i}` } }],
        },
        { text: `command ${i} went on` },
      ],
    })),
  };
}

/** Runs every case in one session under `--allow read` and checks asked/ran against `expectRan(c)`. */
async function runCases(
  t: { test: (name: string, fn: () => Promise<void>) => Promise<void> },
  rig: LiveRig,
  cases: Case[],
  expectRan: (c: Case) => boolean,
): Promise<void> {
  const gate = createPermissionGate({ policy: parsePolicyFlags({ allow: ["read"] }) });
  const { session, decisions } = await createGatedSession(rig, () => gate);
  try {
    assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
    for (const [i, c] of cases.entries()) {
      await t.test(
        `${c.command}: ${c.asked ? "asked" : "not asked"}, ${expectRan(c) ? "ran" : "never ran"}`,
        async () => {
          const before = decisions.length;
          const promptId = `unasked-${i}`;
          await session.prompt(`please run command ${i} now`, { promptId });
          const mine = decisions.slice(before);
          assert.equal(mine.length, c.asked ? 1 : 0, "permission requests grok sent for this command");
          for (const d of mine) {
            assert.equal(d.audit.category, "execute");
            assert.equal(d.audit.decision, "deny", "--allow read: execute needs approval and nobody approves");
          }
          const followedUp = rig.mock.requests.some((r) => r.kind === "tool_followup" && r.reqId === promptId);
          assert.equal(followedUp, expectRan(c), "the command's output went back to the model only if it ran");
          if (c.creates)
            assert.equal(
              existsSync(join(rig.sandbox.project, c.creates)),
              expectRan(c),
              `${c.creates} exists only if the command ran`,
            );
        },
      );
    }
  } finally {
    await session.dispose();
  }
}

test("under --allow read grok 1.0.41 asks about a redirect, cp and sh -c (denied, never run) but runs touch, mkdir and its read-only list unasked", async (t) => {
  const cases = [...UNASKED, ...ASKED];
  await withLiveRig(t, scriptFor(cases), async (rig) => {
    await runCases(t, rig, cases, (c) => !c.asked);
    await t.test("seat probe says grok runs commands unasked and names the setting", async () => {
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: rig.sandbox.home,
        GROK_HOME: rig.sandbox.grokHome,
        GROK_BIN: rig.binary,
      };
      const result = await runSeat(["probe", "--json", "--no-acp"], { env, cwd: rig.sandbox.project });
      assert.equal(result.code, 0, result.stderr);
      const probe = JSON.parse(result.stdout.trim()) as {
        shellGate: { asksForEveryCommand: boolean; unaskedExamples: string[]; note: string };
      };
      assert.equal(probe.shellGate.asksForEveryCommand, false);
      assert.ok(probe.shellGate.unaskedExamples.includes("touch FILE"));
      assert.match(probe.shellGate.note, /without asking/);
      assert.match(probe.shellGate.note, /ask = \["Bash"\]/);
      const human = await runSeat(["probe", "--no-acp"], { env, cwd: rig.sandbox.project });
      assert.match(
        human.stdout,
        /shell gate: +grok 1\.0\.41 runs some shell commands without asking \(ls, .*touch FILE/,
      );
    });
  });
});

test('with [permission] ask = ["Bash"] in grok\'s config.toml grok asks before every command, a denied touch never runs, and seat probe says so', async (t) => {
  const cases: Case[] = [
    { command: "touch asked-touch.txt", creates: "asked-touch.txt", asked: true },
    { command: "mkdir asked-dir", creates: "asked-dir", asked: true },
    { command: "ls", asked: true },
    { command: "echo hi > asked-redirect.txt", creates: "asked-redirect.txt", asked: true },
  ];
  await withLiveRig(t, scriptFor(cases), async (rig) => {
    appendFileSync(join(rig.sandbox.grokHome, "config.toml"), '[permission]\nask = ["Bash"]\n');
    await runCases(t, rig, cases, () => false);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: rig.sandbox.home,
      GROK_HOME: rig.sandbox.grokHome,
      GROK_BIN: rig.binary,
    };
    const result = await runSeat(["probe", "--json", "--no-acp"], { env, cwd: rig.sandbox.project });
    assert.equal(result.code, 0, result.stderr);
    const probe = JSON.parse(result.stdout.trim()) as {
      shellGate: { asksForEveryCommand: boolean; configuredIn?: string };
    };
    assert.equal(probe.shellGate.asksForEveryCommand, true);
    assert.equal(probe.shellGate.configuredIn, join(rig.sandbox.grokHome, "config.toml"));
  });
});
