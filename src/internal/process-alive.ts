/*
 * Is a process still running? One answer for every record that names a holder by pid (worktree locks, approval
 *   runs, the board's address, an agent's descendants).
 * Owns: the rule that a zombie is gone — it has exited and only waits for its parent to reap it, which under a
 *   pid 1 that never reaps (a container without an init) is never — and that a pid whose start time differs from
 *   the remembered one is another process (a recycled pid).
 * Does not own: what a caller does with a gone holder.
 * Invariant: true only while /proc shows the pid neither a zombie nor dead (and, given, with the same start
 *   ticks); where /proc cannot tell (macOS, an entry it will not let us read) kill(pid, 0) decides, and EPERM
 *   there means it exists under another user.
 * Spec: proc(5) (field 3 state, field 22 starttime), kill(2).
 */
import { readFileSync } from "node:fs";
import { parseProcStat } from "./proc-stat.js";

/** Whether this machine has /proc with per-process stat files; read once. */
let procWorks: boolean | undefined;
function hasProc(): boolean {
  if (procWorks === undefined) {
    try {
      readFileSync("/proc/self/stat");
      procWorks = true;
    } catch {
      procWorks = false;
    }
  }
  return procWorks;
}

/**
 * True while `pid` runs: not a zombie, not gone, and — when `startTicks` is given and /proc tells — the same process
 * that started at those clock ticks since boot.
 */
export function processAlive(pid: number, startTicks?: string | null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (hasProc()) {
    let text: string | undefined;
    try {
      text = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // No entry: gone. (A /proc mounted hidepid=2 hides other users' processes this way too; every record asked
      // about here names a process of our own user, which hidepid never hides from us.)
      if (code === "ENOENT" || code === "ESRCH") return false;
      // EACCES (a /proc mounted with hidepid): the entry exists but is not ours to read; ask kill(2) below.
    }
    const stat = text === undefined ? null : parseProcStat(text);
    if (stat !== null) {
      if (stat.state === "Z" || stat.state === "X") return false;
      return startTicks === undefined || startTicks === null || stat.startTicks === startTicks;
    }
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
