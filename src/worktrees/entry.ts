/*
 * Git's entry for one seat worktree: the admin directory (`<common dir>/worktrees/<id>`) git keeps for each linked
 *   worktree, found by the worktree's path and removed on its own.
 * Owns: forgetWorktreeEntry (used by discard, and by create when it checks a vanished worktree out again).
 * Does not own: the seat's branch or record (discard.ts), the directory's contents.
 * Invariant: only the entry whose path is the seat worktree's is ever removed. Never a bare `git worktree prune`:
 *   that also drops the user's own linked worktrees whose directory is missing for the moment (an unmounted
 *   drive), with their index and HEAD.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { NO_OPTIONAL_LOCKS, git } from "./git.js";

/**
 * The path git lists for the seat worktree at `path` (git stores the real path it was made at), or undefined when
 * git has no entry for it. A missing directory is matched by its deepest existing ancestor's real path.
 */
export async function listedWorktreePath(root: string, path: string): Promise<string | undefined> {
  const listed = (await git(["worktree", "list", "--porcelain", "-z"], { cwd: root, env: NO_OPTIONAL_LOCKS })).stdout
    .split("\0")
    .filter((field) => field.startsWith("worktree "))
    .map((field) => field.slice("worktree ".length));
  const candidates = new Set([path, realOfMissing(path)]);
  return listed.find((p) => candidates.has(p));
}

/**
 * Removes git's entry of the seat worktree at `path` — its directory too when it still exists — and nothing else:
 * `git worktree remove --force --force <path>` names the one worktree (git 2.18+ removes an entry whose directory
 * is gone). Resolves false when git had no entry for it.
 */
export async function forgetWorktreeEntry(root: string, path: string): Promise<boolean> {
  const listed = await listedWorktreePath(root, path);
  if (listed === undefined) return false;
  await git(["worktree", "remove", "--force", "--force", listed], { cwd: root });
  return true;
}

// The real path of `path`, which may be gone: its deepest existing ancestor resolved, the rest appended.
function realOfMissing(path: string): string {
  const rest: string[] = [];
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) {
    rest.unshift(basename(at));
    at = dirname(at);
  }
  try {
    return join(realpathSync(at), ...rest);
  } catch {
    return path;
  }
}
