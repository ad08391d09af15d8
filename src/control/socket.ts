/*
 * Control socket: how `seat cancel -s NAME` in another shell reaches the process running the turn.
 * Owns: the holder's small unix socket (one JSON line in, one out) in a private 0700 directory, where it
 *   lives (<seat home>/sessions/ctl-<hex>.sock when that fits sun_path, else a fresh private gs-ctl-* directory
 *   under TMPDIR, as the visible seat's leader socket), removing a dead holder's socket, and the client that
 *   sends `cancel` to it.
 * Does not own: deciding whether the holder is who the lease says (cancel.ts proves that first) or what
 *   cancelling does (the HeadlessSession).
 * Invariant: the socket lives in a 0700 directory owned by us (so only our uid can connect) and is removed
 *   when the lease is released or the process exits by any path but SIGKILL, or by the next holder once this
 *   one is proven dead; its path is never longer
 *   than MAX_SOCKET_PATH_BYTES (the kernel would bind a silently truncated name); the operations are cancel
 *   (never sends a prompt), state (only reads: the typed answer of state.ts, checked before it is sent,
 *   for `seat ps`) and, when the
 *   holder has held approvals (approvals/), `approvals` (list them, with the holder's pid) and `answer` (one
 *   answer to one approval; a refusal carries its stable code).
 */
import { randomBytes } from "node:crypto";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { chmodSync, lstatSync, mkdtempSync, rmSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { isPrivateDir, ownUid, privateDirProblem } from "../internal/private-dir.js";
import { MAX_SOCKET_PATH_BYTES } from "../internal/socket-path.js";
import { ensurePrivateDir } from "../home/index.js";
import { controlStateProblem, type ControlState } from "./state.js";
import { controlRequestProblem, type ControlRequest } from "./messages.js";

/** Where a control socket is bound: in `dir` itself (the seat home's sessions/), or a fresh directory under it. */
export interface ControlPlace {
  dir: string;
  /** True: bind `s` inside a fresh private `gs-ctl-*` directory made under `dir` (a short runtime directory). */
  runtime: boolean;
}

const RUNTIME_PREFIX = "gs-ctl-";

const fits = (path: string) => Buffer.byteLength(path) <= MAX_SOCKET_PATH_BYTES;

/** Whose control socket is planned: a named session's (nothing starts without it) or a plain run's (it runs on). */
export type ControlOwner = "named-session" | "run";

/**
 * Chooses where the control socket of a session in seat home `home` goes: `<home>/sessions/` when the socket
 * path fits sun_path, else a fresh private directory under `runtimeRoot` (default TMPDIR). Throws
 * SESSION_SOCKET_PATH_TOO_LONG when neither fits, its message worded for `owner`; call it before starting anything.
 */
export function planControlSocket(
  home: string,
  runtimeRoot: string = tmpdir(),
  owner: ControlOwner = "named-session",
): ControlPlace {
  const homeDir = join(home, "sessions");
  if (fits(join(homeDir, `ctl-${"0".repeat(12)}.sock`))) return { dir: homeDir, runtime: false };
  const root = resolve(runtimeRoot);
  if (fits(join(root, `${RUNTIME_PREFIX}XXXXXX`, "s"))) return { dir: root, runtime: true };
  const whose = owner === "run" ? "This run's" : "The named session's";
  const outcome =
    owner === "run"
      ? "The run goes on without one: seat approve/deny/cancel and seat ps cannot reach it."
      : "Nothing was started.";
  throw new SeatError(
    "SESSION_SOCKET_PATH_TOO_LONG",
    `${whose} control socket does not fit the ${MAX_SOCKET_PATH_BYTES}-byte socket path limit, neither in ${homeDir} nor under ${root}; choose a shorter GROK_SEAT_HOME or TMPDIR. ${outcome}`,
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

/**
 * Clean-ups of this process's open control sockets, run on every way out of the process — even a process.exit()
 * that skips the holder's own close (a second Ctrl-C, a closed pipe): 'exit' listeners run synchronously, and each
 * clean-up is synchronous. One listener for all of them (a process may serve many sockets: the MCP server, a bench).
 */
const atExit = new Set<() => void>();
let exitHooked = false;

function cleanUpAtExit(cleanup: () => void): void {
  atExit.add(cleanup);
  if (exitHooked) return;
  exitHooked = true;
  process.once("exit", () => {
    for (const each of atExit) each();
  });
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
    throw new SeatError(
      "PRIVATE_DIR_REFUSED",
      `The control socket directory ${dir} is not private (${problem}). Choose another TMPDIR.`,
      { context: { dir } },
    );
  }
  return { path, cleanup };
}

/** What a control socket serves: cancel, and the holder's held approvals when it has any. */
export interface ControlHandlers {
  cancel: () => Promise<{ promptId?: string }>;
  /** Only reads: what holds the socket and its attention state (`seat ps`), built by describeControlState. */
  state?: () => ControlState;
  approvals?: {
    list(): unknown[];
    /** Throws a SeatError (APPROVAL_*) to refuse; its code travels back. */
    answer(id: string, answer: unknown): { id: string; decision: string };
  };
}

/** One control request's answer line (JSON), never throwing; a line outside the schema does nothing. */
async function serve(line: unknown, handlers: ControlHandlers): Promise<Record<string, unknown>> {
  const problem = controlRequestProblem(line);
  if (problem !== null)
    return {
      ok: false,
      code: "CONTROL_REQUEST_INVALID",
      error: `the request does not fit the control schema: ${problem}`,
    };
  const op = line as ControlRequest;
  try {
    if (op.op === "cancel") return { ok: true, ...(await handlers.cancel()) };
    if (op.op === "state" && handlers.state) {
      // Checked before it leaves: an answer that does not fit the schema is refused, never sent half-typed.
      const state = handlers.state();
      const problem = controlStateProblem(state);
      return problem === null
        ? { ok: true, ...state }
        : { ok: false, error: `state answer does not fit the control schema: ${problem}` };
    }
    if (op.op === "approvals") return { ok: true, pid: process.pid, approvals: handlers.approvals?.list() ?? [] };
    if (op.op === "answer" && handlers.approvals) return { ok: true, ...handlers.approvals.answer(op.id, op.answer) };
    if (op.op === "answer") return { ok: false, code: "APPROVAL_NOT_FOUND", error: "this run holds no approvals" };
    return { ok: false, code: "CONTROL_OP_UNSERVED", error: `this holder does not serve ${op.op}` };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      error: messageOf(error),
      ...(typeof code === "string" ? { code } : {}),
      ...((error as { context?: unknown }).context ? { context: (error as { context?: unknown }).context } : {}),
    };
  }
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
export async function startControlServer(
  place: ControlPlace | string,
  onCancel: (() => Promise<{ promptId?: string }>) | ControlHandlers,
): Promise<ControlServer> {
  const handlers: ControlHandlers = typeof onCancel === "function" ? { cancel: onCancel } : onCancel;
  const planned = typeof place === "string" ? { dir: place, runtime: false } : place;
  const probe = planned.runtime
    ? join(planned.dir, `${RUNTIME_PREFIX}XXXXXX`, "s")
    : join(planned.dir, `ctl-${"0".repeat(12)}.sock`);
  if (!fits(probe)) {
    throw new SeatError(
      "SESSION_SOCKET_PATH_TOO_LONG",
      `The control socket path ${probe} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; choose a shorter GROK_SEAT_HOME or TMPDIR.`,
      { context: { path: probe, maxBytes: MAX_SOCKET_PATH_BYTES } },
    );
  }
  const { path, cleanup } = prepare(planned);
  // Every open connection, so close() ends a peer that connected and never sent its line (server.close() alone
  // waits for each connection to end, and a turn's close would wait for it).
  const connections = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections.add(socket);
    socket.on("close", () => connections.delete(socket));
    let buffer = "";
    socket.setEncoding("utf8");
    socket.on("error", () => undefined);
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (buffer.length > 16_384) {
        socket.end(`${JSON.stringify({ ok: false, error: "request too long" })}\n`);
        return;
      }
      if (!buffer.includes("\n")) return;
      let line: unknown;
      try {
        line = JSON.parse(buffer.slice(0, buffer.indexOf("\n")));
      } catch {
        // not JSON: refused by the schema check
      }
      buffer = "";
      void serve(line, handlers).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
    });
  });
  cleanUpAtExit(cleanup);
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(path, () => done());
    });
  } catch (error) {
    atExit.delete(cleanup);
    cleanup();
    throw error;
  }
  return {
    path,
    close: () =>
      new Promise<void>((done) => {
        atExit.delete(cleanup);
        server.close(() => done());
        for (const connection of connections) connection.destroy();
        cleanup();
      }),
  };
}

