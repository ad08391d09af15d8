/*
 * Reaper process: `node reaper-main.js <agent pid> <start ticks|-> <NAME=tag|-> [scan ms]`, started by reaper.ts beside
 *   every agent. It ends the agent's whole tree when the process that owns the agent is gone, however it died.
 * Owns: watching its stdin (a pipe whose only writer is the owner: EOF = the owner exited or was killed, SIGKILL
 *   included, or released the agent), remembering the agent's descendants between scans, and ending the tree.
 * Does not own: the orderly stop (process.ts terminate → killProcessTree) or the owner's `exit` hook
 *   (exit-reaper.ts); both still run first whenever the owner can run code.
 * Why a process: nothing runs inside a SIGKILLed process, so the watcher must live outside it. Node cannot call
 *   prctl(PR_SET_CHILD_SUBREAPER) without native code, and a delegated cgroup is not available in general, so the
 *   reaper holds the agent's process group (the agent is spawned detached, its own group leader), knows the
 *   agent's environment tag (GROK_SEAT_REAPER_TAG=<random>, which every descendant inherits unless it clears its
 *   environment) and, every `scan ms` (default 250), walks /proc/<pid>/task/<tid>/children from the agent and
 *   every descendant it knows. A group alone is not enough: grok starts each shell command with setsid (its own
 *   session and group), and when the owner is SIGKILLed grok dies at once (PDEATHSIG), so its shells are
 *   reparented away before anyone can walk from grok to them.
 * Covered, at reap time: every member of the agent's group and every process carrying the tag (one /proc scan
 *   each), every descendant that was alive at some scan, and all descendants of all of those — wherever they
 *   were reparented (setsid'd shells, MCP servers in their own group, daemons that double-forked).
 * Not covered: a process that clears its environment, leaves the group and whose every ancestor in the tree
 *   exits within one scan interval; only a cgroup or a subreaper would see it.
 * Invariant: a pid is signalled only while its /proc start time matches the one remembered (killProcessTree), so
 *   a recycled pid is never hit; the reaper takes no environment (no secret reaches it) and exits as soon as the
 *   tree is empty, after a reap, or on SIGTERM/SIGHUP/SIGINT (which reap first).
 */
import { childPids, isAlive, killProcessTree, processesWithEnv, readProcStat, snapshotTree, type ProcessRef } from "./process-tree.js";

const [pidArg, startArg, tagArg, scanArg] = process.argv.slice(2);
const root: ProcessRef = { pid: Number(pidArg), ...(startArg && startArg !== "-" ? { startTime: startArg } : {}) };
const tag = tagArg && tagArg !== "-" ? tagArg : undefined;
const scanMs = Number(scanArg ?? 250);
/** Descendants seen at some scan, by pid, with their start time. */
const known = new Map<number, string>();
let reaping = false;

/** Forgets the dead, then adds every descendant of the agent and of the known ones that is new. */
function scan(): void {
  for (const [pid, startTime] of known) if (!isAlive({ pid, startTime })) known.delete(pid);
  const frontier = [...(isAlive(root) ? [root.pid] : []), ...known.keys()];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    const pid = frontier.pop()!;
    const children = childPids(pid);
    if (children === undefined) {
      // No children file on this kernel: one /proc scan by ppid links instead.
      for (const ref of snapshotTree([...seen])) if (ref.pid !== root.pid && ref.startTime) known.set(ref.pid, ref.startTime);
      return;
    }
    for (const child of children) {
      if (seen.has(child)) continue;
      seen.add(child);
      const st = readProcStat(child);
      if (!st || st.state === "Z" || st.state === "X") continue;
      known.set(child, st.startTicks);
      frontier.push(child);
    }
  }
}

/** Remembers every live process carrying the agent's tag; true when it found one. */
function scanTag(): boolean {
  if (!tag) return false;
  const found = processesWithEnv(tag);
  for (const ref of found) if (ref.startTime) known.set(ref.pid, ref.startTime);
  return found.length > 0;
}

/** True while the agent's group still has a member (or the kernel will not say). */
function groupHasMembers(): boolean {
  try {
    process.kill(-root.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function reap(): Promise<never> {
  if (!reaping) {
    reaping = true;
    scan();
    scanTag();
    const alsoRoots = [...known].map(([pid, startTime]) => ({ pid, startTime }));
    await killProcessTree(root.pid, { pgid: root.pid, ...(root.startTime ? { rootStartTime: root.startTime } : {}), graceMs: 1000, alsoRoots });
    process.exit(0);
  }
  return new Promise<never>(() => undefined);
}

if (!Number.isInteger(root.pid) || root.pid <= 1 || !Number.isFinite(scanMs) || scanMs < 10) {
  process.stderr.write("usage: reaper-main.js <agent pid> <start ticks|-> <NAME=tag|-> [scan ms >= 10]\n");
  process.exit(2);
}
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) process.on(signal, () => void reap());
process.stdin.on("end", () => void reap());
process.stdin.on("error", () => void reap());
process.stdin.on("data", () => undefined);
const timer = setInterval(() => {
  if (reaping) return;
  scan();
  // The agent, everything it started and its whole group are gone: nothing is left to guard.
  if (!isAlive(root) && known.size === 0 && !groupHasMembers() && !scanTag()) process.exit(0);
}, scanMs);
scan();
void timer;
