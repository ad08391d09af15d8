/*
 * A turn's worktree: the lifecycle every door that runs a supervised turn shares — `seat run --worktree`, `seat
 *   run -s`, the MCP `run` tool's `worktree` argument and a library caller: plan it (changing nothing), take it
 *   (make or reuse, then lock) before the agent starts, commit the turn after the agent is gone, release the lock.
 * Owns: planTurnWorktree (its take()), existingTurnWorktree, finishTurnWorktree.
 * Does not own: git (git.ts), creating (create.ts), locking (lock.ts), printing any of it (each door says it in
 *   its own words: cli/worktree-run.ts, mcp/tools/run.ts).
 * Invariant: planning changes nothing and raises the name and repository errors (WORKTREE_NAME_INVALID,
 *   WORKTREE_NOT_A_REPO, WORKTREE_GIT_MISSING) before any agent starts; a named session takes its worktree only
 *   once it holds the session's lease (its beforeStart); the lock is held by this process until release() or exit.
 */
import { createWorktree } from "./create.js";
import { commitTurn, type TurnCommit } from "./commit.js";
import { lockWorktree, type WorktreeLock } from "./lock.js";
import { assertWorktreeName, defaultWorktreeName } from "../names/index.js";
import { listRecords, worktreePath, type WorktreeRecord } from "./records.js";
import { resolveRepository } from "./repo.js";

/** What a turn asks of worktrees. */
export interface TurnWorktreeOptions {
  /** The seat home (worktrees live under <home>/worktrees). */
  home: string;
  /** The user's directory: inside the repository the worktree is made from. */
  cwd: string;
  /**
   * Work in a seat worktree: `name` (absent or "" = the session's name, else a fresh `run-…` name), branched from
   * `base` (default HEAD); `reuse` takes an existing `seat/<name>` branch instead of refusing it.
   */
  worktree?: { name?: string; base?: string; reuse?: boolean };
  /** A named session: owns its worktree, and without `worktree` keeps the one it made on an earlier turn. */
  session?: string;
}

/** The worktree a turn works in, locked for this process until release(). */
export interface TurnWorktree {
  record: WorktreeRecord;
  lock: WorktreeLock;
}

/** Where a turn will work, decided before anything starts; take() makes (or reuses) the worktree and locks it. */
export interface TurnWorktreePlan {
  /** The worktree's directory: the agent's cwd (a named session is still named from the caller's directory). */
  path: string;
  /** Makes or reuses the worktree and locks it for this process (WORKTREE_BUSY while another seat works in it). */
  take(): Promise<TurnWorktree>;
}

/**
 * Plans the worktree a turn works in, changing nothing: with `worktree`, the named (or default) worktree of the
 * repository containing `cwd`; for a named session without it, the worktree that session made on an earlier turn
 * (so a named session keeps its tree, whichever door opens it); else none (undefined).
 */
export async function planTurnWorktree(options: TurnWorktreeOptions): Promise<TurnWorktreePlan | undefined> {
  const { home, cwd, session } = options;
  const owner = session === undefined ? "run" : `session:${session}`;
  if (options.worktree === undefined) {
    if (session === undefined) return undefined;
    const record = await findSessionWorktree(home, session, cwd);
    return record ? { path: record.path, take: async () => locked(home, record, owner) } : undefined;
  }
  const { base, reuse } = options.worktree;
  const asked = options.worktree.name;
  const name = assertWorktreeName(asked !== undefined && asked !== "" ? asked : (session ?? defaultWorktreeName()));
  const repo = await resolveRepository(cwd);
  return {
    path: worktreePath(home, repo.key, name),
    take: async () =>
      locked(
        home,
        (await createWorktree({ home, cwd, owner, reuse: reuse === true, name, ...(base ? { base } : {}) })).record,
        owner,
      ),
  };
}

/** A worktree the caller already made (`seat compare` makes every agent's first), to be locked by take(). */
export function existingTurnWorktree(home: string, record: WorktreeRecord, owner: string): TurnWorktreePlan {
  return { path: record.path, take: async () => locked(home, record, owner) };
}

/**
 * Commits what the turn changed on the worktree's branch (nothing changed: no commit). Call it after the agent is
 * disposed, so no agent process writes while the turn is committed; release the lock after it.
 */
export function finishTurnWorktree(
  worktree: TurnWorktree,
  turn: { promptId: string; prompt: string },
): Promise<TurnCommit> {
  return commitTurn(worktree.record, turn);
}

/**
 * Locks `record` for this process until release() or the process exits. The exit hook goes with release(): a
 * long-lived process (the MCP server) that runs many worktree turns must not pile up 'exit' listeners.
 */
function locked(home: string, record: WorktreeRecord, owner: string): TurnWorktree {
  const lock = lockWorktree(home, record, owner);
  const atExit = () => lock.release();
  process.once("exit", atExit);
  return {
    record,
    lock: {
      release() {
        process.removeListener("exit", atExit);
        lock.release();
      },
    },
  };
}

async function findSessionWorktree(home: string, session: string, cwd: string): Promise<WorktreeRecord | undefined> {
  let key: string;
  try {
    key = (await resolveRepository(cwd)).key;
  } catch {
    return undefined; // not a repository (or no git): a named session without worktrees, as before
  }
  return listRecords(home, key).find((r) => r.owner === `session:${session}`);
}
