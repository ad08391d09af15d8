/*
 * Worktree lock: two seats never work in one worktree at once.
 * Owns: <home>/worktrees/<repo key>/locks/<name>.lock (created exclusively, holding pid, process start time and
 *   holder), taking over a lock only from a holder proven dead, and releasing it.
 * Does not own: the named session's lease (sessions/), which already keeps one turn per session.
 * Invariant: a lock is taken over only when its holder is proven gone (no /proc entry, a zombie, a different
 *   start time for that pid, or ESRCH); when that cannot be told, the lock stands (unknown never authorizes).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import { processAlive } from "../internal/process-alive.js";
import { parseProcStat } from "../internal/proc-stat.js";
import { repoDir, type WorktreeRecord } from "./records.js";

/** Who holds a worktree's lock. */
export interface WorktreeHolder {
  pid: number;
  /** /proc/<pid>/stat field 22 when the platform has /proc, so a reused pid is not mistaken for the holder. */
  start_ticks: string | null;
  /** What holds it: `run`, `session:<name>`, `discard`, `merge`. */
  holder: string;
  since: string;
}

/** A held lock; release() is idempotent and removes the file only while it is still ours. */
export interface WorktreeLock {
  release(): void;
}

function lockPath(home: string, record: WorktreeRecord): string {
  return join(repoDir(home, record.repo_key), "locks", `${record.name}.lock`);
}

/** This process's start time (clock ticks since boot), or null where /proc does not tell. */
function ownStartTicks(): string | null {
  try {
    return parseProcStat(readFileSync("/proc/self/stat", "utf8"))?.startTicks ?? null;
  } catch {
    return null;
  }
}

/** A holder is gone once its pid is not running (a zombie included) or now names a process with another start. */
function isGone(holder: WorktreeHolder): boolean {
  return !processAlive(holder.pid, holder.start_ticks);
}

/** The live holder of a worktree's lock, or undefined when it is free (or its holder is proven gone). */
export function worktreeHolder(home: string, record: WorktreeRecord): WorktreeHolder | undefined {
  let holder: WorktreeHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(home, record), "utf8")) as WorktreeHolder;
  } catch {
    return undefined;
  }
  return isGone(holder) ? undefined : holder;
}

/**
 * The holder of a lock left behind by a process that died while it held it (a crash mid-turn), or undefined when
 * there is no lock or its holder is alive (or cannot be told gone).
 */
export function deadHolder(home: string, record: WorktreeRecord): WorktreeHolder | undefined {
  let holder: WorktreeHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(home, record), "utf8")) as WorktreeHolder;
  } catch {
    return undefined;
  }
  return isGone(holder) ? holder : undefined;
}

/** WORKTREE_BUSY (retryable) naming the live holder of `record`'s lock. */
export function worktreeBusy(record: Pick<WorktreeRecord, "name">, current: WorktreeHolder): SeatError {
  return new SeatError(
    "WORKTREE_BUSY",
    `The seat worktree "${record.name}" is in use by pid ${current.pid} (${current.holder}, since ${current.since}); two seats never share a worktree. Wait for it, or use another name.`,
    {
      context: { name: record.name, pid: current.pid, holder: current.holder },
      retryable: true,
    },
  );
}

/** Takes the worktree's lock for this process; throws WORKTREE_BUSY (retryable) while a live process holds it. */
export function lockWorktree(home: string, record: WorktreeRecord, holder: string): WorktreeLock {
  const path = lockPath(home, record);
  mkdirSync(join(repoDir(home, record.repo_key), "locks"), { recursive: true, mode: 0o700 });
  const mine: WorktreeHolder = {
    pid: process.pid,
    start_ticks: ownStartTicks(),
    holder,
    since: new Date().toISOString(),
  };
  const text = `${JSON.stringify(mine)}\n`;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      writeFileSync(path, text, { flag: "wx", mode: 0o600 });
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, "utf8") === text) rmSync(path, { force: true });
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const current = worktreeHolder(home, record);
      if (current) throw worktreeBusy(record, current);
      rmSync(path, { force: true }); // its holder is proven gone
    }
  }
  throw new SeatError(
    "WORKTREE_BUSY",
    `The seat worktree "${record.name}" was locked again while a stale lock was cleared; retry.`,
    { context: { name: record.name }, retryable: true },
  );
}
