/*
 * Discard: removing a seat worktree, its branch and its record.
 * Owns: discardWorktree (refuses uncommitted changes unless forced; forgets git's entry of a worktree whose
 *   directory vanished).
 * Does not own: the user's tree, nor any other worktree's entry (only the seat's branch and its own admin entry are
 *   removed: never a bare `git worktree prune`, see entry.ts).
 */
import { existsSync } from "node:fs";
import { SeatError } from "../errors.js";
import { git, spawnGit } from "./git.js";
import { forgetWorktreeEntry } from "./entry.js";
import { deleteRecord, type WorktreeRecord } from "./records.js";
import { dirtyPaths, userTreeOf } from "./review.js";
import { resolveRepository } from "./repo.js";
import { lockWorktree } from "./lock.js";

/** What discardWorktree removed. */
export interface DiscardResult {
  name: string;
  branch: string;
  /** The directory was already gone; git's entry for it (and only it) was removed. */
  pruned: boolean;
}

/**
 * Removes the seat worktree, branch `seat/<name>` and the record, running git from `from` (a directory of the
 * repository; default the worktree the seat was made from). Throws WORKTREE_DIRTY on uncommitted changes unless
 * `force`, and WORKTREE_BUSY while a seat works in it (even with `force`).
 */
export async function discardWorktree(
  home: string,
  record: WorktreeRecord,
  options: { force?: boolean; from?: string } = {},
): Promise<DiscardResult> {
  const lock = lockWorktree(home, record, "discard");
  try {
    return await discardLocked(home, record, options);
  } finally {
    lock.release();
  }
}

async function discardLocked(
  home: string,
  record: WorktreeRecord,
  options: { force?: boolean; from?: string },
): Promise<DiscardResult> {
  // Git runs in the worktree the verb runs in: the one the seat was made from may be gone by now.
  const root = userTreeOf(
    record,
    options.from === undefined ? undefined : (await resolveRepository(options.from)).root,
  );
  const pruned = !existsSync(record.path);
  if (pruned) {
    await forgetWorktreeEntry(root, record.path);
  } else {
    const dirty = await dirtyPaths(record.path);
    if (dirty.length > 0 && !options.force) {
      throw new SeatError(
        "WORKTREE_DIRTY",
        `The seat worktree "${record.name}" has uncommitted changes (${dirty
          .slice(0, 5)
          .map((l) => l.slice(3))
          .join(", ")}${dirty.length > 5 ? ", …" : ""}). Merge or keep them, or pass --force to throw them away.`,
        {
          context: { name: record.name, path: record.path, files: dirty.map((l) => l.slice(3)) },
        },
      );
    }
    await git(["worktree", "remove", ...(options.force ? ["--force", "--force"] : []), record.path], { cwd: root });
  }
  const branch = await spawnGit(["show-ref", "--verify", "--quiet", `refs/heads/${record.branch}`], { cwd: root });
  if (branch.code === 0) await git(["branch", "--quiet", "-D", record.branch], { cwd: root });
  deleteRecord(home, record.repo_key, record.name);
  return { name: record.name, branch: record.branch, pruned };
}
