/*
 * Seat proof: binding the original TUI and proving the leader it created, from the kernel.
 * Owns: bindTui (pane pid → birth, exe, cwd, uid, tty), reproving it, proving the leader named by the
 *   lock file (and later by get_leader_info) as the TUI's own child holding our private socket,
 *   waiting for active_sessions.json evidence, and the observed-exit test used by release.
 * Does not own: reading kernel facts (identity/: every read goes through platformIdentitySource()) or the pane (mux/).
 * Invariant: only "match" authorizes; unknown refuses like mismatch (IDENTITY_UNKNOWN vs IDENTITY_MISMATCH).
 *   active_sessions.json is readiness evidence next to kernel proof, never authority on its own.
 * Spec: ADR 0224 ("Bind the original TUI PID ..."); grok-wire.md §12.1, §14; docs/seat-protocol.md#proof
 */
import { readFile, realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { SeatError } from "../errors.js";
import {
  check,
  checkSeal,
  combineChecks,
  findActiveSession,
  lockPathFor,
  platformIdentitySource,
  proveLeader,
  readActiveSessions,
  reproveIdentity,
  sealLeader,
  socketFileBefore,
  type ActiveSessionEvidence,
  type IdentityCheck,
  type IdentityResult,
  type LeaderProof,
  type LeaderSeal,
  type ProcessIdentity,
} from "../identity/index.js";
import type { PaneDescriptor } from "../mux/index.js";

/** Reads a process through the platform's identity source: null = no such process, undefined = could not tell. */
async function readIdentity(pid: number): Promise<ProcessIdentity | null | undefined> {
  try {
    return await platformIdentitySource().readIdentity(pid);
  } catch {
    return undefined;
  }
}

/** The original TUI as bound at hire time. */
export interface TuiProof {
  pid: number;
  birth: string;
  birthResolution: string;
  exe: string;
  cwd: string;
  uid: number;
  /** The pane's terminal (tmux tty path, Herdr terminal_id). */
  tty: string | null;
  pane: PaneDescriptor;
}

/** The leader as proven: pid, bound birth, and what was compared. */
export interface LeaderBinding {
  pid: number;
  birth: string;
  exe: string;
  cwd: string;
  uid: number;
  socketPath: string;
  socketDir: string;
  socketInode: number | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => resolve(path));
}

function refuseResult(result: IdentityResult, subject: string, context: Record<string, unknown>): SeatError {
  const code = result.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN";
  const reasons = result.checks.filter((c) => c.verdict !== "match").map((c) => c.reason);
  return new SeatError(
    code,
    `${subject} is not proven (${result.verdict}): ${reasons.join("; ")}. The seat refuses control; release it and hire a fresh one.`,
    {
      context: { ...context, verdict: result.verdict, reasons },
    },
  );
}

/** Throws IDENTITY_MISMATCH / IDENTITY_UNKNOWN unless `result` is a match. */
export function assertProven(result: IdentityResult, subject: string, context: Record<string, unknown> = {}): void {
  if (result.verdict !== "match") throw refuseResult(result, subject, context);
}

/** How long bindTui waits for a wrapper (e.g. `env`) in the pane to exec the grok binary. */
export const TUI_EXEC_WAIT_MS = 5_000;

/**
 * Reads the pane's process until it runs the expected executable: a wrapper (`env -i -- … grok`) keeps
 * its pid and start time across exec, so while the birth is unchanged and the exe is still another one
 * the exec has not happened yet. Returns the last reading (the caller judges it).
 */
async function readAfterExec(pid: number, exe: string, waitMs: number): Promise<ProcessIdentity | null | undefined> {
  const deadline = Date.now() + waitMs;
  const first = await readIdentity(pid);
  let current = first;
  while (current && first && current.exe !== exe && current.birth === first.birth && Date.now() < deadline) {
    await sleep(25);
    current = await readIdentity(pid);
  }
  return current && first && current.birth !== first.birth ? null : current;
}

/**
 * Binds the TUI running in `pane`: its pid must be the pane's, its executable the grok binary we
 * launched (waiting up to `execWaitMs` for a wrapper to exec it), its cwd the seat's cwd and its uid
 * ours. Throws when any of these is not a match.
 */
