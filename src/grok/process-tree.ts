/*
 * Process tree: find and stop a process, its process group and every descendant, without hitting reused pids.
 * Owns: reading /proc/<pid>/stat (ppid, process group, state, start time), the descendant snapshot, TERM → grace → KILL.
 * Does not own: spawning (process.ts) or proving who holds a socket (identity/).
 * Invariant: a pid is only signalled individually when its /proc start time still equals the snapshot's,
 *   so a recycled pid is never killed. Off Linux (no /proc) only the root and its group are signalled.
 */
import { readdirSync, readFileSync } from "node:fs";
import { processAlive } from "../internal/process-alive.js";
import { parseProcStat, type ProcStat } from "../internal/proc-stat.js";

/** A process we intend to stop: pid plus its start time (undefined where /proc is unavailable). */
export interface ProcessRef {
  pid: number;
  startTime?: string;
}

/** Reads /proc/<pid>/stat; undefined when the process is gone or /proc is unavailable. */
export function readProcStat(pid: number): ProcStat | undefined {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, "utf8")) ?? undefined;
  } catch {
    return undefined;
  }
}

/** True on systems where /proc exposes per-process stat files (Linux). */
export function hasProcFs(): boolean {
  return readProcStat(process.pid) !== undefined;
}

function listProcs(): ProcStat[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcStat[] = [];
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    const st = readProcStat(Number(n));
    if (st) out.push(st);
  }
  return out;
}

let childrenFile: boolean | undefined;

/** Whether this kernel offers /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN); asked once. */
function hasChildrenFile(): boolean {
  if (childrenFile === undefined) {
    try {
      readFileSync(`/proc/${process.pid}/task/${process.pid}/children`);
      childrenFile = true;
    } catch {
      childrenFile = false;
    }
  }
  return childrenFile;
}

/**
 * Direct children of `pid` from /proc/<pid>/task/<tid>/children, over every thread (a child belongs to the
 * thread that forked it): a few small reads instead of a /proc scan. Undefined where the kernel does not offer
 * the file (not Linux, or no CONFIG_PROC_CHILDREN); [] once the process is gone.
 */
export function childPids(pid: number): number[] | undefined {
  if (!hasChildrenFile()) return undefined;
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
    } catch {
      // the thread ended while we looked
    }
    for (const word of text.trim().split(/\s+/)) if (/^\d+$/.test(word)) out.push(Number(word));
  }
  return out;
}

/**
 * Every live process (but this one) whose environment holds `entry` (`NAME=value`) exactly: a tag an agent's
 * descendants inherit wherever they were reparented. One /proc scan; [] without /proc. Only processes of this
 * user can be read, which are the only ones this process could signal anyway.
 */
export function processesWithEnv(entry: string): ProcessRef[] {
  const needle = `\0${entry}\0`;
  const out: ProcessRef[] = [];
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const n of names) {
    if (!/^\d+$/.test(n) || Number(n) === process.pid) continue;
    try {
      if (!`\0${readFileSync(`/proc/${n}/environ`, "latin1")}`.includes(needle)) continue;
    } catch {
      continue; // gone, or not ours to read
    }
    const st = readProcStat(Number(n));
    if (st && st.state !== "Z" && st.state !== "X") out.push({ pid: st.pid, startTime: st.startTicks });
  }
  return out;
}

/** True when `ref` is still the same running process (zombies and recycled pids count as gone). */
export function isAlive(ref: ProcessRef): boolean {
  if (ref.startTime === undefined) return processAlive(ref.pid);
  const st = readProcStat(ref.pid);
  return st !== undefined && st.startTicks === ref.startTime && st.state !== "Z" && st.state !== "X";
}

/**
 * Snapshots `roots`, all their descendants (by ppid links) and every member of `pgid` if given; Linux only,
 * elsewhere returns the roots without start times.
 */
