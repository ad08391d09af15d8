/*
 * The library's turn worktree (worktrees/turn.ts), with real git: planning changes nothing; take() makes and locks
 * it (a second take in the same process is WORKTREE_BUSY, as an MCP server's concurrent calls would be); a named
 * session finds the worktree it made on an earlier turn; finish commits the turn; release() frees the lock and
 * takes its exit hook with it, so a long-lived process does not pile up 'exit' listeners.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gitIn, makeRepo, snapshotUserTree } from "../../support/git-repo.js";
import { isSeatError } from "../../../src/errors.js";
import { finishTurnWorktree, planTurnWorktree } from "../../../src/index.js";

test("planTurnWorktree changes nothing; take() makes and locks; a second take is WORKTREE_BUSY; finish commits; a named session keeps its tree; release() leaves no exit listener", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-turn-worktree-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n" });
  const home = join(dir, "seat-home");
  const before = snapshotUserTree(repo);

  const plan = (await planTurnWorktree({ home, cwd: repo, session: "s1", worktree: { name: "" } }))!;
  assert.equal(gitIn(repo, ["branch", "--list", "seat/*"]).trim(), "", "planning made no branch");
  const listeners = process.listenerCount("exit");
  const taken = await plan.take();
  assert.equal(taken.record.path, plan.path);
  assert.equal(taken.record.branch, "seat/s1", "an empty name is the session's name");
  await assert.rejects(
    (await planTurnWorktree({ home, cwd: repo, session: "s1", worktree: { name: "s1" } }))!.take(),
    (e) => isSeatError(e, "WORKTREE_BUSY"),
  );
  writeFileSync(join(taken.record.path, "new.txt"), "from the turn\n");
  const committed = await finishTurnWorktree(taken, { promptId: "p1", prompt: "add new.txt" });
  assert.ok(committed.commit);
  assert.equal(gitIn(repo, ["show", "seat/s1:new.txt"]), "from the turn\n");
  taken.lock.release();
  assert.equal(process.listenerCount("exit"), listeners, "release() took its exit hook with it");

  // The named session's next turn, without asking: its own worktree again. A plain turn without asking: none.
  const again = (await planTurnWorktree({ home, cwd: repo, session: "s1" }))!;
  assert.equal(again.path, taken.record.path);
  assert.equal(await planTurnWorktree({ home, cwd: repo }), undefined);
  for (let i = 0; i < 12; i++) (await again.take()).lock.release();
  assert.equal(process.listenerCount("exit"), listeners, "twelve turns leave no exit listener behind");
  assert.deepEqual(snapshotUserTree(repo), before, "the user's tree is untouched");

  await assert.rejects(planTurnWorktree({ home, cwd: repo, worktree: { name: "../x" } }), (e) =>
    isSeatError(e, "WORKTREE_NAME_INVALID"),
  );
  await assert.rejects(planTurnWorktree({ home, cwd: dir, worktree: { name: "x" } }), (e) =>
    isSeatError(e, "WORKTREE_NOT_A_REPO"),
  );
});
