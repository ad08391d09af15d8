/*
 * Leader proof: is the process the leader reports really the one serving our private socket?
 * Owns: proveLeader (lock pid, kernel facts, socket ownership, socket file and directory) and
 *   compareIdentity / reproveIdentity (a bound process vs what the kernel says now).
 * Does not own: reading kernel facts (an IdentitySource: source.ts, linux.ts, macos-source.ts), deciding
 *   what to do with a verdict (seat/).
 * Invariant: every check is three-state; one mismatch is a mismatch, and unknown never authorizes; a source
 *   that cannot say (rejects) is a "process" unknown, never a missing process.
 * Spec: ADR 0224 ("Separately verify the leader's native reported PID ..."); grok-wire.md §12.1, §14
 */
import { lstat, readFile, realpath } from "node:fs/promises";
import { privateDirProblem } from "../internal/private-dir.js";
import { dirname, extname, resolve } from "node:path";
import type { ProcessIdentity } from "./linux.js";
import { platformIdentitySource, type IdentitySource } from "./source.js";
import { check, combineChecks, compareField, type IdentityCheck, type IdentityResult } from "./verdict.js";

/** The lock file grok keeps beside its socket: the socket path with its extension replaced by `.lock`. */
export function lockPathFor(socketPath: string): string {
  const ext = extname(socketPath);
  return `${ext ? socketPath.slice(0, -ext.length) : socketPath}.lock`;
}

/** What proveLeader needs: the reported pid, what we expect of it, and where its socket lives. */
export interface ProveLeaderInput {
  /** The leader pid as reported (get_leader_info.pid). */
  pid: number;
  /** `birth` null/absent means "not bound yet": it is reported in `observed` for the caller to bind. */
  expected: { exe: string; cwd: string; uid: number; birth?: string | null };
  /** The socket path exactly as passed to `grok --leader-socket`. */
  socketPath: string;
  /** The private directory we created for the socket (must be 0700 and ours). */
  socketDir: string;
  /** Defaults to lockPathFor(socketPath). */
  lockPath?: string;
}

/** The proof: a verdict, reasons, each check, and what the kernel reported. */
export interface LeaderProof extends IdentityResult {
  observed: ProcessIdentity | null;
  socketInode: number | null;
}

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

