/*
 * A named session that works in a seat worktree is named from the directory the person ran it in: `seat sessions
 *   history`, `seat cancel -s` and the next `seat run -s` (without --worktree) find it from the repository, while its
 *   agent keeps working in the worktree. A session recorded earlier under its worktree's path still resumes from
 *   there; a session that works in one directory is not silently moved into a worktree. The agent is the fake.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat, startSeat, type CliResult } from "../../support/cli.js";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";
import { makeRepo } from "../../support/git-repo.js";
import { openStore } from "../../../src/sessions/index.js";
import { scopeFor } from "../../../src/names/index.js";

/** A `grok` that runs the fake agent with `scenario`. */
function fakeGrok(dir: string, scenario: string): string {
  const path = join(dir, `grok-${scenario}`);
  writeFileSync(
    path,
    `#!/bin/sh\nFAKE_GROK_SCENARIO=${scenario} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

function world(t: { after(fn: () => void): void }) {
  const dir = mkdtempSync(join(tmpdir(), "gs-named-wt-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "README.md": "# project\n" });
  const home = join(dir, "seat-home");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: home, NO_COLOR: "1" };
  const seat = (args: string[], cwd = repo) => runSeat(args, { env, cwd });
  return { dir, repo, home, env, seat, normal: fakeGrok(dir, "normal"), hang: fakeGrok(dir, "hang-on-prompt") };
}

const lines = (r: CliResult) =>
  r.stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test("seat run -s NAME --worktree in a repo: history, cancel -s and the next run -s find it from the repo; its agent stays in the worktree", async (t) => {
  const w = world(t);
  const first = await w.seat(["run", "--json", "--grok", w.normal, "-s", "wt1", "--worktree=wt1", "hello"]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const worktree = lines(first).find((l) => l.type === "worktree");
  assert.ok(worktree, `the run said its worktree: ${first.stdout}`);

  const history = await w.seat(["sessions", "history", "wt1", "--json"]);
  assert.equal(history.code, 0, history.stdout + history.stderr);
  assert.deepEqual(
    lines(history).map((l) => [l.state, l.stopReason]),
    [["completed", "end_turn"]],
  );

  // The next turn, from the repository without --worktree: the same session, resumed, in the same worktree.
  const next = startSeat(["run", "--json", "--grok", w.hang, "-s", "wt1", "hang there"], { env: w.env, cwd: w.repo });
  try {
    const until = Date.now() + 10_000;
    while (!next.stdout().includes('"state":"working"')) {
      assert.ok(Date.now() < until && next.child.exitCode === null, `the turn runs: ${next.stdout()}${next.stderr()}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    const cancel = await w.seat(["cancel", "-s", "wt1", "--json"]);
    assert.equal(cancel.code, 0, cancel.stdout + cancel.stderr);
    const done = await next.done;
    assert.equal(done.code, 130, done.stdout + done.stderr);
    const opened = lines(done).find((l) => l.type === "session");
    assert.equal(opened?.resumed, true, `the recorded session was resumed: ${done.stdout}`);
    assert.equal(lines(done).find((l) => l.type === "worktree")?.path, worktree.path, "in the same worktree");
  } finally {
    next.child.kill("SIGKILL");
  }
  const store = openStore(w.home);
  try {
    const sessions = store.list();
    assert.deepEqual(
      sessions.map((s) => [s.name, s.scope, s.cwd]),
      [["wt1", scopeFor(w.repo, false), worktree.path]],
      "one session, named from the repository, working in the worktree",
    );
  } finally {
    store.close();
  }
  const after = await w.seat(["sessions", "history", "wt1", "--json"]);
  assert.deepEqual(
    lines(after).map((l) => l.state),
    ["completed", "interrupted"],
  );
});

test("a session recorded under its worktree's path still resumes from there and from the repo; one that works in the repo is not moved into a worktree", async (t) => {
  const w = world(t);
  const first = await w.seat(["run", "--json", "--grok", w.normal, "-s", "old", "--worktree=old", "hello"]);
  assert.equal(first.code, 0, first.stdout + first.stderr);
  const path = String(lines(first).find((l) => l.type === "worktree")?.path);
  // Make it the record an earlier version wrote: named from the worktree's path.
  const store = openStore(w.home);
  try {
    const db = (store as unknown as { path: string }).path;
    const { default: Database } = await import("better-sqlite3");
    const raw = new Database(db);
    raw.prepare("UPDATE named_sessions SET scope = ? WHERE name = 'old'").run(scopeFor(path, false));
    raw.close();
  } finally {
    store.close();
  }
  const there = await w.seat(["run", "--json", "--grok", w.normal, "-s", "old", "again"], path);
  assert.equal(there.code, 0, there.stdout + there.stderr);
  assert.equal(lines(there).find((l) => l.type === "session")?.resumed, true, there.stdout);
  const fromRepo = await w.seat(["run", "--json", "--grok", w.normal, "-s", "old", "once more"]);
  assert.equal(fromRepo.code, 0, fromRepo.stdout + fromRepo.stderr);
  assert.equal(lines(fromRepo).find((l) => l.type === "session")?.resumed, true, fromRepo.stdout);
  const history = await w.seat(["sessions", "history", "old", "--json"], path);
  assert.equal(lines(history).length, 3, history.stdout + history.stderr);

  // A session that works in the repository cannot move into a worktree: refused, nothing started.
  const plain = await w.seat(["run", "--json", "--grok", w.normal, "-s", "here", "hello"]);
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  const moved = await w.seat(["run", "--json", "--grok", w.normal, "-s", "here", "--worktree=here", "hello"]);
  assert.notEqual(moved.code, 0, moved.stdout);
  assert.equal(lines(moved).at(-1)?.code, "SESSION_NOT_RESUMABLE", moved.stdout + moved.stderr);
  const kept = await w.seat(["sessions", "history", "here", "--json"]);
  assert.equal(lines(kept).length, 1, "nothing was sent");
});
