/*
 * Exit reaper: the last line of "no orphans" when the host process ends without disposing its agents (an
 *   uncaught exception, `process.exit()` from elsewhere, a library user who forgot `dispose()`).
 * Owns: the set of live agent process groups of this process and one `exit` hook that SIGKILLs them.
 * Does not own: the orderly stop (killProcessTree, dispose); a SIGKILL of this process (nothing runs then —
 *   grok itself asks the kernel for PDEATHSIG, see grok-wire §15; other agents see their stdin close).
 * Invariant: a group is signalled only while its leader is the process we started (same kernel start time),
 *   so a recycled pid is never hit; the hook is synchronous, as `exit` handlers must be.
 */
import { readProcStat } from "./process-tree.js";

const live = new Map<number, string | undefined>();
let hooked = false;

/** Tracks an agent's process group (led by `pid`, started at `startTicks`) until `untrack`. */
export function trackAgentGroup(pid: number, startTicks: string | undefined): void {
  live.set(pid, startTicks);
  if (!hooked) {
    hooked = true;
    process.once("exit", reapAgentGroups);
  }
}

/** Forgets a group: its leader exited (its pid may be reused from now on) or it was stopped in order. */
export function untrackAgentGroup(pid: number): void {
  live.delete(pid);
}

/** SIGKILLs every tracked group whose leader is still the process we started. Synchronous. */
export function reapAgentGroups(): void {
  for (const [pgid, startTicks] of live) {
    if (startTicks === undefined || readProcStat(pgid)?.startTicks !== startTicks) continue;
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}
