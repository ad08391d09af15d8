/*
 * Control socket: how `seat cancel -s NAME` in another shell reaches the process running the turn.
 * Owns: the holder's small unix socket (one JSON line in, one out) in a private 0700 directory, where it
 *   lives (<seat home>/sessions/ctl-<hex>.sock when that fits sun_path, else a fresh private gs-ctl-* directory
 *   under TMPDIR, as the visible seat's leader socket), removing a dead holder's socket, and the client that
 *   sends `cancel` to it.
 * Does not own: deciding whether the holder is who the lease says (cancel.ts proves that first) or what
 *   cancelling does (the HeadlessSession).
 * Invariant: the socket lives in a 0700 directory owned by us (so only our uid can connect) and is removed
 *   when the lease is released, or by the next holder once this one is proven dead; its path is never longer
 *   than MAX_SOCKET_PATH_BYTES (the kernel would bind a silently truncated name); its operations are
 *   cancel, which never sends a prompt, and state, which only reads the session's attention snapshot.
 */
import { randomBytes } from "node:crypto";
import { createConnection, createServer, type Server } from "node:net";
import { chmodSync, lstatSync, mkdtempSync, rmSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { isPrivateDir, ownUid, privateDirProblem } from "../internal/private-dir.js";
// The two light modules, not seat/'s front door: `seat ps` reaches this file and must not load the seat stack.
import { MAX_SOCKET_PATH_BYTES } from "../internal/socket-path.js";
import { ensurePrivateDir } from "../seat/seat-home.js";

/** Where a control socket is bound: in `dir` itself (the seat home's sessions/), or a fresh directory under it. */
export interface ControlPlace {
  dir: string;
  /** True: bind `s` inside a fresh private `gs-ctl-*` directory made under `dir` (a short runtime directory). */
  runtime: boolean;
}

const RUNTIME_PREFIX = "gs-ctl-";

const fits = (path: string) => Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;

/**
 * Chooses where the control socket of a session in seat home `home` goes: `<home>/sessions/` when the socket
 * path fits sun_path, else a fresh private directory under `runtimeRoot` (default TMPDIR). Throws
 * SESSION_SOCKET_PATH_TOO_LONG when neither fits; call it before starting anything.
 */
export function planControlSocket(home: string, runtimeRoot: string = tmpdir()): ControlPlace {
  const homeDir = join(home, "sessions");
  if (fits(join(homeDir, `ctl-${"0".repeat(12)}.sock`))) return { dir: homeDir, runtime: false };
  const root = resolve(runtimeRoot);
  if (fits(join(root, `${RUNTIME_PREFIX}XXXXXX`, "s"))) return { dir: root, runtime: true };
  throw new SeatError(
    "SESSION_SOCKET_PATH_TOO_LONG",
    `The named session's control socket does not fit the ${MAX_SOCKET_PATH_BYTES}-byte socket path limit, neither in ${homeDir} nor under ${root}; choose a shorter GROK_SEAT_HOME or TMPDIR. Nothing was started.`,
    { context: { seatHome: home, runtimeRoot: root, maxBytes: MAX_SOCKET_PATH_BYTES } },
  );
}

/**
 * Removes the control socket a holder proven dead left at `path` (only a socket file owned by us), and its
 * gs-ctl-* runtime directory when that is private, ours and now empty. Never throws.
 */
export function removeDeadControlSocket(path: string): void {
  try {
    const file = lstatSync(path);
    if (file.isSocket() && file.uid === ownUid()) rmSync(path, { force: true });
  } catch {
    // already gone
  }
  const dir = dirname(path);
  if (basename(dir).startsWith(RUNTIME_PREFIX) && isPrivateDir(dir)) {
    try {
      rmdirSync(dir); // non-recursive: a directory with anything else in it is left alone
    } catch {
      // not empty, or gone
    }
  }
}

/** Makes the directory the socket is bound in and returns the socket path and how to clean up after it. */
function prepare(place: ControlPlace): { path: string; cleanup(): void } {
  if (!place.runtime) {
    ensurePrivateDir(place.dir);
    const path = join(place.dir, `ctl-${randomBytes(6).toString("hex")}.sock`);
    return { path, cleanup: () => rmSync(path, { force: true }) };
  }
  const dir = mkdtempSync(join(place.dir, RUNTIME_PREFIX));
  chmodSync(dir, 0o700);
  const path = join(dir, "s");
  const cleanup = () => {
    rmSync(path, { force: true });
    try {
      rmdirSync(dir);
    } catch {
      // not empty or gone: left alone
    }
  };
  const problem = privateDirProblem(dir);
  if (problem) {
    cleanup();
    throw new SeatError("SEAT_REFUSED", `The control socket directory ${dir} is not private (${problem}). Choose another TMPDIR.`, { context: { dir } });
  }
  return { path, cleanup };
}

/** A listening control socket. */
export interface ControlServer {
  path: string;
  close(): Promise<void>;
}

/**
 * Listens on a fresh socket at `place` (a directory, created 0700, or a planned place); `onCancel` runs for
 * each cancel request. SESSION_SOCKET_PATH_TOO_LONG when the path would not fit sun_path.
 */
export async function startControlServer(place: ControlPlace | string, onCancel: () => Promise<{ promptId?: string }>, onState?: () => object): Promise<ControlServer> {
  const planned = typeof place === "string" ? { dir: place, runtime: false } : place;
  const probe = planned.runtime ? join(planned.dir, `${RUNTIME_PREFIX}XXXXXX`, "s") : join(planned.dir, `ctl-${"0".repeat(12)}.sock`);
  if (!fits(probe)) {
    throw new SeatError("SESSION_SOCKET_PATH_TOO_LONG", `The control socket path ${probe} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; choose a shorter GROK_SEAT_HOME or TMPDIR.`, { context: { path: probe, maxBytes: MAX_SOCKET_PATH_BYTES } });
  }
  const { path, cleanup } = prepare(planned);
  const server: Server = createServer((socket) => {
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (!buffer.includes("\n") || buffer.length > 4096) return;
      let op: unknown;
      try {
        op = (JSON.parse(buffer.slice(0, buffer.indexOf("\n"))) as { op?: unknown }).op;
      } catch {
        op = undefined;
      }
      // `state` only reads (for `seat ps`): the session's attention snapshot, nothing else.
      if (op === "state" && onState) {
        socket.end(`${JSON.stringify({ ok: true, ...onState() })}\n`);
        return;
      }
      if (op !== "cancel") {
        socket.end(`${JSON.stringify({ ok: false, error: "unknown operation" })}\n`);
        return;
      }
      onCancel().then(
        (r) => socket.end(`${JSON.stringify({ ok: true, ...r })}\n`),
        (error: unknown) => socket.end(`${JSON.stringify({ ok: false, error: messageOf(error) })}\n`),
      );
    });
  });
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(path, () => done());
    });
  } catch (error) {
    cleanup();
    throw error;
  }
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        cleanup();
      }),
  };
}

/** Sends `cancel` to the control socket at `path`; resolves the holder's answer. */
export function requestCancel(path: string, timeoutMs = 10_000): Promise<{ ok: boolean; promptId?: string; error?: string }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new SeatError("SESSION_BUSY", `The session's holder did not answer the cancel request within ${timeoutMs} ms.`, { context: { socket: path } }));
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ op: "cancel" })}\n`));
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(answer.trim()) as { ok: boolean; promptId?: string; error?: string });
      } catch {
        resolve({ ok: false, error: "no answer" });
      }
    });
  });
}

/**
 * Asks the control socket at `path` for the session's attention snapshot (`seat ps`); resolves null when the
 * holder does not answer within `timeoutMs` or does not know the operation. Never rejects.
 */
export function requestState(path: string, timeoutMs = 1_000): Promise<Record<string, unknown> | null> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify({ op: "state" })}\n`));
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        const parsed = JSON.parse(answer.trim()) as Record<string, unknown>;
        resolve(parsed.ok === true ? parsed : null);
      } catch {
        resolve(null);
      }
    });
  });
}
