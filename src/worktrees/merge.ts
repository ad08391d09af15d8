/*
 * Merge: bringing a seat's branch into the branch checked out in the user's worktree — the only operation
 *   of grok-seat that writes into the user's tree.
 * Owns: mergeWorktree (merge, --squash, --ff-only, --rebase), where it lands, and its refusals.
 * Does not own: the seat's commits (commit.ts), the overwrite check itself (overwrite.ts).
 * Invariant: the merge lands in the worktree it is asked to (where `seat merge` runs, or --into), never in the
 *   one the seat was made from by default; the user's tree is touched only when it is on a branch, has no changes
 *   to tracked files, `git merge-tree --write-tree` has shown the merge is clean, and the tree that merge makes
 *   writes over no path git does not track there (untracked or ignored); a conflict found later (a rebase) is
 *   aborted in the seat's own worktree, so the user's tree stays byte-for-byte as it was.
 */
import { realpathSync } from "node:fs";
import { SeatError } from "../errors.js";
import { NO_OPTIONAL_LOCKS, SEAT_IDENTITY, git, spawnGit } from "./git.js";
import { NO_HOOKS } from "./create.js";
import { dirtyPaths } from "./review.js";
import type { WorktreeRecord } from "./records.js";
import { lockWorktree } from "./lock.js";
import { pathsMergeWouldOverwrite } from "./overwrite.js";
import { resolveRepository } from "./repo.js";

/** How to merge: a merge (fast-forward when possible), one squashed commit, fast-forward only, or rebase first. */
export type MergeMode = "merge" | "squash" | "ff-only" | "rebase";

/** What mergeWorktree did. */
export interface MergeResult {
  mode: MergeMode;
  /** The branch of the user's worktree that moved, and its new head (unchanged when nothing to merge). */
  into: string;
  head: string;
  /** Files the merge changed in the user's tree. */
  files: string[];
}

/** Options of mergeWorktree. */
export interface MergeOptions {
  mode?: MergeMode;
  /** The merge or squash commit message. */
  message?: string;
  /** The seat home: with it, a --rebase refuses (WORKTREE_BUSY) while a seat works in the worktree. */
  home?: string;
  /**
   * A directory of the worktree to merge into (its checked-out branch moves); it must be a worktree of the seat's
   * repository other than the seat's own. Default: the worktree the seat was made from (`record.repository`);
   * the CLI and MCP pass where they run.
   */
  into?: string;
}

/**
 * Merges the seat's branch into the branch checked out in the worktree `into`. Throws, before anything changes,
 * WORKTREE_MERGE_TARGET_INVALID, WORKTREE_DETACHED, WORKTREE_DIRTY, WORKTREE_CONFLICT,
 * WORKTREE_MERGE_WOULD_OVERWRITE (naming the untracked or ignored paths), WORKTREE_NOT_FAST_FORWARD; with `home`,
 * a --rebase waits for no one: WORKTREE_BUSY while a seat works in the worktree.
 */
export async function mergeWorktree(record: WorktreeRecord, options: MergeOptions = {}): Promise<MergeResult> {
  const mode = options.mode ?? "merge";
  const root = await mergeTarget(record, options.into ?? record.repository);
  const into = await spawnGit(["symbolic-ref", "--quiet", "--short", "HEAD"], { cwd: root, env: NO_OPTIONAL_LOCKS });
  if (into.code !== 0)
    throw new SeatError(
      "WORKTREE_DETACHED",
      `${root} is not on a branch (detached HEAD), so there is no branch to merge ${record.branch} into. Check out a branch and retry.`,
      { context: { repository: root, branch: record.branch } },
    );
  const target = into.stdout.trim();
  if (target === record.branch) {
    throw new SeatError(
      "WORKTREE_MERGE_TARGET_INVALID",
      `${root} has ${record.branch} itself checked out; a seat's branch is merged into another branch. Run seat merge in your own checkout, or pass --into DIR.`,
      { context: { repository: root, branch: record.branch } },
    );
  }
  const dirty = await dirtyPaths(root, false);
  if (dirty.length > 0) {
    throw new SeatError(
      "WORKTREE_DIRTY",
      `${root} has uncommitted changes (${listed(dirty.map((l) => l.slice(3)))}); seat merge only lands in a clean tree. Commit or stash them and retry.`,
      {
        context: { repository: root, files: dirty.map((l) => l.slice(3)) },
      },
    );
  }
  const before = (await git(["rev-parse", "HEAD"], { cwd: root, env: NO_OPTIONAL_LOCKS })).stdout.trim();
  const seatRef = `refs/heads/${record.branch}`;
  // Every refusal comes before anything changes: the seat's branch too (a rebase rewrites it).
  await probeMerge(root, record, target);
  if (mode === "rebase") {
    // The rebase rewrites the seat's own worktree: never while a seat works in it.
    const lock = options.home === undefined ? undefined : lockWorktree(options.home, record, "merge --rebase");
    try {
      await rebaseSeat(record, before);
    } finally {
      lock?.release();
    }
    await probeMerge(root, record, target);
  }
  const fastForward =
    (await spawnGit(["merge-base", "--is-ancestor", "HEAD", seatRef], { cwd: root, env: NO_OPTIONAL_LOCKS })).code ===
    0;
  if ((mode === "ff-only" || mode === "rebase") && !fastForward) {
    throw new SeatError(
      "WORKTREE_NOT_FAST_FORWARD",
      `${target} has commits that ${record.branch} lacks, so --ff-only cannot move it; nothing was changed. Use --rebase or a merge.`,
      { context: { repository: root, branch: record.branch, into: target } },
    );
  }
  const env = await identityFor(root);
  const message = options.message ?? `seat: merge ${record.branch}`;
  // --no-overwrite-ignore: git's own refusal too, should an ignored file appear after the check.
  if (mode === "squash") {
    await git(["merge", "--no-overwrite-ignore", "--squash", "--quiet", seatRef], { cwd: root, env });
    const staged = await git(["diff", "--cached", "--quiet"], { cwd: root, okCodes: [0, 1] });
    if (staged.code === 1) await git(["commit", "--quiet", "-m", message], { cwd: root, env });
  } else if (mode === "ff-only" || mode === "rebase") {
    await git(["merge", "--no-overwrite-ignore", "--ff-only", "--quiet", seatRef], { cwd: root, env });
  } else {
    await git(["merge", "--no-overwrite-ignore", "--no-edit", "--quiet", "-m", message, seatRef], { cwd: root, env });
  }
  const head = (await git(["rev-parse", "HEAD"], { cwd: root, env: NO_OPTIONAL_LOCKS })).stdout.trim();
  const files =
    head === before
      ? []
      : (await git(["diff", "--name-only", before, head], { cwd: root, env: NO_OPTIONAL_LOCKS })).stdout
          .split("\n")
          .filter((l) => l !== "");
  return { mode, into: target, head, files };
}

