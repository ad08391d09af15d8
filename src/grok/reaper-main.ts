/*
 * Reaper process: `node reaper-main.js [scan ms]`, started by reaper.ts once per owner process (the first time it
 *   spawns an agent). It ends each guarded agent's whole tree when the owner is gone, however the owner died.
 * Owns: reading the owner's lines on stdin — `guard <pid> <start ticks|-> <NAME=tag|->` and `release <pid>` — and
 *   EOF (the pipe's only writer is the owner: EOF = it exited or was killed, SIGKILL included); remembering each
 *   agent's descendants between scans; ending trees (on `release`: that agent's; on EOF: all, then exit).
 * Does not own: the orderly stop (process.ts terminate → killProcessTree) or the owner's `exit` hook
 *   (exit-reaper.ts); both still run first whenever the owner can run code.
 * Why a process: nothing runs inside a SIGKILLed process, so the watcher must live outside it. Node cannot call
 *   prctl(PR_SET_CHILD_SUBREAPER) without native code, and a delegated cgroup is not available in general, so the
 *   reaper holds each agent's process group (the agent is spawned detached, its own group leader), knows the
 *   agent's environment tag (GROK_SEAT_REAPER_TAG=<random>, which every descendant inherits unless it clears its
 *   environment) and, every `scan ms` (default 250), walks /proc/<pid>/task/<tid>/children from the agent and
 *   every descendant it knows. A group alone is not enough: grok starts each shell command with setsid (its own
 *   session and group), and when the owner is SIGKILLed grok dies at once (PDEATHSIG), so its shells are
 *   reparented away before anyone can walk from grok to them. One reaper per owner, not per agent: a worker or an
 *   MCP server running many agents pays one node process (~6 MiB private memory), not one per agent.
 * Covered, at reap time: every member of the agent's group and every process carrying its tag (one /proc scan
 *   each), every descendant that was alive at some scan, and all descendants of all of those — wherever they
 *   were reparented (setsid'd shells, MCP servers in their own group, daemons that double-forked).
 * Not covered: a process that clears its environment, leaves the group and whose every ancestor in the tree
 *   exits within one scan interval; only a cgroup or a subreaper would see it.
 * Invariant: a pid is signalled only while its /proc start time matches the one remembered (killProcessTree), so
 *   a recycled pid is never hit; the reaper takes no environment (no secret reaches it); SIGTERM/SIGHUP/SIGINT
 *   reap like EOF.
 */
import { createInterface } from "node:readline";
import {
  childPids,
  isAlive,
  killProcessTree,
  processesWithEnv,
  readProcStat,
  snapshotTree,
  type ProcessRef,
} from "./process-tree.js";

/** One guarded agent: its root, its tag (`NAME=value`) and the descendants seen at some scan. */
interface Guarded {
  root: ProcessRef;
  tag?: string;
  known: Map<number, string>;
}

const scanMs = Number(process.argv[2] ?? 250);
const agents = new Map<number, Guarded>();
let ending = false;

/** Forgets the dead, then adds every descendant of the agent and of the known ones that is new. */
function scan(agent: Guarded): void {
  const { root, known } = agent;
  for (const [pid, startTime] of known) if (!isAlive({ pid, startTime })) known.delete(pid);
  const frontier = [...(isAlive(root) ? [root.pid] : []), ...known.keys()];
  const seen = new Set(frontier);
  while (frontier.length > 0) {
    const pid = frontier.pop()!;
    const children = childPids(pid);
    if (children === undefined) {
      // No children file on this kernel: one /proc scan by ppid links instead.
      for (const ref of snapshotTree([...seen]))
        if (ref.pid !== root.pid && ref.startTime) known.set(ref.pid, ref.startTime);
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

/** Ends one agent's tree: its group, the tagged processes, everything seen, and their descendants. */
async function reap(agent: Guarded): Promise<void> {
  scan(agent);
  if (agent.tag)
    for (const ref of processesWithEnv(agent.tag)) if (ref.startTime) agent.known.set(ref.pid, ref.startTime);
  const alsoRoots = [...agent.known].map(([pid, startTime]) => ({ pid, startTime }));
  await killProcessTree(agent.root.pid, {
    pgid: agent.root.pid,
    ...(agent.root.startTime ? { rootStartTime: agent.root.startTime } : {}),
    graceMs: 1000,
    alsoRoots,
  });
}

/** The owner is gone: end every guarded tree, then exit. */
async function reapAll(): Promise<void> {
  if (ending) return;
  ending = true;
  await Promise.all([...agents.values()].map((a) => reap(a).catch(() => undefined)));
  process.exit(0);
}

/** One line from the owner; anything malformed is ignored (the owner is this package, and the line is gone). */
function onLine(line: string): void {
  const [verb, pidWord, startWord, tagWord] = line.trim().split(" ");
  const pid = Number(pidWord);
  if (!Number.isInteger(pid) || pid <= 1) return;
  if (verb === "guard") {
    const agent: Guarded = {
      root: { pid, ...(startWord && startWord !== "-" ? { startTime: startWord } : {}) },
      known: new Map(),
      ...(tagWord && tagWord !== "-" ? { tag: tagWord } : {}),
    };
    agents.set(pid, agent);
    scan(agent);
  } else if (verb === "release") {
    const agent = agents.get(pid);
    agents.delete(pid);
    if (agent && !ending) void reap(agent).catch(() => undefined);
  }
}

if (!Number.isFinite(scanMs) || scanMs < 10) {
  process.stderr.write("usage: reaper-main.js [scan ms >= 10]\n");
  process.exit(2);
}
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"] as const) process.on(signal, () => void reapAll());
process.stdin.on("error", () => void reapAll());
const lines = createInterface({ input: process.stdin });
lines.on("line", onLine);
lines.on("close", () => void reapAll());
/** True while the agent's group still has a member (or the kernel will not say). */
function groupHasMembers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

setInterval(() => {
  if (ending) return;
  for (const [pid, agent] of agents) {
    scan(agent);
    // The agent, all it started and its group are gone, and nothing carries its tag: nothing is left to guard.
    if (!isAlive(agent.root) && agent.known.size === 0 && !groupHasMembers(pid)) {
      const tagged = agent.tag ? processesWithEnv(agent.tag) : [];
      for (const ref of tagged) if (ref.startTime) agent.known.set(ref.pid, ref.startTime);
      if (tagged.length === 0) agents.delete(pid);
    }
  }
}, scanMs);
