/*
 * Control client: how the `seat` CLI talks to a seat's controller process.
 * Owns: checking the seat directory is private, one request line → one reply line, and turning a
 *   missing controller into a clear refusal.
 * Does not own: what the controller does (controller.ts).
 * Invariant: a missing or dead controller is never replaced by a new leader connection: callers
 *   refuse `send` and report `status` from the journal instead.
 * Spec: docs/seat-protocol.md#controller
 */
import { createConnection } from "node:net";
import { lstatSync } from "node:fs";
import { privateDirProblem } from "../internal/private-dir.js";
import { SeatError } from "../errors.js";
import { controlSocketPath, type ControlRequest } from "./controller.js";

/** True when the error means "no controller answers for this seat". */
export function isControllerGone(error: unknown): boolean {
  return error instanceof SeatError && error.context.controllerGone === true;
}

/**
 * Sends one request to the controller of the seat in `dir` and resolves its reply. Throws
 * SEAT_NOT_ADMITTED (context.controllerGone) when no controller listens.
 */
export async function callController(
  dir: string,
  request: ControlRequest,
  timeoutMs = 120_000,
): Promise<Record<string, unknown>> {
  const path = controlSocketPath(dir);
  const uid = process.getuid?.() ?? 0;
  const gone = (why: string, cause?: unknown) =>
    new SeatError(
      "SEAT_NOT_ADMITTED",
      `No live controller for the seat in ${dir} (${why}). The seat never reconnects to its leader: check \`seat status\`, then release it and hire a fresh one.`,
      { context: { dir, controllerGone: true }, cause },
    );
  try {
    lstatSync(dir); // a missing directory means no controller (below), not a refusal
    const problem = privateDirProblem(dir, uid);
    if (problem)
      throw new SeatError(
        "PRIVATE_DIR_REFUSED",
        `${dir} is not a private 0700 directory of uid ${uid} (${problem}); refusing to use its control socket.`,
        { context: { dir } },
      );
    const s = lstatSync(path);
    if (!s.isSocket() || s.uid !== uid)
      throw new SeatError(
        "CONTROL_SOCKET_UNTRUSTED",
        `${path} is not a socket owned by uid ${uid}; refusing to use it.`,
        { context: { path } },
      );
  } catch (error) {
    if (error instanceof SeatError) throw error;
    throw gone("no control socket", error);
  }
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    let buffer = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new SeatError(
          "SEAT_CONTROLLER_TIMEOUT",
          `The seat controller in ${dir} did not answer ${request.op} within ${timeoutMs} ms.`,
          { context: { dir, op: request.op }, retryable: true },
        ),
      );
    }, timeoutMs);
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on("data", (chunk) => (buffer += chunk.toString("utf8")));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(gone(error.code ?? error.message, error));
    });
    socket.on("close", () => {
      clearTimeout(timer);
      const line = buffer.split("\n")[0] ?? "";
      if (!line) return reject(gone("the controller closed the connection without an answer"));
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch (error) {
        reject(gone("the controller answered something that is not JSON", error));
      }
    });
  });
}

/** Unwraps a controller reply: returns it when ok, throws its error as a SeatError otherwise. */
export function unwrapReply(reply: Record<string, unknown>): Record<string, unknown> {
  if (reply.ok === true) return reply;
  const error = (reply.error ?? {}) as { code?: string; message?: string; context?: Record<string, unknown> };
  const message = (error.message ?? "the controller refused").replace(/ \[[A-Z_]+\]$/, "");
  throw new SeatError((error.code as never) ?? "SEAT_CONTROLLER_FAILED", message, { context: error.context ?? {} });
}
