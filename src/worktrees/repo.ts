/*
 * Repository: which git repository a directory belongs to, and which worktree of it is the user's.
 * Owns: resolving a directory to its top level and common git dir; the repository's key in the seat home.
 * Does not own: creating or changing anything (create.ts, merge.ts).
 * Invariant: read-only; a directory outside any worktree is WORKTREE_NOT_A_REPO before anything starts.
 */
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { SeatError } from "../errors.js";
import { NO_OPTIONAL_LOCKS, requireGit, spawnGit } from "./git.js";

/** A repository as seen from one of its worktrees. */
export interface Repository {
  /** Top level of the worktree the directory is in (the user's tree). */
  root: string;
  /** The common git directory shared by all its worktrees. */
  commonDir: string;
  /** A stable key naming the repository under the seat home (its name + a hash of the common git dir). */
  key: string;
}

/** Resolves `dir` to its repository; throws WORKTREE_NOT_A_REPO when it is not inside a worktree. */
export async function resolveRepository(dir: string): Promise<Repository> {
  const cwd = resolve(dir);
  await requireGit(cwd);
  const result = await spawnGit(["rev-parse", "--path-format=absolute", "--show-toplevel", "--git-common-dir"], {
    cwd,
    env: NO_OPTIONAL_LOCKS,
  });
  const [root, commonDir] = result.stdout.trim().split("\n");
  if (result.code !== 0 || !root || !commonDir) {
    throw new SeatError(
      "WORKTREE_NOT_A_REPO",
      `${cwd} is not inside a git worktree, so a seat worktree cannot be made from it. Run from a git checkout, or pass --cwd DIR of one.`,
      {
        context: { cwd, exitCode: result.code, stderrTail: result.stderr.trim().slice(-500) },
      },
    );
  }
  const realRoot = realpathSync(root);
  const realCommon = realpathSync(commonDir);
  // The key comes from the common git dir alone, so every worktree of the repository (a seat's included) finds the
  // same records; its readable part is the main worktree's name (the parent of `.git`) or the bare repository's.
  const named =
    basename(realCommon) === ".git" ? basename(dirname(realCommon)) : basename(realCommon).replace(/\.git$/, "");
  const key = `${named.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 32) || "repo"}-${createHash("sha256").update(realCommon).digest("hex").slice(0, 12)}`;
  return { root: realRoot, commonDir: realCommon, key };
}
