/*
 * Creating a seat worktree: `git worktree add` on branch `seat/<name>` from HEAD (or a base ref), placed under
 *   the seat home, and its record.
 * Owns: createWorktree (create, reuse, or re-attach a worktree whose directory vanished).
 * Does not own: committing turns (commit.ts) or review (review.ts, merge.ts, discard.ts).
 * Invariant: nothing is written into the user's worktree: git adds only a ref and an admin directory in the
 *   common git dir; hooks are off for the checkout (core.hooksPath=/dev/null), so no user hook runs in it.
 */
import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { SeatError } from "../errors.js";
import { NO_OPTIONAL_LOCKS, git, spawnGit } from "./git.js";
import { forgetWorktreeEntry } from "./entry.js";
import { assertWorktreeName, branchOf, defaultWorktreeName } from "../names/index.js";
import { readRecord, worktreePath, writeRecord, WORKTREE_RECORD_SCHEMA, type WorktreeRecord } from "./records.js";
import { resolveRepository } from "./repo.js";
import { worktreeBusy, worktreeHolder } from "./lock.js";

/** Git config for commands that check out files: no hook of the user's runs in a seat worktree. */
export const NO_HOOKS = ["-c", "core.hooksPath=/dev/null"];

/** Options of createWorktree. */
export interface CreateWorktreeOptions {
  /** The seat home (worktrees live under <home>/worktrees). */
  home: string;
  /** A directory inside the user's worktree (default: the process cwd). */
  cwd?: string;
  /** The worktree's name (branch `seat/<name>`); default a fresh `run-…` name. */
  name?: string;
  /** Branch from this ref instead of HEAD. */
  base?: string;
  /** Use an existing `seat/<name>` branch (and its worktree) instead of refusing it. */
  reuse?: boolean;
  /** Who uses it (`session:<name>`, `run`, `library`); the same owner reuses its own worktree without `reuse`. */
  owner?: string;
}

/** A worktree ready for an agent, and whether it already existed. */
export interface CreatedWorktree {
  record: WorktreeRecord;
  reused: boolean;
}

/**
 * Makes (or reuses) the seat worktree `name` of the repository containing `cwd`. Throws WORKTREE_NOT_A_REPO,
 * WORKTREE_NAME_INVALID, WORKTREE_BUSY (a live process of another pid holds its lock), WORKTREE_EXISTS (the
 * branch exists and neither `reuse` nor the same owner), WORKTREE_BASE_INVALID or WORKTREE_GIT_MISSING before
 * anything is changed.
 */
export async function createWorktree(options: CreateWorktreeOptions): Promise<CreatedWorktree> {
  const name = assertWorktreeName(options.name ?? defaultWorktreeName());
  const repo = await resolveRepository(options.cwd ?? process.cwd());
  const branch = branchOf(name);
  const checked = await spawnGit(["check-ref-format", `refs/heads/${branch}`], { cwd: repo.root });
  if (checked.code !== 0)
    throw new SeatError(
      "WORKTREE_NAME_INVALID",
      `"${name}" cannot name a worktree: git check-ref-format refuses refs/heads/${branch}.`,
      { context: { name } },
    );
  const owner = options.owner ?? "library";
  const path = worktreePath(options.home, repo.key, name);
  const existing = readRecord(options.home, repo.key, name);
  const branchExists =
    (
      await spawnGit(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], {
        cwd: repo.root,
        env: NO_OPTIONAL_LOCKS,
      })
    ).code === 0;
  if (existing || branchExists) {
    // A worktree another seat is working in is refused before its record changes hands (its lock stays the guard).
    const holder = existing ? worktreeHolder(options.home, existing) : undefined;
    if (holder && holder.pid !== process.pid) throw worktreeBusy(existing!, holder);
    if (!options.reuse && existing?.owner !== owner) {
      throw new SeatError(
        "WORKTREE_EXISTS",
        `The branch ${branch} already exists${existing ? ` (seat worktree "${name}", used by ${existing.owner})` : ""}. Pick another name, pass --reuse to work on it, or \`seat discard ${name}\` first.`,
        {
          context: { name, branch, repository: repo.root, owner: existing?.owner },
        },
      );
    }
    if (!branchExists)
      throw new SeatError(
        "WORKTREE_BRANCH_GONE",
        `The record of "${name}" names ${branch}, which no longer exists. \`seat discard ${name}\` and start again.`,
        { context: { name, branch } },
      );
    if (!existsSync(path)) {
      // The directory vanished (deleted by hand): forget git's entry for it (only its own) and check the branch out again.
      await forgetWorktreeEntry(repo.root, path);
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      await git([...NO_HOOKS, "worktree", "add", "--quiet", path, branch], { cwd: repo.root });
    }
    const base = existing ?? {
      base_ref: branch,
      base_commit: (
        await git(["rev-parse", "--verify", `${branch}^{commit}`], { cwd: repo.root, env: NO_OPTIONAL_LOCKS })
      ).stdout.trim(),
    };
    const record: WorktreeRecord = {
      ...recordOf(name, repo.root, repo.key, path, base.base_ref, base.base_commit, owner),
      ...(existing ? { created_at: existing.created_at } : {}),
    };
    writeRecord(options.home, record);
    return { record, reused: true };
  }
  const baseRef = options.base ?? "HEAD";
  const resolved = await spawnGit(["rev-parse", "--verify", "--quiet", "--end-of-options", `${baseRef}^{commit}`], {
    cwd: repo.root,
    env: NO_OPTIONAL_LOCKS,
  });
  if (resolved.code !== 0) {
    throw new SeatError(
      "WORKTREE_BASE_INVALID",
      baseRef === "HEAD"
        ? `${repo.root} has no commit yet, so there is nothing to branch a worktree from. Make a first commit and retry.`
        : `--base ${baseRef} does not name a commit in ${repo.root}.`,
      { context: { base: baseRef, repository: repo.root } },
    );
  }
  const baseCommit = resolved.stdout.trim();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  await git([...NO_HOOKS, "worktree", "add", "--quiet", "-b", branch, path, baseCommit], { cwd: repo.root });
  const record = recordOf(name, repo.root, repo.key, path, baseRef, baseCommit, owner);
  writeRecord(options.home, record);
  return { record, reused: false };
}

function recordOf(
  name: string,
  repository: string,
  repoKey: string,
  path: string,
  baseRef: string,
  baseCommit: string,
  owner: string,
): WorktreeRecord {
  return {
    schema: WORKTREE_RECORD_SCHEMA,
    name,
    repository,
    repo_key: repoKey,
    branch: branchOf(name),
    base_ref: baseRef,
    base_commit: baseCommit,
    path,
    created_at: new Date().toISOString(),
    owner,
  };
}
