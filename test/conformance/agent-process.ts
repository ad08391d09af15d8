/*
 * Agent process under test: spawns an ACP agent command, connects the SDK client to it, and records every
 * message in both directions.
 * Owns: the child process (own process group, killed as a group on close), the tapped message stream,
 *   stderr collection, and the client's answers to permission requests.
 * Does not own: what to send (runner.ts) or how to judge it (checks.ts).
 * Invariant: recorded messages are copies taken at the stream boundary, in wire order per direction.
 */
import * as acp from "@agentclientprotocol/sdk";
import { spawn, type ChildProcess } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type { AcpDirection } from "../support/acp-schema.js";

/** How to start an agent: the same shape works for fake-grok and the real grok binary. */
export interface SpawnSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
  cwd?: string;
}

/** One message seen on the wire; direction names the sender. */
export interface RecordedMessage {
  direction: AcpDirection;
  msg: Record<string, unknown>;
}

/** How the client answers session/request_permission: by option kind, never by id. */
export type PermissionAnswer = "allow" | "reject" | "cancel";

/** A running agent with a connected SDK client. */
export interface AgentUnderTest {
  readonly child: ChildProcess;
  readonly agent: acp.ClientContext;
  readonly messages: RecordedMessage[];
  /** Resolves with the exit code (or null on a signal) once the process is gone. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  setPermissionAnswer(answer: PermissionAnswer): void;
  /** Resolves when a recorded message satisfies the predicate; rejects after timeoutMs. */
  waitFor(predicate: (m: RecordedMessage) => boolean, timeoutMs: number, what: string): Promise<RecordedMessage>;
  /** Kills the whole process group and closes the connection. Idempotent. */
  close(): Promise<void>;
}

/** Spawns the agent in its own process group and connects an SDK client that records both directions. */
export function startAgent(spec: SpawnSpec): AgentUnderTest {
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env ?? { PATH: process.env.PATH ?? "" },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => {
    stderr = (stderr + d).slice(-16_384);
  });
  child.stdin!.on("error", () => {}); // EPIPE after the agent died is part of what we test
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, signal: child.signalCode });
    child.once("exit", (code, signal) => resolve({ code, signal }));
    child.once("error", () => resolve({ code: null, signal: null }));
  });

  const messages: RecordedMessage[] = [];
  const listeners = new Set<() => void>();
  const record = (direction: AcpDirection, msg: acp.AnyMessage) => {
    messages.push({ direction, msg: structuredClone(msg) as Record<string, unknown> });
    for (const l of listeners) l();
  };
  const wire = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const inTap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform: (m, c) => (record("agent", m), c.enqueue(m)),
  });
  const outTap = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform: (m, c) => (record("client", m), c.enqueue(m)),
  });
  void wire.readable.pipeTo(inTap.writable).catch(() => {});
  void outTap.readable.pipeTo(wire.writable).catch(() => {});

  let answer: PermissionAnswer = "allow";
  const connection = acp
    .client({ name: "grok-seat-conformance" })
    .onNotification(acp.methods.client.session.update, () => {})
    .onNotification("*", () => {})
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      if (answer === "cancel") return { outcome: { outcome: "cancelled" } };
      const wanted = answer === "allow" ? ["allow_always", "allow_once"] : ["reject_once", "reject_always"];
      const option = params.options.find((o) => wanted.includes(o.kind));
      return option
        ? { outcome: { outcome: "selected", optionId: option.optionId } }
        : { outcome: { outcome: "cancelled" } };
    })
    .connect({ readable: inTap.readable, writable: outTap.writable });

  let closing: Promise<void> | undefined;
  return {
    child,
    agent: connection.agent,
    messages,
    exited,
    stderr: () => stderr,
    setPermissionAnswer: (a) => void (answer = a),
    waitFor(predicate, timeoutMs, what) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = messages.find(predicate);
          if (!hit) return false;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
    close() {
      closing ??= (async () => {
        connection.close();
        if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {
            /* group already gone */
          }
        }
        await exited;
      })();
      return closing;
    },
  };
}
