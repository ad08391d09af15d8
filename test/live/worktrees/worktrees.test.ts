/*
 * Seat worktrees on the real grok 1.0.41 (offline, scripted mock model): grok writes files with its own `write`
 * tool (policy allows edit) inside a seat worktree; each turn becomes a commit on seat/<name>; a named session
 * keeps its worktree across turns; the user's tree is untouched byte for byte until `seat merge`, which lands
 * cleanly — and a conflicting merge aborts, leaving the user's tree exactly as it was.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat, startSeat, type CliResult } from "../../support/cli.js";
import { startLiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";
import { gitIn, makeRepo, snapshotUserTree, writeFiles } from "../../support/git-repo.js";
import { resolveRepository, worktreePath } from "../../../src/worktrees/index.js";

function lines(result: CliResult): Array<Record<string, any>> {
  return result.stdout
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Record<string, any>);
}

test("real grok writes files in its seat worktree: commits on seat/<name>, the user's tree untouched, a clean merge, a conflicting merge that changes nothing", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-live-worktrees-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\ntwo\nthree\n", "README.md": "# project\n" });
  const home = join(dir, "seat-home");
  const { key } = await resolveRepository(repo);
  const tree = (name: string) => worktreePath(home, key, name);
  const write = (name: string, file: string, content: string) => ({
    toolCalls: [{ name: "write", arguments: { file_path: join(tree(name), file), content } }],
  });
  const rig = await startLiveRig({
    rules: [
      {
        match: "write the greeting",
        replies: [
          write("s1", "hello.txt", "hello from grok\n"),
          {
            toolCalls: [
              { name: "run_terminal_command", arguments: { command: "pwd > where.txt", description: "note the cwd" } },
            ],
          },
          { text: "greeting written" },
        ],
      },
      {
        match: "write the farewell",
        replies: [write("s1", "bye.txt", "bye from grok\n"), { text: "farewell written" }],
      },
      {
        match: "shout line two",
        replies: [write("clash", "a.txt", "one\nTWO FROM GROK\nthree\n"), { text: "shouted" }],
      },
    ],
  });
  if (!gotLive(t, rig)) return;
  t.after(() => rig.close());
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: home,
  };
  const seat = (args: string[]) => runSeat(args, { env, cwd: repo });
  const before = snapshotUserTree(repo);

  const first = await seat([
    "run",
    "--json",
    "-s",
    "s1",
    "--worktree",
    "--allow",
    "edit,execute",
    "please write the greeting",
  ]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const firstLines = lines(first);
  const made = firstLines.find((l) => l.type === "worktree")!;
  assert.equal(made.branch, "seat/s1");
  assert.equal(made.path, tree("s1"));
  assert.ok(
    firstLines.some((l) => l.type === "tool_end"),
    "grok ran its write tool",
  );
  const committed = firstLines.find((l) => l.type === "worktree_commit")!;
  assert.ok(committed.commit, "the turn's change was committed");
  const done = firstLines.find((l) => l.type === "done")!;
  assert.equal(
    gitIn(repo, ["log", "-1", "--format=%s", "seat/s1"]).trim(),
    `seat: ${done.promptId} please write the greeting`,
  );
  assert.equal(gitIn(repo, ["show", "seat/s1:hello.txt"]), "hello from grok\n");
  assert.equal(gitIn(repo, ["show", "seat/s1:where.txt"]), `${tree("s1")}\n`, "grok's cwd is the seat worktree");
  assert.deepEqual(snapshotUserTree(repo), before, "grok's write landed in the seat's tree, not the user's");

  // The named session keeps its worktree: the next turn needs no --worktree and commits on the same branch.
  const second = await seat(["run", "--json", "-s", "s1", "--allow", "edit", "now write the farewell"]);
  assert.equal(second.code, 0, second.stdout + second.stderr);
  assert.equal(lines(second).find((l) => l.type === "session")?.resumed, true, "the same named session continued");
  assert.equal(lines(second).find((l) => l.type === "worktree")?.path, tree("s1"));
  assert.deepEqual(
    gitIn(repo, ["log", "--format=%s", "main..seat/s1"])
      .trim()
      .split("\n")
      .map((s) => s.replace(/^seat: \S+ /, "")),
    ["now write the farewell", "please write the greeting"],
  );
  assert.deepEqual(
    gitIn(repo, ["ls-tree", "--name-only", "seat/s1"]).trim().split("\n").sort(),
    ["README.md", "a.txt", "bye.txt", "hello.txt", "where.txt"],
    "only the agent's files were committed",
  );
  assert.deepEqual(snapshotUserTree(repo), before);

  const merged = await seat(["merge", "s1", "--json"]);
  assert.equal(merged.code, 0, merged.stdout + merged.stderr);
  assert.equal(readFileSync(join(repo, "hello.txt"), "utf8"), "hello from grok\n");
  assert.equal(readFileSync(join(repo, "bye.txt"), "utf8"), "bye from grok\n");
  assert.equal(gitIn(repo, ["status", "--porcelain", "--untracked-files=all"]), "");

  // A one-off run in its own worktree edits a.txt while the user edits the same line: the merge is refused.
  const clash = await seat(["run", "--json", "--worktree", "clash", "--allow", "edit", "shout line two"]);
  assert.equal(clash.code, 0, clash.stdout + clash.stderr);
  assert.ok(lines(clash).find((l) => l.type === "worktree_commit")?.commit);
  writeFiles(repo, { "a.txt": "one\ntwo by the user\nthree\n" });
  gitIn(repo, ["commit", "--quiet", "-am", "user edits line two"]);
  const beforeMerge = snapshotUserTree(repo);
  const refused = await seat(["merge", "clash", "--json"]);
  assert.equal(refused.code, 1, refused.stdout + refused.stderr);
  const error = lines(refused).pop()!;
  assert.equal(error.code, "WORKTREE_CONFLICT");
  assert.deepEqual(error.context.files, ["a.txt"]);
  assert.deepEqual(
    snapshotUserTree(repo),
    beforeMerge,
    "the conflicting merge left the user's tree byte-for-byte as it was",
  );
  const listed = lines(await seat(["worktrees", "--json"]));
  assert.deepEqual(
    listed.map((w) => [w.name, w.owner, w.dirty.length]),
    [
      ["clash", "run", 0],
      ["s1", "session:s1", 0],
    ],
  );
});

test("seat run -s NAME --wait --worktree queues behind the session's holder (the lease comes before the worktree), and its first line is still the session", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-live-worktrees-wait-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n" });
  const home = join(dir, "seat-home");
  const rig = await startLiveRig({
    rules: [
      // Word by word, 400 ms apart: the holder keeps the lease (and the worktree) for a few seconds.
      {
        match: "the slow turn",
        replies: [{ text: "one two three four five six seven eight nine ten", chunkDelayMs: 400 }],
      },
      { match: "the queued turn", replies: [{ text: "queued and done" }] },
    ],
  });
  if (!gotLive(t, rig)) return;
  t.after(() => rig.close());
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: home,
  };
  const holder = startSeat(["run", "--json", "-s", "q1", "--worktree", "the slow turn"], { env, cwd: repo });
  t.after(() => void holder.child.kill("SIGKILL"));
  // Once the holder streams its answer it holds the session's lease and the worktree's lock.
  const deadline = Date.now() + 120_000;
  while (!holder.stdout().includes('"type":"text"')) {
    if (holder.child.exitCode !== null || Date.now() > deadline)
      assert.fail(`the holder never streamed: ${holder.stdout()}${holder.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  let holderEndedAt = 0;
  const held = holder.done.then((result) => ((holderEndedAt = Date.now()), result));
  const waiter = await runSeat(["run", "--json", "-s", "q1", "--wait", "120", "--worktree", "the queued turn"], {
    env,
    cwd: repo,
  });
  const waiterEndedAt = Date.now();
  const first = await held;
  assert.equal(first.code, 0, first.stdout + first.stderr);
  assert.equal(
    waiter.code,
    0,
    `the queued run waited for the lease instead of failing on the holder's worktree: ${waiter.stdout}${waiter.stderr}`,
  );
  assert.ok(holderEndedAt > 0 && holderEndedAt <= waiterEndedAt);
  for (const result of [first, waiter]) {
    const [session, worktree] = lines(result);
    assert.equal(session?.type, "session", "the first line of a named run is its session line, --worktree or not");
    assert.deepEqual([worktree?.type, worktree?.branch], ["worktree", "seat/q1"]);
  }
  assert.equal(lines(waiter)[0]!.resumed, true, "the queued run continued the holder's session");
  assert.ok(lines(waiter).some((l) => l.type === "text" && String(l.text).includes("queued")));
});
