/*
 * `seat compare` (issue 18 §4) on grok 1.0.41, codex and claude, all real and offline against mock models: the
 * same prompt on the three at once, each in its own seat worktree; each agent writes a file with its own shell
 * tool; the table has one row per agent (stop reason, time, tokens, diffstat), each branch holds only that
 * agent's file, and the user's tree is byte-for-byte as it was.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat } from "../support/cli.js";
import { startLiveRig } from "../support/live-rig.js";
import { gotLive } from "../support/requirements.js";
import { gitIn, makeRepo, snapshotUserTree } from "../support/git-repo.js";
import { agentsDirEnv, requireAgent, startAgentRig, wiringOf } from "./rig.js";
import type { MockToolCall } from "../../src/mock-model/index.js";

test("seat compare runs one prompt on grok, codex and claude at once, each in its own worktree, and reports one row per agent", async (t) => {
  if (!requireAgent(t, "codex") || !requireAgent(t, "claude")) return;
  const dir = mkdtempSync(join(tmpdir(), "gs-compare-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "README.md": "# project\n" });
  const rules = (shell: (c: string) => MockToolCall, agent: string) => ({
    rules: [
      {
        match: "make your file",
        replies: [{ toolCalls: [shell(`echo from-${agent} > ${agent}.txt`)] }, { text: `${agent} made its file` }],
      },
    ],
  });
  const grok = await startLiveRig(
    rules((command) => ({ name: "run_terminal_command", arguments: { command, description: "make a file" } }), "grok"),
  );
  if (!gotLive(t, grok)) return;
  t.after(() => grok.close());
  const codexShell = wiringOf("codex").wiring.shellCall;
  const claudeShell = wiringOf("claude").wiring.shellCall;
  const codex = await startAgentRig("codex", rules(codexShell, "codex"));
  t.after(() => codex.cleanup());
  const claude = await startAgentRig("claude", rules(claudeShell, "claude"));
  t.after(() => claude.cleanup());
  // One environment that wires all three to their mocks (the names do not overlap), as a user would export it.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: grok.sandbox.home,
    GROK_HOME: grok.sandbox.grokHome,
    GROK_BIN: grok.binary,
    GROK_SEAT_HOME: join(dir, "seat-home"),
    ...agentsDirEnv(),
    ...codex.options.agentEnv,
    ...claude.options.agentEnv,
  };
  const before = snapshotUserTree(repo);
  const result = await runSeat(
    [
      "compare",
      "--json",
      "--agents",
      "grok,codex,claude",
      "--allow",
      "execute,edit",
      "--turn-timeout",
      "240",
      "please make your file",
    ],
    { env, cwd: repo },
  );
  const rows = result.stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.deepEqual(
    rows.map((r) => r.agent),
    ["grok", "codex", "claude"],
  );
  for (const row of rows) {
    assert.equal(row.type, "compare");
    assert.equal(row.stopReason, "end_turn", JSON.stringify(row));
    assert.equal(row.code, null);
    assert.ok(row.ms > 0);
    assert.match(row.diffstat, /^1 file changed, 1 insertion\(\+\)$/, JSON.stringify(row));
    assert.equal(gitIn(repo, ["show", `${row.branch}:${row.agent}.txt`]), `from-${row.agent}\n`);
    assert.deepEqual(
      gitIn(repo, ["ls-tree", "--name-only", row.branch]).trim().split("\n").sort(),
      ["README.md", `${row.agent}.txt`].sort(),
      "each branch holds only its agent's work",
    );
    const stat = await runSeat(["diff", row.name, "--stat"], { env, cwd: repo });
    assert.match(stat.stdout, new RegExp(`${row.agent}\\.txt`));
  }
  assert.equal(new Set(rows.map((r) => r.branch)).size, 3);
  assert.deepEqual(snapshotUserTree(repo), before, "the user's tree is untouched");
});
