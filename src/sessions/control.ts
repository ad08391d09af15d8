/*
 * Control socket: how `seat cancel -s NAME` in another shell reaches the process running the turn.
 * Owns: the holder's small unix socket (one JSON line in, one out) in a private 0700 directory, and the
 *   client that sends `cancel` to it.
 * Does not own: deciding whether the holder is who the lease says (cancel.ts proves that first) or what
 *   cancelling does (the HeadlessSession).
 * Invariant: the socket lives in a 0700 directory owned by us (so only our uid can connect) and is removed
 *   when the lease is released; the only operation is cancel, which never sends a prompt.
 */
import { randomBytes } from "node:crypto";
import { createConnection, createServer, type Server } from "node:net";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { ensurePrivateDir } from "../seat/index.js";

/** A listening control socket. */
export interface ControlServer {
  path: string;
  close(): Promise<void>;
}

/** Listens on a fresh socket inside `dir` (created 0700); `onCancel` runs for each cancel request. */
export async function startControlServer(dir: string, onCancel: () => Promise<{ promptId?: string }>): Promise<ControlServer> {
  ensurePrivateDir(dir);
  const path = join(dir, `ctl-${randomBytes(6).toString("hex")}.sock`);
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
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        rmSync(path, { force: true });
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
