/*
 * `seat mcp`'s usage, diff, merge and discard tools, driven by the official MCP client over stdio as a host would:
 * the ledger's totals as `seat usage` prints them, and a seat worktree reviewed, merged and discarded with real
 * git — the user's tree untouched until merge; a repository above the roots refused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { gitIn, makeRepo, snapshotUserTree, writeFiles } from "../../support/git-repo.js";
import { commitTurn, createWorktree } from "../../../src/worktrees/index.js";
import { ledgerEntriesOf, recordUsage } from "../../../src/usage/index.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("usage, diff, merge and discard over MCP: ledger totals as seat usage, a worktree reviewed, merged and discarded; a repository above the roots is refused", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-mcp-spend-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n", "sub/b.txt": "bee\n" });
  const home = join(dir, "seat-home");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), GROK_SEAT_HOME: home };
  mkdirSync(env.HOME, { recursive: true });
  mkdirSync(home, { recursive: true });
  recordUsage(join(home, "seats.db"), [
    ...ledgerEntriesOf(
      { promptId: "p1", usage: { inputTokens: 22, outputTokens: 5, modelCalls: 2, costUsdTicks: 20_000 } },
      { source: "run", agent: "grok" },
    ),
    ...ledgerEntriesOf({ promptId: "p2" }, { source: "run", agent: "codex" }),
  ]);
  const { record } = await createWorktree({ home, cwd: repo, name: "fix-1", owner: "run" });
  writeFiles(record.path, { "new.txt": "from the seat\n" });
  await commitTurn(record, { promptId: "p1", prompt: "add new.txt" });
  const before = snapshotUserTree(repo);

  const connect = async (root: string) => {
    const { client } = await connectSeatMcp(t, ["--root", root], { env, cwd: repo });
    return (name: string, args: Record<string, unknown>) =>
      client.callTool({ name, arguments: args }, CallToolResultSchema) as Promise<CallToolResult>;
  };
  const call = await connect(repo);

  const usage = await call("usage", { by: "agent" });
  assert.ok(!usage.isError, JSON.stringify(usage));
  const totals = (usage.structuredContent as { totals: Array<Record<string, unknown>> }).totals;
  assert.deepEqual(
    totals.map((g) => [g.key, g.turns, g.inputTokens, g.outputTokens, g.modelCalls, g.costUsd, g.costSource]),
    [
      ["grok", 1, 22, 5, 2, 2e-6, "reported"],
      ["codex", 1, null, null, null, null, "unknown"],
    ],
    "unknown stays null, never 0",
  );
  assert.equal(codeOf(await call("usage", { since: "soon" })), "USAGE_DATE_INVALID");

  const diff = await call("diff", { name: "fix-1", stat: true });
  assert.ok(!diff.isError, JSON.stringify(diff));
  assert.match((diff.structuredContent as { diff: string }).diff, /new\.txt/);
  assert.deepEqual(snapshotUserTree(repo), before, "review touches nothing in the user's tree");
  assert.equal(codeOf(await call("diff", { name: "../x" })), "WORKTREE_NAME_INVALID");

  // A root below the repository's top: its worktrees are outside what the caller may merge into.
  const narrow = await connect(join(repo, "sub"));
  assert.equal(codeOf(await narrow("merge", { name: "fix-1" })), "MCP_CWD_OUTSIDE_ROOTS");
  assert.deepEqual(snapshotUserTree(repo), before);

  const merged = await call("merge", { name: "fix-1" });
  assert.ok(!merged.isError, JSON.stringify(merged));
  assert.deepEqual((merged.structuredContent as { files: string[] }).files, ["new.txt"]);
  assert.equal(readFileSync(join(repo, "new.txt"), "utf8"), "from the seat\n");
  const discarded = await call("discard", { name: "fix-1" });
  assert.ok(!discarded.isError, JSON.stringify(discarded));
  assert.equal(existsSync(record.path), false);
  assert.throws(() => gitIn(repo, ["rev-parse", "--verify", "seat/fix-1"]));
  assert.equal(codeOf(await call("discard", { name: "fix-1" })), "WORKTREE_NOT_FOUND");
});
