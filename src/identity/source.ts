/*
 * Identity sources: one small interface over "what does this platform say about a pid and a socket".
 * Owns: IdentitySource, linuxSource (the /proc readers in linux.ts) and the per-platform default.
 * Does not own: reading /proc (linux.ts), running ps/lsof (macos-source.ts), verdicts over facts (prove.ts).
 * Invariant: readIdentity resolves null only when the process provably does not exist and rejects when
 *   the platform could not say; callers turn a rejection into unknown, never into a match.
 * Spec: grok-wire.md §14 (identity proof sources); docs/seat-protocol.md#proof
 */
import { pidHoldsSocket, readProcessIdentity, socketListenerInodes, type ProcessIdentity } from "./linux.js";
import { macosSource } from "./macos-source.js";
import { check, type IdentityCheck, type Verdict } from "./verdict.js";

/** The socket-holder check and, where the platform has one, the listening socket's inode. */
export interface SocketHolderCheck {
  check: IdentityCheck;
  inode: number | null;
}

/** Where kernel facts come from; proveLeader and reproveIdentity take one, defaulting to the platform's. */
export interface IdentitySource {
  /** "linux" reads /proc; "darwin" runs ps and lsof. */
  readonly platform: "linux" | "darwin";
  /** The identity of `pid`: null when no such process exists; rejects when it could not be determined. */
  readIdentity(pid: number): Promise<ProcessIdentity | null>;
  /** Whether `pid` holds the listening unix socket bound at `socketPath`, as a check named "socket-holder". */
  checkSocketHolder(pid: number, socketPath: string): Promise<SocketHolderCheck>;
}

/**
 * The Linux socket-holder check over two readers: the listening socket inodes bound at a path (/proc/net/unix)
 * and whether a pid holds an inode (its fd table). linuxSource reads both afresh on every check; a snapshot
 * source (snapshot-source.ts) reads each once per listing.
 */
export function linuxSocketHolderCheck(
  listenerInodes: (socketPath: string) => Promise<number[]>,
  holds: (pid: number, inode: number) => Promise<Verdict>,
): (pid: number, socketPath: string) => Promise<SocketHolderCheck> {
  return async (pid, socketPath) => {
    const inodes = await listenerInodes(socketPath).catch(() => null);
    if (inodes === null)
      return {
        check: check("socket-holder", "unknown", "socket-holder: /proc/net/unix could not be read"),
        inode: null,
      };
    if (inodes.length === 0)
      return {
        check: check("socket-holder", "mismatch", `socket-holder: nothing listens on ${socketPath}`),
        inode: null,
      };
    if (inodes.length > 1) {
      return {
        check: check(
          "socket-holder",
          "unknown",
          `socket-holder: ${inodes.length} listening sockets are bound at ${socketPath} (inodes ${inodes.join(", ")}); cannot tell which is the file`,
        ),
        inode: null,
      };
    }
    const inode = inodes[0]!;
    const verdict = await holds(pid, inode);
    const reason = {
      match: `socket-holder: pid ${pid} holds listening socket inode ${inode}`,
      mismatch: `socket-holder: pid ${pid} does not hold listening socket inode ${inode} at ${socketPath}`,
      unknown: `socket-holder: the fd table of pid ${pid} could not be read`,
    }[verdict];
    return { check: check("socket-holder", verdict, reason), inode };
  };
}

/** Linux: /proc/<pid>/{stat,status,exe,cwd,fd} and /proc/net/unix, with clock-tick births. */
export const linuxSource: IdentitySource = {
  platform: "linux",
  readIdentity: readProcessIdentity,
  checkSocketHolder: linuxSocketHolderCheck(socketListenerInodes, pidHoldsSocket),
};

let darwinDefault: IdentitySource | null = null;

/** The source for the platform we run on: macosSource() on darwin, linuxSource everywhere else. */
export function platformIdentitySource(platform: NodeJS.Platform = process.platform): IdentitySource {
  if (platform !== "darwin") return linuxSource;
  darwinDefault ??= macosSource();
  return darwinDefault;
}
