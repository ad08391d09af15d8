/*
 * Review: finding a seat worktree by name, listing a repository's seat worktrees, and their diffs.
 * Owns: findWorktree, listWorktrees (branch, ahead/behind the user's HEAD, dirty, missing, owner), diffWorktree,
 *   and which worktree is the user's for them (the one they run in: userTreeOf).
 * Does not own: merging or discarding (merge.ts, discard.ts).
 * Invariant: read-only; every git command here runs with GIT_OPTIONAL_LOCKS=0, so not even the user's index
 *   is refreshed.
 */
import { existsSync, realpathSync } from "node:fs";
import { SeatError } from "../errors.js";
import { NO_OPTIONAL_LOCKS, git, spawnGit } from "./git.js";
import { assertWorktreeName } from "../names/index.js";
import { listRecords, readRecord, type WorktreeRecord } from "./records.js";
import { resolveRepository } from "./repo.js";
import { deadHolder, worktreeHolder, type WorktreeHolder } from "./lock.js";

/** A seat worktree with its live state. */
export interface WorktreeStatus extends WorktreeRecord {
  /** Commits on the seat's branch that the user's HEAD lacks, and the reverse. */
  ahead: number;
  behind: number;
  /** Uncommitted changes in the seat worktree (paths, as `git status --porcelain` names them). */
  dirty: string[];
  /** The worktree's directory is gone (discard removes its entry). */
  missing: boolean;
  /** The live process working in it now (its lock), or null. */
  in_use: WorktreeHolder | null;
  /** A process that died while it worked here (its lock is left): its turn was interrupted; changes stay uncommitted. */
  interrupted: WorktreeHolder | null;
}

/** The record of seat worktree `name` in the repository containing `cwd`; WORKTREE_NOT_FOUND when none. */
export async function findWorktree(home: string, cwd: string, name: string): Promise<WorktreeRecord> {
  assertWorktreeName(name);
  const repo = await resolveRepository(cwd);
  const record = readRecord(home, repo.key, name);
  if (!record)
    throw new SeatError(
      "WORKTREE_NOT_FOUND",
      `No seat worktree "${name}" in ${repo.root}. List them with \`seat worktrees\`.`,
      { context: { name, repository: repo.root } },
    );
  return record;
}

/** The uncommitted changes of a worktree (tracked and untracked), one porcelain line each. */
export async function dirtyPaths(dir: string, untracked = true): Promise<string[]> {
  const result = await git(["status", "--porcelain", `--untracked-files=${untracked ? "all" : "no"}`], {
    cwd: dir,
    env: NO_OPTIONAL_LOCKS,
  });
  return result.stdout.split("\n").filter((l) => l !== "");
}

/**
 * The user's worktree a review verb of `record` compares with and runs git in, given the top level of the worktree
 * it runs in (`root`): that one — the tree a merge from there lands in — unless it is the seat's own worktree, then
 * the one the seat was made from when it still exists. Without `root`, the one the seat was made from.
 */
export function userTreeOf(record: WorktreeRecord, root?: string): string {
  if (root === undefined) return record.repository;
  if (root !== realPath(record.path) || !existsSync(record.repository)) return root;
  return record.repository;
}

/** The live state of one seat worktree; ahead/behind count against the HEAD of `userTreeOf(record, root)`. */
export async function worktreeStatus(home: string, record: WorktreeRecord, root?: string): Promise<WorktreeStatus> {
  const missing = !existsSync(record.path);
  const counts = await spawnGit(["rev-list", "--left-right", "--count", `refs/heads/${record.branch}...HEAD`], {
    cwd: userTreeOf(record, root),
    env: NO_OPTIONAL_LOCKS,
  });
  const [ahead, behind] = counts.code === 0 ? counts.stdout.trim().split(/\s+/).map(Number) : [0, 0];
  return {
    ...record,
    ahead: ahead ?? 0,
    behind: behind ?? 0,
    dirty: missing ? [] : await dirtyPaths(record.path),
    missing,
    in_use: worktreeHolder(home, record) ?? null,
    interrupted: deadHolder(home, record) ?? null,
  };
}

/** Every seat worktree of the repository containing `cwd`, with its live state (ahead/behind the HEAD there). */
export async function listWorktrees(home: string, cwd: string): Promise<WorktreeStatus[]> {
  const repo = await resolveRepository(cwd);
  return Promise.all(listRecords(home, repo.key).map((r) => worktreeStatus(home, r, repo.root)));
}

/**
 * The diff of the seat's branch against where it forked from the user's HEAD (`HEAD...seat/<name>`), plus the
 * seat worktree's uncommitted changes when there are any; `stat` gives `--stat` summaries instead. `from`: a
 * directory of the worktree whose HEAD is the user's (what a merge run there would bring in); default the one the
 * seat was made from.
 */
export async function diffWorktree(
  record: WorktreeRecord,
  options: { stat?: boolean; from?: string } = {},
): Promise<string> {
  const format = options.stat ? ["--stat"] : [];
  const root = options.from === undefined ? undefined : (await resolveRepository(options.from)).root;
  const committed = await git(["diff", "--no-color", ...format, `HEAD...refs/heads/${record.branch}`, "--"], {
    cwd: userTreeOf(record, root),
    env: NO_OPTIONAL_LOCKS,
  });
  if (!existsSync(record.path)) return committed.stdout;
  const pending = await git(["diff", "--no-color", ...format, "HEAD", "--"], {
    cwd: record.path,
    env: NO_OPTIONAL_LOCKS,
  });
  return pending.stdout === ""
    ? committed.stdout
    : `${committed.stdout}${committed.stdout === "" ? "" : "\n"}# uncommitted in ${record.path}\n${pending.stdout}`;
}

/** One line of what the seat's branch changed since its base: `git diff --shortstat` ("" when nothing). */
export async function shortStat(
  record: Pick<WorktreeRecord, "repository" | "base_commit" | "branch">,
): Promise<string> {
  return (
    await git(["diff", "--shortstat", record.base_commit, `refs/heads/${record.branch}`, "--"], {
      cwd: record.repository,
      env: NO_OPTIONAL_LOCKS,
    })
  ).stdout.trim();
}

function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
