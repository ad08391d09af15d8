/*
 * `seat mcp`'s run tool arguments, driven by the official MCP client over stdio: `worktree` is in its input schema
 * and the schema is closed (additionalProperties false); an argument it does not know is refused with
 * MCP_ARGUMENT_INVALID, never dropped; a bad worktree name, a cwd outside any repository and a repository whose top
 * level lies above the roots are refused with the codes `seat run --worktree` and the worktree tools use. Every
 * refusal comes before any agent starts (there is no grok binary here), and no worktree or branch is made.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { gitIn, makeRepo } from "../../support/git-repo.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;
const textOf = (r: CallToolResult) => (r.content[0]?.type === "text" ? r.content[0].text : "");

test("seat mcp run: worktree is a known argument, an unknown one is refused (never dropped), and a worktree outside a repository or the roots is refused before anything starts", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-mcp-run-args-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n", "sub/b.txt": "bee\n" });
  const plain = join(dir, "plain");
  mkdirSync(plain);
  const home = join(dir, "seat-home");
  // No GROK_BIN and no grok on this PATH's seat: a call that got past its checks would fail to start, not pass.
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    GROK_SEAT_HOME: home,
    GROK_BIN: join(dir, "no-grok"),
  };
  mkdirSync(env.HOME);
  const connect = async (roots: string[]) => {
    const { client } = await connectSeatMcp(t, [...roots.flatMap((r) => ["--root", r])], { env, cwd: dir });
    return client;
  };
  const client = await connect([repo, plain]);
  const call = (args: Record<string, unknown>) =>
    client.callTool({ name: "run", arguments: args }, CallToolResultSchema) as Promise<CallToolResult>;

  const run = (await client.listTools()).tools.find((tool) => tool.name === "run")!;
  assert.ok(run.inputSchema.properties && "worktree" in run.inputSchema.properties, JSON.stringify(run.inputSchema));
  assert.equal(
    (run.inputSchema as { additionalProperties?: unknown }).additionalProperties,
    false,
    "the schema is closed",
  );

  // An argument the tool does not know: refused by name, not dropped while the turn runs without it.
  for (const extra of [{ worktre: "fix-1" }, { worktree: "fix-1", base: "main" }]) {
    const refused = await call({ prompt: "hi", ...extra });
    assert.equal(refused.isError, true, JSON.stringify(refused));
    // A schema refusal is the SDK's tool error, its text ending in our code (as the other bad-input checks).
    assert.match(textOf(refused), /\[MCP_ARGUMENT_INVALID\]$/, textOf(refused));
    assert.match(textOf(refused), new RegExp(Object.keys(extra).at(-1)!), "the message names the unknown argument");
  }
  // The name rules and codes of seat run --worktree.
  for (const bad of ["../x", "a/b", ".hidden", "n.lock"])
    assert.equal(codeOf(await call({ prompt: "hi", worktree: bad })), "WORKTREE_NAME_INVALID", bad);
  assert.equal(codeOf(await call({ prompt: "hi", cwd: plain, worktree: "fix-1" })), "WORKTREE_NOT_A_REPO");
  // A root below the repository's top level: a worktree would check out the whole repository, outside the roots.
  const narrow = await connect([join(repo, "sub")]);
  const outside = (await narrow.callTool(
    { name: "run", arguments: { prompt: "hi", worktree: "fix-1" } },
    CallToolResultSchema,
  )) as CallToolResult;
  assert.equal(codeOf(outside), "MCP_CWD_OUTSIDE_ROOTS", textOf(outside));

  assert.equal(gitIn(repo, ["branch", "--list", "seat/*"]).trim(), "", "no refused call made a branch");
  assert.equal(existsSync(join(home, "worktrees")), false, "no refused call made a worktree");
});

test("seat mcp run: a named session whose earlier worktree checks out a repository above the roots is refused (MCP_CWD_OUTSIDE_ROOTS) before anything starts", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-mcp-run-session-wt-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n", "sub/b.txt": "bee\n" });
  const home = join(dir, "seat-home");
  // The session "review" made a worktree of the whole repository on an earlier turn (a person's seat run -s).
  const { createWorktree } = await import("../../../src/worktrees/index.js");
  await createWorktree({ home, cwd: repo, owner: "session:review", name: "review" });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: join(dir, "home"),
    GROK_SEAT_HOME: home,
    GROK_BIN: join(dir, "no-grok"),
  };
  mkdirSync(env.HOME);
  const { client } = await connectSeatMcp(t, ["--root", join(repo, "sub")], { env, cwd: dir });
  const refused = (await client.callTool(
    { name: "run", arguments: { prompt: "hi", session: "review", cwd: join(repo, "sub") } },
    CallToolResultSchema,
  )) as CallToolResult;
  assert.equal(codeOf(refused), "MCP_CWD_OUTSIDE_ROOTS", textOf(refused));
  // A session with no worktree under the same narrow root is not refused for it (it fails later: no grok here).
  const other = (await client.callTool(
    { name: "run", arguments: { prompt: "hi", session: "plain-one", cwd: join(repo, "sub") } },
    CallToolResultSchema,
  )) as CallToolResult;
  assert.notEqual(codeOf(other), "MCP_CWD_OUTSIDE_ROOTS", textOf(other));
});