export function snapshotTree(roots: readonly number[], pgid?: number): ProcessRef[] {
  const procs = listProcs();
  if (procs.length === 0) return roots.map((pid) => ({ pid }));
  const children = new Map<number, ProcStat[]>();
  const byPid = new Map<number, ProcStat>();
  for (const p of procs) {
    byPid.set(p.pid, p);
    const list = children.get(p.ppid) ?? [];
    list.push(p);
    children.set(p.ppid, list);
  }
  const seen = new Map<number, ProcessRef>();
  const queue: ProcStat[] = [];
  for (const r of roots) {
    const st = byPid.get(r);
    if (st) queue.push(st);
  }
  if (pgid !== undefined) for (const p of procs) if (p.pgid === pgid) queue.push(p);
  while (queue.length > 0) {
    const p = queue.shift()!;
    if (seen.has(p.pid) || p.state === "Z" || p.state === "X") continue;
    seen.set(p.pid, { pid: p.pid, startTime: p.startTicks });
    queue.push(...(children.get(p.pid) ?? []));
  }
  return [...seen.values()];
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // ESRCH: already gone. EPERM: not ours; it will show up as a survivor.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The first look after a signal comes this soon; each later one waits twice as long, up to MAX_POLL_MS. */
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 50;

async function waitUntilGone(refs: readonly ProcessRef[], ms: number): Promise<ProcessRef[]> {
  const deadline = Date.now() + ms;
  let alive = refs.filter(isAlive);
  // An agent that honours SIGTERM is usually gone within a few ms: a fixed 50 ms first look made every dispose
  // (and so every `seat run`) wait for it (P9). Backing off keeps a slow exit to ~1 /proc read per 50 ms.
  let pause = FIRST_POLL_MS;
  while (alive.length > 0 && Date.now() < deadline) {
    await sleep(Math.min(pause, Math.max(1, deadline - Date.now())));
    pause = Math.min(pause * 2, MAX_POLL_MS);
    alive = alive.filter(isAlive);
  }
  return alive;
}

/** Options for killProcessTree; `graceMs` (default 2000) is how long SIGTERM gets before SIGKILL. */
export interface KillTreeOptions {
  graceMs?: number;
  /** Process group to signal as a whole; default: `rootPid` when the root leads its own group. */
  pgid?: number;
  /** The root's start time from spawn; if given and different, the root pid is treated as recycled. */
  rootStartTime?: string;
  /**
   * More processes to stop with their descendants: ones that left the tree (a setsid'd helper whose parent died
   * and was reparented away). Each is used only while its start time still matches (reaper-main.ts).
   */
  alsoRoots?: readonly ProcessRef[];
}

/**
 * Stops `rootPid`, its group and its descendants: snapshot, SIGTERM, wait up to `graceMs`, SIGKILL whatever
 * (re-snapshotted) is still alive, then re-scan. Resolves with the pids still alive afterwards (normally []).
 */
export async function killProcessTree(
  rootPid: number,
  options: KillTreeOptions = {},
): Promise<{ survivors: number[] }> {
  const graceMs = options.graceMs ?? 2000;
  const procFs = hasProcFs();
  const rootStat = readProcStat(rootPid);
  const rootIsOurs = options.rootStartTime === undefined || rootStat?.startTicks === options.rootStartTime;
  const pgid = options.pgid ?? (rootStat && rootIsOurs && rootStat.pgid === rootPid ? rootPid : undefined);
  const roots = [...(rootIsOurs ? [rootPid] : []), ...(options.alsoRoots ?? []).filter(isAlive).map((r) => r.pid)];
  const refs = snapshotTree(roots, pgid);
  // Signal the group only while a verified member is in it (so an emptied, recycled group id is never hit);
  // without /proc we cannot verify and fall back to trusting the caller's group.
  const groupLive = (set: readonly ProcessRef[]) =>
    pgid !== undefined && (!procFs || set.some((r) => isAlive(r) && readProcStat(r.pid)?.pgid === pgid));
  if (groupLive(refs)) signal(-pgid!, "SIGTERM");
  // Descendants outside the group (setsid'd helpers, MCP servers in their own group) get the same polite TERM.
  for (const r of refs) if (isAlive(r)) signal(r.pid, "SIGTERM");
  let alive = await waitUntilGone(refs, graceMs);
  // Anything forked during the grace period is a descendant of a survivor (or in the group): take it too.
  const known = new Set(alive.map((r) => r.pid));
  const fresh =
    alive.length > 0 || pgid !== undefined
      ? snapshotTree(
          alive.map((r) => r.pid),
          pgid,
        )
      : [];
  alive = [...alive, ...fresh.filter((r) => !known.has(r.pid))];
  if (groupLive(alive)) signal(-pgid!, "SIGKILL");
  for (const r of alive) if (isAlive(r)) signal(r.pid, "SIGKILL");
  const survivors = await waitUntilGone(alive, 2000);
  return { survivors: survivors.map((r) => r.pid) };
}
