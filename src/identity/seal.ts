/*
 * Leader seal (Linux): the handful of kernel facts that say a fully proven leader is still the same, read in a
 *   few synchronous /proc and lstat calls so a re-proof before every dispatch costs microseconds, not a walk.
 * Owns: sealLeader (record the facts right after a full proof matched) and checkSeal (are they all unchanged).
 * Does not own: the full proof (prove.ts, seat/proof.ts) or deciding what a broken seal means (seat/).
 * Invariant: a seal only ever authorizes an exact repeat of what a full proof saw: the lock's pid, the pid's
 *   birth, session, state, exe, cwd and uids, the listening socket inode still on the very fd that held it, the
 *   same socket file (device, inode, ctime: a rebind or swap makes a new file) and the private directory. Any
 *   change, any unreadable fact, and every platform but Linux returns false: the caller runs the full proof.
 * Spec: grok-wire.md §12.1, §14; docs/seat-protocol.md#proof
 */
import { closeSync, lstatSync, openSync, readSync, readdirSync, readlinkSync } from "node:fs";
import { privateDirProblem } from "../internal/private-dir.js";
import { parseProcStat, parseStatusUids, socketInodeOfLink } from "./proc-text.js";

/** What a quick re-proof compares: taken from a full proof that matched. */
export interface LeaderSeal {
  pid: number;
  birth: string;
  /** The session id the full proof saw (grok's leader stays in its TUI's session). */
  sid: number;
  exe: string;
  cwd: string;
  uid: number;
  lockPath: string;
  socketPath: string;
  socketDir: string;
  socketInode: number;
  /** The fd number on which the leader held the listening socket. */
  socketFd: number;
  /** The socket file's identity: a new bind (after unlink or rename) is always a new file. */
  socketFile: { dev: bigint; ino: bigint; ctimeNs: bigint };
}

/** One reusable buffer for the seal's small reads (the lock file, /proc/<pid>/stat and status: a few hundred bytes to a few KiB). */
let scratch = Buffer.allocUnsafe(16 * 1024);

/**
 * The whole text of a small file, read with open/read/close into the reused buffer: readFileSync's fstat, options
 * and fresh buffer cost more than the read itself, and a re-proof reads four such files before every dispatch (P4b).
 * Reads to end of file, growing the buffer if ever needed; throws as readFileSync would (the caller's catch decides).
 */
function readSmallText(path: string): string {
  const fd = openSync(path, "r");
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        const grown = Buffer.allocUnsafe(scratch.length * 2);
        scratch.copy(grown, 0, 0, length);
        scratch = grown;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) return scratch.toString("utf8", 0, length);
      length += read;
    }
  } finally {
    closeSync(fd);
  }
}

/** The socket file's device, inode and ctime, or null when it is not a plain socket (symlink, missing, other). */
function socketFileOf(path: string, uid: number): LeaderSeal["socketFile"] | null {
  try {
    const stat = lstatSync(path, { bigint: true });
    if (!stat.isSocket() || stat.isSymbolicLink() || stat.uid !== BigInt(uid)) return null;
    return { dev: stat.dev, ino: stat.ino, ctimeNs: stat.ctimeNs };
  } catch {
    return null;
  }
}

function sameFile(a: LeaderSeal["socketFile"] | null, b: LeaderSeal["socketFile"]): boolean {
  return a !== null && a.dev === b.dev && a.ino === b.ino && a.ctimeNs === b.ctimeNs;
}

/** The fd number on which `pid` holds socket `inode`, or null (not held, or the fd table is unreadable). */
export function socketFdOf(pid: number, inode: number): number | null {
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (socketInodeOfLink(readlinkSync(`/proc/${pid}/fd/${fd}`)) === inode) return Number(fd);
      } catch {
        /* closed since readdir */
      }
    }
  } catch {
    /* no such process, or not ours to read */
  }
  return null;
}

/** What sealLeader needs: the pid and facts a full proof just matched, and where its socket lives. */
export interface SealInput {
  pid: number;
  birth: string;
  sid: number;
  exe: string;
  cwd: string;
  uid: number;
  lockPath: string;
  socketPath: string;
  socketDir: string;
  socketInode: number;
}

/**
 * Seals a leader a full proof has just matched. `fileBefore` is the socket file's identity read before that
 * proof began: the seal is made only when the same file sat at the path before and after the proof (so the file
 * is the one whose listener the proof saw), and the socket is found on one of the leader's fds. Null otherwise,
 * and on every platform but Linux.
 */
export function sealLeader(
  input: SealInput,
  fileBefore: LeaderSeal["socketFile"] | null,
  platform: NodeJS.Platform = process.platform,
): LeaderSeal | null {
  if (platform !== "linux" || fileBefore === null) return null;
  const fileAfter = socketFileOf(input.socketPath, input.uid);
  if (!sameFile(fileAfter, fileBefore)) return null;
  const socketFd = socketFdOf(input.pid, input.socketInode);
  if (socketFd === null) return null;
  const seal: LeaderSeal = { ...input, socketFd, socketFile: fileBefore };
  return checkSeal(seal) ? seal : null;
}

/** The socket file identity to pass to sealLeader, read before the full proof starts. */
export function socketFileBefore(socketPath: string, uid: number): LeaderSeal["socketFile"] | null {
  return process.platform === "linux" ? socketFileOf(socketPath, uid) : null;
}

/**
 * True only when every sealed fact still holds: lock pid, birth, session, not a zombie, exe, cwd, real and
 * effective uid, the socket inode on the sealed fd, the same socket file, and the 0700 directory we own.
 * False means "not proven quickly", never "mismatch": the caller runs the full proof for a verdict.
 */
export function checkSeal(seal: LeaderSeal): boolean {
  try {
    if (readSmallText(seal.lockPath).trim() !== String(seal.pid)) return false;
    const base = `/proc/${seal.pid}`;
    const stat = parseProcStat(readSmallText(`${base}/stat`));
    if (!stat || stat.pid !== seal.pid || stat.startTicks !== seal.birth || stat.sid !== seal.sid || stat.state === "Z")
      return false;
    if (readlinkSync(`${base}/fd/${seal.socketFd}`) !== `socket:[${seal.socketInode}]`) return false;
    if (readlinkSync(`${base}/exe`) !== seal.exe || readlinkSync(`${base}/cwd`) !== seal.cwd) return false;
    const uids = parseStatusUids(readSmallText(`${base}/status`));
    if (!uids || uids.real !== seal.uid || uids.effective !== seal.uid) return false;
    if (!sameFile(socketFileOf(seal.socketPath, seal.uid), seal.socketFile)) return false;
    // Read last: a birth read first and unchanged here means the pid was not reused in between.
    const again = parseProcStat(readSmallText(`${base}/stat`));
    if (!again || again.startTicks !== seal.birth) return false;
    return privateDirProblem(seal.socketDir, seal.uid) === null;
  } catch {
    return false;
  }
}
