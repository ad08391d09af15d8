/*
 * Remote worktrees: a fleet job's tree — one cache clone per repository on the worker, a worktree per job on
 *   branch seat/<job id>, and one push of that branch at the end.
 * Owns: the cache clone (<home>/worktrees/cache/<hash>.git, bare, fetched before each job), prepareJobWorktree,
 *   finishJobWorktree (commit, diffstat, `git push --atomic`, then the job's worktree and local branch removed).
 * Does not own: the job's state (fleet/) or the agent.
 * Invariant: the only write to the repository's remote is one atomic push after the turn ended; a worker that
 *   dies mid-turn pushes nothing, so no half-pushed branch exists. Jobs of one worker process touch one cache
 *   clone one at a time (a promise chain per clone).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { SeatError } from "../errors.js";
import { NO_HOOKS } from "./create.js";
import { commitTurn } from "./commit.js";
import { git, requireGit, spawnGit } from "./git.js";
import { assertWorktreeName, branchOf } from "../names/index.js";

/** A job's worktree inside the worker's cache clone. */
export interface JobWorktree {
  name: string;
  branch: string;
  /** The repository as the job named it (URL or absolute path): the push goes there. */
  repo: string;
  cache: string;
  path: string;
  base_commit: string;
}

/** What a job's worktree produced: the pushed branch, its head commit and a diffstat against the base. */
export interface JobWorktreeResult {
  branch: string;
  commit: string;
  base_commit: string;
  diffstat: string;
  pushed: boolean;
}

const chains = new Map<string, Promise<unknown>>();

// One git operation on a cache clone at a time in this process (clone, fetch, worktree add/remove).
function serial<T>(cache: string, op: () => Promise<T>): Promise<T> {
  const run = (chains.get(cache) ?? Promise.resolve()).then(op, op);
  chains.set(
    cache,
    run.catch(() => undefined),
  );
  return run;
}

/** Where the worker keeps its clone of `repo`. */
export function cacheDir(home: string, repo: string): string {
  return join(home, "worktrees", "cache", `${createHash("sha256").update(repo).digest("hex").slice(0, 16)}.git`);
}

/** Clones (once) and fetches `repo`, then adds the job's worktree on seat/<name> from `base` (default the remote's HEAD). */
export async function prepareJobWorktree(options: {
  home: string;
  repo: string;
  name: string;
  base?: string;
}): Promise<JobWorktree> {
  const name = assertWorktreeName(options.name);
  if (
    !/^[a-z][a-z0-9+.-]*:\/\//i.test(options.repo) &&
    !/^[^/]+@[^:]+:/.test(options.repo) &&
    !isAbsolute(options.repo)
  ) {
    throw new SeatError(
      "WORKTREE_NOT_A_REPO",
      `A job's --repo must be a URL or an absolute path, not "${options.repo}".`,
      { context: { repo: options.repo } },
    );
  }
  const root = join(options.home, "worktrees", "cache");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  await requireGit(root);
  const cache = cacheDir(options.home, options.repo);
  const branch = branchOf(name);
  const path = join(options.home, "worktrees", "jobs", name);
  return serial(cache, async () => {
    if (!existsSync(cache)) {
      const temp = `${cache}.${process.pid}.tmp`;
      rmSync(temp, { recursive: true, force: true });
      const cloned = await spawnGit(["clone", "--bare", "--quiet", "--", options.repo, temp], { cwd: root });
      if (cloned.code !== 0) {
        rmSync(temp, { recursive: true, force: true });
        throw new SeatError(
          "WORKTREE_NOT_A_REPO",
          `${options.repo} could not be cloned: ${cloned.stderr.trim().split("\n").pop() ?? ""}.`,
          { context: { repo: options.repo, exitCode: cloned.code, stderrTail: cloned.stderr.trim().slice(-2000) } },
        );
      }
      try {
        renameSync(temp, cache);
      } catch (error) {
        // Another worker process on this host cloned it first: use theirs.
        rmSync(temp, { recursive: true, force: true });
        if (!existsSync(cache)) throw error;
        await git(["fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/heads/*"], { cwd: cache });
      }
    } else {
      await git(["fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/heads/*"], { cwd: cache });
    }
    await git(["worktree", "prune"], { cwd: cache });
    const baseRef = options.base ?? "HEAD";
    const resolved = await spawnGit(["rev-parse", "--verify", "--quiet", "--end-of-options", `${baseRef}^{commit}`], {
      cwd: cache,
    });
    if (resolved.code !== 0)
      throw new SeatError("WORKTREE_BASE_INVALID", `--base ${baseRef} does not name a commit of ${options.repo}.`, {
        context: { base: baseRef, repo: options.repo },
      });
    const baseCommit = resolved.stdout.trim();
    if ((await spawnGit(["show-ref", "--verify", "--quiet", `refs/heads/${branch}`], { cwd: cache })).code === 0) {
      throw new SeatError(
        "WORKTREE_EXISTS",
        `${options.repo} already has a branch ${branch}; a job's branch is never reused.`,
        { context: { repo: options.repo, branch } },
      );
    }
    mkdirSync(join(options.home, "worktrees", "jobs"), { recursive: true, mode: 0o700 });
    rmSync(path, { recursive: true, force: true });
    await git([...NO_HOOKS, "worktree", "add", "--quiet", "-b", branch, path, baseCommit], { cwd: cache });
    return { name, branch, repo: options.repo, cache, path, base_commit: baseCommit };
  });
}

/**
 * Ends a job's worktree: commits the turn, pushes seat/<name> to the repository in one atomic push, and removes
 * the worktree and its local branch. `push: false` (a turn that failed) removes without pushing.
 */
export async function finishJobWorktree(
  job: JobWorktree,
  turn: { promptId: string; prompt: string },
  options: { push: boolean },
): Promise<JobWorktreeResult> {
  try {
    const { head } = await commitTurn({ path: job.path, branch: job.branch }, turn);
    const diffstat = (await git(["diff", "--stat", job.base_commit, head], { cwd: job.path })).stdout.trimEnd();
    if (options.push)
      await git(["push", "--atomic", "--quiet", "origin", `refs/heads/${job.branch}:refs/heads/${job.branch}`], {
        cwd: job.path,
      });
    return { branch: job.branch, commit: head, base_commit: job.base_commit, diffstat, pushed: options.push };
  } finally {
    await serial(job.cache, async () => {
      await spawnGit(["worktree", "remove", "--force", "--force", job.path], { cwd: job.cache });
      await spawnGit(["branch", "--quiet", "-D", job.branch], { cwd: job.cache });
    });
  }
}