export async function bindTui(
  pane: PaneDescriptor,
  expected: { exe: string; cwd: string; uid: number; execWaitMs?: number },
): Promise<TuiProof> {
  const exe = await canonical(expected.exe);
  const cwd = await canonical(expected.cwd);
  const observed = await readAfterExec(pane.pid, exe, expected.execWaitMs ?? TUI_EXEC_WAIT_MS);
  const checks: IdentityCheck[] = observed
    ? [
        check(
          "exe",
          observed.exe === exe ? "match" : observed.exe === null ? "unknown" : "mismatch",
          `exe: ${observed.exe ?? "unreadable"} (expected ${exe})`,
        ),
        check(
          "cwd",
          observed.cwd === cwd ? "match" : observed.cwd === null ? "unknown" : "mismatch",
          `cwd: ${observed.cwd ?? "unreadable"} (expected ${cwd})`,
        ),
        check(
          "uid",
          observed.uid === null ? "unknown" : observed.uid.real === expected.uid ? "match" : "mismatch",
          `uid: ${observed.uid?.real ?? "unreadable"} (expected ${expected.uid})`,
        ),
      ]
    : observed === null
      ? [
          check(
            "process",
            "mismatch",
            `process: the pane's pid ${pane.pid} does not exist (or was replaced while binding)`,
          ),
        ]
      : [check("process", "unknown", `process: pid ${pane.pid} could not be read`)];
  if (observed && pane.backend === "tmux" && pane.terminal) {
    // The TUI's stdin is the pane's pty; a different terminal means another program.
    checks.push(
      check(
        "tty",
        observed.tty === pane.terminal ? "match" : observed.tty === null ? "unknown" : "mismatch",
        `tty: ${observed.tty ?? "unreadable"} (pane ${pane.terminal})`,
      ),
    );
  }
  assertProven(combineChecks(checks), `The TUI in pane ${pane.paneId} (pid ${pane.pid})`, { pane });
  return {
    pid: pane.pid,
    birth: observed!.birth,
    birthResolution: observed!.birthResolution,
    exe,
    cwd,
    uid: expected.uid,
    tty: pane.backend === "tmux" ? (observed!.tty ?? pane.terminal ?? null) : (pane.terminal ?? null),
    pane,
  };
}

/** Compares the bound TUI with what the kernel says now (pid, birth, exe, cwd, uid and, for tmux, tty). */
export async function reproveTui(tui: TuiProof): Promise<IdentityResult> {
  return reproveIdentity(
    {
      pid: tui.pid,
      birth: tui.birth,
      exe: tui.exe,
      cwd: tui.cwd,
      uid: tui.uid,
      ...(tui.pane.backend === "tmux" && tui.tty ? { tty: tui.tty } : {}),
    },
    platformIdentitySource(),
  );
}