/**
 * Sends one request line to the control socket at `path` and resolves its one-line answer: the JSON object, or
 * undefined when the holder closed without one. Rejects with the socket's error, or `onTimeout()` after `timeoutMs`.
 */
export function requestControl(
  path: string,
  request: ControlRequest,
  timeoutMs: number,
  onTimeout: () => Error = () => new Error(`no answer from ${path} within ${timeoutMs} ms`),
): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    let answer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(onTimeout());
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on("close", () => {
      clearTimeout(timer);
      try {
        const parsed: unknown = JSON.parse(answer.trim());
        resolve(typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined);
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** Sends `cancel` to the control socket at `path`; resolves the holder's answer. */
export async function requestCancel(
  path: string,
  timeoutMs = 10_000,
): Promise<{ ok: boolean; promptId?: string; error?: string }> {
  const timedOut = () =>
    new SeatError(
      "SESSION_CANCEL_TIMEOUT",
      `The session's holder did not answer the cancel request within ${timeoutMs} ms.`,
      { context: { socket: path } },
    );
  const answer = await requestControl(path, { op: "cancel" }, timeoutMs, timedOut);
  return (
    (answer as { ok: boolean; promptId?: string; error?: string } | undefined) ?? { ok: false, error: "no answer" }
  );
}

/**
 * Asks the control socket at `path` what holds it and its attention state (`seat ps`); resolves null when the
 * holder does not answer within `timeoutMs`, does not know the operation, or answers outside the schema
 * (state.ts). Never rejects.
 */
export function requestState(path: string, timeoutMs = 1_000): Promise<ControlState | null> {
  return requestControl(path, { op: "state" }, timeoutMs).then(
    (answer) =>
      answer?.ok === true && controlStateProblem(answer) === null ? (answer as unknown as ControlState) : null,
    () => null,
  );
}