// The top level of the worktree to merge into: a worktree of the seat's repository, not the seat's own.
async function mergeTarget(record: WorktreeRecord, dir: string): Promise<string> {
  const repo = await resolveRepository(dir);
  if (repo.key !== record.repo_key) {
    throw new SeatError(
      "WORKTREE_MERGE_TARGET_INVALID",
      `${repo.root} is a worktree of another repository than ${record.branch}'s (${record.repository}); nothing was changed. Run seat merge in a checkout of that repository, or pass --into DIR of one.`,
      {
        context: { into: repo.root, repository: record.repository, branch: record.branch },
      },
    );
  }
  if (repo.root === realPath(record.path)) {
    throw new SeatError(
      "WORKTREE_MERGE_TARGET_INVALID",
      `${repo.root} is the seat's own worktree; its branch ${record.branch} is merged into another branch. Run seat merge in your own checkout, or pass --into DIR.`,
      {
        context: { into: repo.root, branch: record.branch },
      },
    );
  }
  return repo.root;
}

// The merge computed without touching any tree: a conflict, or a result that would write over a path git does not
// track in the user's tree, refuses it.
async function probeMerge(root: string, record: WorktreeRecord, target: string): Promise<void> {
  const probe = await git(
    ["merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", `refs/heads/${record.branch}`],
    { cwd: root, env: NO_OPTIONAL_LOCKS, okCodes: [0, 1] },
  );
  if (probe.code === 1) {
    const files = probe.stdout
      .split("\n")
      .slice(1)
      .filter((l) => l !== "");
    throw new SeatError(
      "WORKTREE_CONFLICT",
      `Merging ${record.branch} into ${target} conflicts in ${files.join(", ")}; nothing was changed in ${root}. Rebase the seat's work or resolve it in ${record.path}.`,
      {
        context: { repository: root, branch: record.branch, into: target, files },
      },
    );
  }
  const files = await pathsMergeWouldOverwrite(root, probe.stdout.split("\n")[0]!.trim());
  if (files.length > 0) {
    throw new SeatError(
      "WORKTREE_MERGE_WOULD_OVERWRITE",
      `Merging ${record.branch} into ${target} would write over ${files.length} path(s) git does not track in ${root} (untracked or ignored): ${listed(files)}; nothing was changed. Move them aside and retry.`,
      {
        context: { repository: root, branch: record.branch, into: target, files },
      },
    );
  }
}

function listed(paths: string[]): string {
  return `${paths.slice(0, 5).join(", ")}${paths.length > 5 ? ", …" : ""}`;
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// The seat's branch is replayed onto the user's HEAD inside the seat's own worktree; a conflict is aborted there.
async function rebaseSeat(record: WorktreeRecord, onto: string): Promise<void> {
  const pending = await dirtyPaths(record.path);
  if (pending.length > 0)
    throw new SeatError(
      "WORKTREE_DIRTY",
      `The seat worktree ${record.path} has uncommitted changes; --rebase needs it clean. Run another turn or discard it.`,
      { context: { path: record.path, files: pending.map((l) => l.slice(3)) } },
    );
  const rebased = await spawnGit([...NO_HOOKS, "rebase", "--quiet", onto], { cwd: record.path, env: SEAT_IDENTITY });
  if (rebased.code === 0) return;
  const conflicted = await spawnGit(["diff", "--name-only", "--diff-filter=U"], { cwd: record.path });
  await spawnGit(["rebase", "--abort"], { cwd: record.path });
  const files = conflicted.stdout.split("\n").filter((l) => l !== "");
  throw new SeatError(
    "WORKTREE_CONFLICT",
    `Rebasing ${record.branch} onto ${onto.slice(0, 12)} conflicts in ${files.join(", ") || "its commits"}; the rebase was aborted and nothing was changed.`,
    {
      context: { branch: record.branch, files, exitCode: rebased.code, stderrTail: rebased.stderr.trim().slice(-2000) },
    },
  );
}

// A merge commit is the user's: their configured identity when git has one, else the seat's.
async function identityFor(root: string): Promise<Record<string, string>> {
  const ident = await spawnGit(["var", "GIT_COMMITTER_IDENT"], { cwd: root, env: NO_OPTIONAL_LOCKS });
  return ident.code === 0 ? {} : SEAT_IDENTITY;
}