/** Reads the pid the lock beside the socket names; null when absent or not a pid. */
export async function readLockPid(socketPath: string): Promise<number | null> {
  try {
    const m = /^\s*(\d+)\s*$/.exec(await readFile(lockPathFor(socketPath), "utf8"));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Inputs of proveSeatLeader. */
export interface ProveSeatLeaderInput {
  pid: number;
  tuiPid: number;
  exe: string;
  cwd: string;
  uid: number;
  socketPath: string;
  socketDir: string;
  /** Null on the first proof (birth is bound from it), the bound birth afterwards. */
  birth: string | null;
  /** Require the leader to be the TUI's child (true at hire: "leaders this controller created"). */
  requireChildOfTui: boolean;
  /**
   * The listening socket inode recorded at hire: the leader must hold exactly this one. Undefined = not
   * compared (first proof, or a respawned leader); null = recorded as unknown, which never authorizes.
   */
  socketInode?: number | null;
}

/**
 * Proves the leader: lock pid, kernel birth/exe/uid/cwd, the listening socket inode in its fd table,
 * the socket file (no symlink, our uid) in a 0700 directory we own and, at hire, that the TUI spawned it.
 */
export async function proveSeatLeader(
  input: ProveSeatLeaderInput,
): Promise<{ proof: LeaderProof; result: IdentityResult }> {
  const proof = await proveLeader({
    pid: input.pid,
    socketPath: input.socketPath,
    socketDir: input.socketDir,
    expected: { exe: input.exe, cwd: input.cwd, uid: input.uid, birth: input.birth },
  });
  const checks = [...proof.checks];
  // grok's leader runs in the TUI's session (its sid is the TUI's pid, verified on 1.0.41); unlike the
  // parent, this survives the TUI's exit, so it binds a leader to its original TUI even after reparenting.
  const sid = proof.observed?.sid;
  // Where the platform reports no session id (macOS), only the parent check binds it: at hire that suffices,
  // after the TUI's exit the binding is unknown and never authorizes.
  if (proof.observed && (sid !== null && sid !== undefined ? true : !input.requireChildOfTui)) {
    checks.push(
      sid === null || sid === undefined
        ? check("session", "unknown", `session: the session id of pid ${input.pid} is not reported on this platform`)
        : check(
            "session",
            sid === input.tuiPid ? "match" : "mismatch",
            `session: pid ${input.pid} is in session ${sid}, the original TUI is ${input.tuiPid}`,
          ),
    );
  }
  if (input.socketInode !== undefined && proof.observed) {
    checks.push(
      input.socketInode === null
        ? check("socket-inode", "unknown", "socket-inode: no listening socket inode was recorded for this leader")
        : check(
            "socket-inode",
            proof.socketInode === input.socketInode ? "match" : "mismatch",
            `socket-inode: the socket at ${input.socketPath} is inode ${proof.socketInode ?? "unknown"}, the proven leader held ${input.socketInode}`,
          ),
    );
  }
  if (input.requireChildOfTui) {
    const ppid = proof.observed?.ppid;
    checks.push(
      ppid === undefined
        ? check("parent", "unknown", `parent: the parent of pid ${input.pid} could not be read`)
        : check(
            "parent",
            ppid === input.tuiPid ? "match" : "mismatch",
            `parent: pid ${input.pid} has parent ${ppid}, the original TUI is ${input.tuiPid}`,
          ),
    );
  }
  return { proof, result: combineChecks(checks) };
}

/** A seal and the binding it was proven for: it speaks only for that exact binding. */
export interface DispatchSeal {
  key: string;
  facts: LeaderSeal;
}

/** A re-proof of a bound leader: the verdict, and the seal that lets the next one be quick (null: none). */
export interface DispatchProof {
  result: IdentityResult;
  seal: DispatchSeal | null;
  /** "seal" when the sealed facts all still held; "full" when the full proof ran. */
  path: "seal" | "full";
}

/**
 * Re-proves a bound leader before a dispatch. With a seal from an earlier full proof, a few synchronous reads
 * of the leader's own /proc entries, its lock and its socket file decide a match (identity/seal.ts); anything
 * else — no seal, a changed fact, another platform — runs the full proof (proveSeatLeader, no parent check)
 * and, on a match, seals it for next time. Only a match authorizes, exactly as before.
 */
export async function reproveForDispatch(
  leader: LeaderBinding,
  tuiPid: number,
  seal: DispatchSeal | null,
  socketInode: number | null | undefined,
): Promise<DispatchProof> {
  // A seal speaks only for the binding (and TUI, and recorded inode) whose full proof made it.
  const key = JSON.stringify([
    leader.pid,
    leader.birth,
    leader.exe,
    leader.cwd,
    leader.uid,
    leader.socketPath,
    leader.socketDir,
    tuiPid,
    socketInode ?? null,
  ]);
  if (seal && seal.key === key && checkSeal(seal.facts)) {
    const facts = seal.facts;
    return {
      result: combineChecks([
        check(
          "seal",
          "match",
          `seal: pid ${leader.pid} (birth ${leader.birth}) still holds socket inode ${facts.socketInode} on fd ${facts.socketFd}; lock, exe, cwd, uid, socket file and directory unchanged`,
        ),
      ]),
      seal,
      path: "seal",
    };
  }
  const before = socketFileBefore(leader.socketPath, leader.uid);
  const { proof, result } = await proveSeatLeader({
    ...leader,
    tuiPid,
    birth: leader.birth,
    requireChildOfTui: false,
    ...(socketInode !== undefined ? { socketInode } : {}),
  });
  const observed = proof.observed;
  const facts =
    result.verdict === "match" &&
    observed &&
    observed.sid === tuiPid &&
    observed.exe &&
    observed.cwd &&
    proof.socketInode !== null
      ? sealLeader(
          {
            pid: leader.pid,
            birth: leader.birth,
            sid: tuiPid,
            exe: observed.exe,
            cwd: observed.cwd,
            uid: leader.uid,
            lockPath: lockPathFor(leader.socketPath),
            socketPath: leader.socketPath,
            socketDir: leader.socketDir,
            socketInode: proof.socketInode,
          },
          before,
        )
      : null;
  return { result, seal: facts ? { key, facts } : null, path: "full" };
}

/** Proves the leader or throws, returning what to bind. */
export async function bindLeader(input: ProveSeatLeaderInput): Promise<LeaderBinding> {
  const { proof, result } = await proveSeatLeader(input);
  assertProven(result, `The leader pid ${input.pid} on ${input.socketPath}`, {
    socketPath: input.socketPath,
    pid: input.pid,
  });
  const observed = proof.observed as ProcessIdentity;
  return {
    pid: input.pid,
    birth: observed.birth,
    exe: await canonical(input.exe),
    cwd: await canonical(input.cwd),
    uid: input.uid,
    socketPath: input.socketPath,
    socketDir: input.socketDir,
    socketInode: proof.socketInode,
  };
}

/**
 * Waits until $GROK_HOME/active_sessions.json names the TUI's session, pid and cwd (match), returning
 * the evidence; a mismatch returns at once, and time running out returns the last unknown.
 */
/**
 * The entries whose process still exists (or cannot be read), and always `ours`: a TUI killed without its clean-up
 * (SIGKILL, a reboot) leaves its entry behind, and a restored seat's resumed session must not be refused for the
 * dead process that once served it.
 */
async function withoutDeadEntries<T extends { pid: number }>(entries: T[], ours: number): Promise<T[]> {
  const kept: T[] = [];
  for (const entry of entries) {
    if (entry.pid === ours) {
      kept.push(entry);
      continue;
    }
    const identity = await readIdentity(entry.pid);
    if (identity === null || identity?.state === "Z") continue;
    kept.push(entry);
  }
  return kept;
}

export async function waitForActiveSession(
  grokHome: string,
  expected: { sessionId: string; pid: number; cwd: string },
  timeoutMs: number,
): Promise<ActiveSessionEvidence> {
  const deadline = Date.now() + timeoutMs;
  let last: ActiveSessionEvidence | null = null;
  for (;;) {
    try {
      last = findActiveSession(await withoutDeadEntries(await readActiveSessions(grokHome), expected.pid), expected);
    } catch (error) {
      last = { ...check("active-session", "unknown", `active-session: ${(error as Error).message}`), entry: null };
    }
    if (last.verdict !== "unknown" || Date.now() >= deadline) return last;
    await sleep(200);
  }
}

/**
 * The original process's exit as the platform's identity source shows it: "exited" when the pid is gone,
 * a zombie, or now names a process with another birth; "running" when it still matches; "unknown" otherwise.
 */
export async function observeExit(bound: { pid: number; birth: string }): Promise<"exited" | "running" | "unknown"> {
  const current = await readIdentity(bound.pid);
  if (current === undefined) return "unknown";
  if (current === null) return "exited";
  if (current.birth !== bound.birth) return "exited";
  if (current.state === "Z") return "exited";
  return "running";
}

/** Who serves `socketPath` now: the pid its lock names and whether that pid holds the listening socket. */
export interface SocketHolder {
  pid: number | null;
  holds: "match" | "mismatch" | "unknown";
  inode: number | null;
  reason: string;
}

/** Reads the lock beside `socketPath` and asks the platform's source whether that pid holds the socket. */
export async function socketHolder(socketPath: string): Promise<SocketHolder> {
  const pid = await readLockPid(socketPath);
  if (pid === null)
    return { pid: null, holds: "unknown", inode: null, reason: `the lock beside ${socketPath} names no pid` };
  try {
    const held = await platformIdentitySource().checkSocketHolder(pid, socketPath);
    return { pid, holds: held.check.verdict, inode: held.inode, reason: held.check.reason };
  } catch (error) {
    return { pid, holds: "unknown", inode: null, reason: `socket-holder: ${(error as Error).message}` };
  }
}

/**
 * True only when nothing can be serving `socketPath`: no listening socket is bound at the path and the pid
 * the lock names (if any) no longer runs. A listener bound elsewhere in the directory (e.g. behind a symlink)
 * keeps its lock pid alive, so its directory is never removed under it. Unknown is false.
 */
export async function nothingServes(socketPath: string): Promise<boolean> {
  const lockPid = await readLockPid(socketPath);
  const listening = await platformIdentitySource()
    .checkSocketHolder(lockPid ?? 0, socketPath)
    .catch(() => null);
  if (listening === null || listening.check.verdict !== "mismatch" || listening.inode !== null) return false;
  if (lockPid === null) return true;
  const current = await readIdentity(lockPid);
  return current === null || current?.state === "Z";
}

/** Polls observeExit until "exited" or the timeout; returns the last observation. */
export async function waitForExitObserved(
  bound: { pid: number; birth: string },
  timeoutMs: number,
): Promise<"exited" | "running" | "unknown"> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const seen = await observeExit(bound);
    if (seen === "exited" || Date.now() >= deadline) return seen;
    await sleep(100);
  }
}
