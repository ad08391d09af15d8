/*
 * Linux process identity: who a pid really is, read from the kernel through /proc.
 * Owns: reading /proc/<pid>/{stat,status,exe,cwd,fd}, /proc/net/unix and /proc/stat btime.
 * Does not own: parsing rules (proc-text.ts) or verdicts over several facts (prove.ts).
 * Invariant: an unreadable fact is null (→ unknown), never a default; birth is /proc/<pid>/stat
 *   field 22 in clock ticks since boot (10 ms at the usual USER_HZ=100), not microseconds.
 * Spec: grok-wire.md §14 (identity proof sources); proc(5)
 */
import { readFile, readlink, readdir } from "node:fs/promises";
import {
  parseBootTime,
  parseNetUnix,
  parseProcStat,
  parseStatusUids,
  socketInodeOfLink,
  type UnixSocketRow,
} from "./proc-text.js";
import type { Verdict } from "./verdict.js";

/** How precise a recorded birth is: Linux gives clock ticks, macOS `ps lstart` gives seconds. */
export type BirthResolution = "clock-ticks" | "seconds";

/** What the kernel says about one process. Fields that could not be read are null (macOS: see macos-source.ts). */
export interface ProcessIdentity {
  pid: number;
  ppid: number;
  /** Null where the platform's source does not report it (macOS). */
  pgid: number | null;
  /** Null where the platform's source does not report it (macOS). */
  sid: number | null;
  comm: string;
  /** Start time as an opaque decimal string; compare for equality only, within one boot. */
  birth: string;
  birthResolution: BirthResolution;
  /** Approximate wall-clock start (ms since epoch) from boot time + birth, assuming USER_HZ=100. */
  startedAtMs: number | null;
  /** Canonical executable path (readlink /proc/<pid>/exe; a replaced binary reads "... (deleted)"). */
  exe: string | null;
  cwd: string | null;
  uid: { real: number; effective: number } | null;
  /** Controlling terminal number (stat field 7); 0 means none; null on macOS, which reports `tty` only. */
  ttyNr: number | null;
  /** The terminal device on fd 0, when fd 0 is a /dev terminal and readable. */
  tty: string | null;
  /** Scheduler state letter (stat field 3, "Z" = zombie); absent where the source does not report it (macOS). */
  state?: string | null;
}

/** Linux exposes /proc tick counts in USER_HZ, which is 100 on every mainstream architecture. */
const USER_HZ = 100;

async function orNull<T>(work: Promise<T>): Promise<T | null> {
  try {
    return await work;
  } catch {
    return null;
  }
}

let bootTimeRead: number | undefined;

/** The machine's boot time (s since the epoch, /proc/stat btime): read once, since it never changes; null when unreadable. */
async function machineBootTime(): Promise<number | null> {
  if (bootTimeRead !== undefined) return bootTimeRead;
  const text = await orNull(readFile("/proc/stat", "utf8"));
  const parsed = text === null ? null : parseBootTime(text);
  if (parsed !== null) bootTimeRead = parsed;
  return parsed;
}

/** Reads the identity of `pid` from /proc; resolves null when no such process exists. */
export async function readProcessIdentity(pid: number): Promise<ProcessIdentity | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const base = `/proc/${pid}`;
  const statText = await orNull(readFile(`${base}/stat`, "utf8"));
  const stat = statText === null ? null : parseProcStat(statText);
  if (!stat || stat.pid !== pid) return null;
  const [exe, cwd, statusText, fd0, bootTime] = await Promise.all([
    orNull(readlink(`${base}/exe`)),
    orNull(readlink(`${base}/cwd`)),
    orNull(readFile(`${base}/status`, "utf8")),
    orNull(readlink(`${base}/fd/0`)),
    machineBootTime(),
  ]);
  return {
    pid,
    ppid: stat.ppid,
    pgid: stat.pgid,
    sid: stat.sid,
    comm: stat.comm,
    birth: stat.startTicks,
    birthResolution: "clock-ticks",
    startedAtMs: bootTime === null ? null : bootTime * 1000 + (Number(stat.startTicks) * 1000) / USER_HZ,
    exe,
    cwd,
    uid: statusText === null ? null : parseStatusUids(statusText),
    ttyNr: stat.ttyNr,
    tty: fd0 !== null && /^\/dev\/(pts\/\d+|tty\w*)$/.test(fd0) ? fd0 : null,
    state: stat.state,
  };
}

/** The inodes of the listening sockets among `rows` (parsed /proc/net/unix) bound at `socketPath`. */
export function listenerInodesAt(rows: readonly UnixSocketRow[], socketPath: string): number[] {
  return rows.filter((row) => row.listening && row.path === socketPath).map((row) => row.inode);
}

/**
 * Inodes of listening unix sockets bound at `socketPath` (as the string it was bound with), from
 * /proc/net/unix of our network namespace. This is the socket inode, not the socket file's fs inode.
 */
export async function socketListenerInodes(socketPath: string): Promise<number[]> {
  return listenerInodesAt(parseNetUnix(await readFile("/proc/net/unix", "utf8")), socketPath);
}

/** Whether `pid` has an fd on socket `inode`: unknown when its fd table cannot be read. */
export async function pidHoldsSocket(pid: number, inode: number): Promise<Verdict> {
  return tableHoldsSocket(await fdSocketTable(pid), inode);
}

/** The socket inodes on `pid`'s fds: "gone" when it has no fd table (no such process), "unknown" when unreadable. */
export interface FdSocketTable {
  inodes: ReadonlySet<number>;
  /** Some fd's link could not be read (other than one closed meanwhile): a missing inode is then unknown, not absent. */
  unreadable: boolean;
}

/** Reads the whole fd table of `pid` once: every socket inode it holds (for many checks against one pid). */
export async function fdSocketTable(pid: number): Promise<FdSocketTable | "gone" | "unknown"> {
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "ENOENT" ? "gone" : "unknown";
  }
  const inodes = new Set<number>();
  let unreadable = false;
  for (const fd of fds) {
    try {
      const inode = socketInodeOfLink(await readlink(`/proc/${pid}/fd/${fd}`));
      if (inode !== null) inodes.add(inode);
    } catch (err) {
      // ENOENT: the fd was closed since readdir (the readdir handle itself, for our own pid).
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") unreadable = true;
    }
  }
  return { inodes, unreadable };
}

/** The verdict of "does this fd table hold socket `inode`", as pidHoldsSocket gives it. */
export function tableHoldsSocket(table: FdSocketTable | "gone" | "unknown", inode: number): Verdict {
  if (table === "gone") return "mismatch";
  if (table === "unknown") return "unknown";
  if (table.inodes.has(inode)) return "match";
  return table.unreadable ? "unknown" : "mismatch";
}

/** Every pid whose fd table we can read that holds socket `inode`. */
export async function socketHolderPids(inode: number): Promise<number[]> {
  const pids = (await readdir("/proc")).filter((name) => /^\d+$/.test(name)).map(Number);
  const holders: number[] = [];
  for (const pid of pids) if ((await pidHoldsSocket(pid, inode)) === "match") holders.push(pid);
  return holders;
}