async function checkLock(lockPath: string, pid: number): Promise<IdentityCheck> {
  let text: string;
  try {
    text = await readFile(lockPath, "utf8");
  } catch (err) {
    return check(
      "lock",
      "unknown",
      `lock: ${lockPath} could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  const lockPid = /^\s*(\d+)\s*$/.exec(text)?.[1];
  if (lockPid === undefined) return check("lock", "unknown", `lock: ${lockPath} does not hold a pid`);
  return Number(lockPid) === pid
    ? check("lock", "match", `lock: ${lockPath} names pid ${pid}`)
    : check("lock", "mismatch", `lock: ${lockPath} names pid ${lockPid}, the leader reported pid ${pid}`);
}

async function checkSocketFile(socketPath: string, socketDir: string, uid: number): Promise<IdentityCheck[]> {
  const checks: IdentityCheck[] = [];
  if (resolve(dirname(socketPath)) !== resolve(socketDir)) {
    checks.push(check("socket-dir", "mismatch", `socket-dir: ${socketPath} is not directly inside ${socketDir}`));
  }
  try {
    const file = await lstat(socketPath);
    if (file.isSymbolicLink()) checks.push(check("socket-file", "mismatch", `socket-file: ${socketPath} is a symlink`));
    else if (!file.isSocket())
      checks.push(check("socket-file", "mismatch", `socket-file: ${socketPath} is not a socket`));
    else if (file.uid !== uid)
      checks.push(
        check("socket-file", "mismatch", `socket-file: ${socketPath} is owned by uid ${file.uid}, not ${uid}`),
      );
    else checks.push(check("socket-file", "match", `socket-file: ${socketPath} is a socket owned by uid ${uid}`));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    checks.push(
      check(
        "socket-file",
        code === "ENOENT" ? "mismatch" : "unknown",
        `socket-file: ${socketPath} cannot be examined (${code ?? "error"})`,
      ),
    );
  }
  try {
    await lstat(socketDir); // an unreadable directory is unknown, a missing one a mismatch (below)
    const problem = privateDirProblem(socketDir, uid);
    checks.push(
      problem
        ? check("socket-dir", "mismatch", `socket-dir: ${problem}`)
        : check("socket-dir", "match", `socket-dir: ${socketDir} is 0700 and owned by uid ${uid}`),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    checks.push(
      check(
        "socket-dir",
        code === "ENOENT" ? "mismatch" : "unknown",
        `socket-dir: ${socketDir} cannot be examined (${code ?? "error"})`,
      ),
    );
  }
  return checks;
}

/** Reads `pid` through `source`; a rejection becomes an unknown "process" check instead of an identity. */
async function readThrough(
  source: IdentitySource,
  pid: number,
): Promise<{ observed: ProcessIdentity | null; failed: IdentityCheck | null }> {
  try {
    return { observed: await source.readIdentity(pid), failed: null };
  } catch (err) {
    return {
      observed: null,
      failed: check(
        "process",
        "unknown",
        `process: pid ${pid} could not be read on ${source.platform} (${(err as Error).message})`,
      ),
    };
  }
}

/**
 * Proves that `pid` is the leader we expect and serves the private socket: lock pid, kernel
 * birth/exe/uid/cwd, listening-socket ownership, and a non-symlink socket in a 0700 directory we own.
 * `source` defaults to the running platform's (Linux /proc, macOS ps/lsof); tests inject one.
 */
export async function proveLeader(
  input: ProveLeaderInput,
  source: IdentitySource = platformIdentitySource(),
): Promise<LeaderProof> {
  const { pid, expected, socketPath, socketDir } = input;
  const checks: IdentityCheck[] = [await checkLock(input.lockPath ?? lockPathFor(socketPath), pid)];
  const { observed, failed } = await readThrough(source, pid);
  let socketInode: number | null = null;
  if (failed) {
    checks.push(failed);
  } else if (!observed) {
    checks.push(check("process", "mismatch", `process: no process with pid ${pid} exists`));
  } else {
    if (expected.birth !== undefined && expected.birth !== null)
      checks.push(compareField("birth", expected.birth, observed.birth));
    checks.push(compareField("exe", await canonical(expected.exe), observed.exe));
    checks.push(compareField("cwd", await canonical(expected.cwd), observed.cwd));
    checks.push(compareField("uid", expected.uid, observed.uid?.real));
    checks.push(compareField("euid", expected.uid, observed.uid?.effective));
    const holder = await source.checkSocketHolder(pid, socketPath);
    checks.push(holder.check);
    socketInode = holder.inode;
  }
  checks.push(...(await checkSocketFile(socketPath, socketDir, expected.uid)));
  return { ...combineChecks(checks), observed, socketInode };
}

/** What was bound for a process (e.g. the TUI at hire time); absent fields are not compared. */
export interface BoundIdentity {
  pid: number;
  birth: string;
  exe?: string | null;
  cwd?: string | null;
  tty?: string | null;
  uid?: number | null;
}

/**
 * Compares a bound process with what the kernel reports now (`current` from an IdentitySource).
 * A gone process, or a reused pid with another birth, is a mismatch. Platform-neutral and pure.
 */
export function compareIdentity(bound: BoundIdentity, current: ProcessIdentity | null): IdentityResult {
  if (!current) return combineChecks([check("process", "mismatch", `process: pid ${bound.pid} no longer exists`)]);
  const checks = [compareField("pid", bound.pid, current.pid), compareField("birth", bound.birth, current.birth)];
  if (bound.exe != null) checks.push(compareField("exe", bound.exe, current.exe));
  if (bound.cwd != null) checks.push(compareField("cwd", bound.cwd, current.cwd));
  if (bound.tty != null) checks.push(compareField("tty", bound.tty, current.tty));
  if (bound.uid != null) checks.push(compareField("uid", bound.uid, current.uid?.real));
  return combineChecks(checks);
}

/** Reads `bound.pid` through `source` (default: this platform's) and compares; a failed read is unknown. */
export async function reproveIdentity(
  bound: BoundIdentity,
  source: IdentitySource = platformIdentitySource(),
): Promise<IdentityResult> {
  const { observed, failed } = await readThrough(source, bound.pid);
  return failed ? combineChecks([failed]) : compareIdentity(bound, observed);
}
