/*
 * Herdr client: typed requests to a Herdr server socket.
 * Owns: NDJSON framing, one request per connection, id echo checks, envelope → result or SeatError,
 *   and the streaming `events.subscribe` connection.
 * Does not own: which panes to make (herdr.ts) or judging agent fields (herdr-agent.ts).
 * Invariant: never pipelines; a reply that breaks the protocol (bad line, wrong id, wrong result type,
 *   > 1 MiB line, silence past the timeout) is HERDR_PROTOCOL_ERROR, an app error is MUX_COMMAND_FAILED
 *   with the Herdr code in context.herdrCode, an absent server is MUX_UNAVAILABLE.
 * Spec: shared reference herdr-api.md §2, §3, §7.
 */
import { connect, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import { SeatError, isSeatError } from "../errors.js";
import type {
  HerdrEvent,
  HerdrLayout,
  HerdrLayoutNode,
  HerdrPaneInfo,
  HerdrPaneRead,
  HerdrPong,
  HerdrProcessInfo,
  HerdrSubscription,
  HerdrTabInfo,
  HerdrWorkspaceInfo,
} from "./herdr-wire.js";

/** Longest line either side may send (Herdr's own limit). */
export const HERDR_MAX_LINE_BYTES = 1024 * 1024;

/** Options for a HerdrClient. */
export interface HerdrClientOptions {
  /** Per-request limit for connect + reply, in ms (default 10 000; Herdr's own dispatch limit is 5 s). */
  timeoutMs?: number;
}

/** A live `events.subscribe` connection; iterate it for events, close it when done. */
export interface HerdrEventStream extends AsyncIterable<HerdrEvent> {
  close(): void;
}

/** Report fields of `pane.report_agent` (`pane_id` is passed separately). */
export interface HerdrAgentReport {
  source: string;
  agent: string;
  state?: "idle" | "working" | "blocked" | "unknown";
  message?: string;
  seq?: number;
  agent_session_id?: string;
  agent_session_path?: string;
}

/** True when `error` is a Herdr application error with this Herdr code (e.g. "pane_not_found"). */
export function isHerdrError(error: unknown, herdrCode: string): boolean {
  return isSeatError(error, "MUX_COMMAND_FAILED") && error.context.herdrCode === herdrCode;
}

/** A client for one Herdr socket; every call opens its own connection, so calls may run concurrently. */
export class HerdrClient {
  readonly socketPath: string;
  private readonly timeoutMs: number;
  private counter = 0;
  private readonly prefix = `gs_${randomBytes(3).toString("hex")}_`;

  constructor(socketPath: string, options: HerdrClientOptions = {}) {
    this.socketPath = socketPath;
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Server version, protocol number and capabilities. */
  async ping(): Promise<HerdrPong> {
    return (await this.call("ping", {}, "pong")) as unknown as HerdrPong;
  }

  /** `workspace.create`: a new workspace with one tab holding a default-shell pane. */
  async createWorkspace(
    params: { cwd?: string; label?: string; focus?: boolean; env?: Record<string, string> } = {},
  ): Promise<{ workspace: HerdrWorkspaceInfo; tab: HerdrTabInfo; root_pane: HerdrPaneInfo }> {
    return (await this.call("workspace.create", params, "workspace_created")) as never;
  }

  /** `layout.apply`: a new tab (or a replacement for `tab_id`) whose pane nodes may carry an argv `command`. */
  async applyLayout(params: {
    workspace_id?: string;
    tab_id?: string;
    tab_label?: string;
    focus?: boolean;
    root: HerdrLayoutNode;
  }): Promise<HerdrLayout> {
    return (await this.call("layout.apply", params, "layout_apply")).layout as HerdrLayout;
  }

  /** `pane.get`; a closed pane rejects with herdrCode "pane_not_found". */
  async getPane(paneId: string): Promise<HerdrPaneInfo> {
    return (await this.call("pane.get", { pane_id: paneId }, "pane_info")).pane as HerdrPaneInfo;
  }

  /** `pane.process_info`: the PTY child pid (`shell_pid`) and foreground processes. */
  async getProcessInfo(paneId: string): Promise<HerdrProcessInfo> {
    return (await this.call("pane.process_info", { pane_id: paneId }, "pane_process_info"))
      .process_info as HerdrProcessInfo;
  }

  /** `pane.read` as plain text; `source` is "visible" (default), "recent" or "recent_unwrapped". */
  async readPane(paneId: string, options: { source?: string; lines?: number } = {}): Promise<HerdrPaneRead> {
    const params = {
      pane_id: paneId,
      source: options.source ?? "visible",
      format: "text",
      strip_ansi: true,
      ...(options.lines ? { lines: options.lines } : {}),
    };
    return (await this.call("pane.read", params, "pane_read")).read as HerdrPaneRead;
  }

  /** `pane.report_agent`; Herdr answers ok even when it silently ignores the report, so read it back. */
  async reportAgent(paneId: string, report: HerdrAgentReport): Promise<void> {
    await this.call("pane.report_agent", { pane_id: paneId, state: "unknown", ...report }, "ok");
  }

  /** `pane.report_agent_session` (what grok's own Herdr hook sends); silently ignorable like report_agent. */
  async reportAgentSession(paneId: string, report: Omit<HerdrAgentReport, "state" | "message">): Promise<void> {
    await this.call("pane.report_agent_session", { pane_id: paneId, ...report }, "ok");
  }

  /** `pane.close`: closes the pane and ends its process. */
  async closePane(paneId: string): Promise<void> {
    await this.call("pane.close", { pane_id: paneId }, "ok");
  }

  /** Send one request on a fresh connection and return its `result` object after checking `result.type`. */
  async call(method: string, params: object, expectedType: string): Promise<Record<string, unknown>> {
    const id = this.nextId();
    const line = await this.exchange(id, method, params, (socket, read) =>
      read(socket).finally(() => socket.destroy()),
    );
    return this.unwrap(id, method, line, expectedType);
  }

  /** `events.subscribe`: resolves after the ack; events arrive in order until `close()` or the server ends it. */
  async subscribe(subscriptions: HerdrSubscription[]): Promise<HerdrEventStream> {
    const id = this.nextId();
    let socket!: Socket;
    const ack = await this.exchange(id, "events.subscribe", { subscriptions }, (s, read) => {
      socket = s;
      return read(s);
    });
    try {
      this.unwrap(id, "events.subscribe", ack.line, "subscription_started");
    } catch (error) {
      socket.destroy();
      throw error;
    }
    return eventStream(socket, ack.rest, this.socketPath);
  }

  private nextId(): string {
    this.counter += 1;
    return `${this.prefix}${this.counter}`;
  }

  private exchange<T>(
    id: string,
    method: string,
    params: object,
    then: (socket: Socket, read: (s: Socket) => Promise<{ line: string; rest: Buffer }>) => Promise<T>,
  ): Promise<T> {
    const context = { socketPath: this.socketPath, method };
    return new Promise<T>((resolve, reject) => {
      const socket = connect(this.socketPath);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new SeatError(
            "HERDR_PROTOCOL_ERROR",
            `Herdr at ${this.socketPath} did not answer ${method} within ${this.timeoutMs} ms. Check that the server is responsive.`,
            { context: { ...context, timeoutMs: this.timeoutMs }, retryable: true },
          ),
        );
      }, this.timeoutMs);
      const fail = (error: NodeJS.ErrnoException): void => {
        clearTimeout(timer);
        const absent = error.code === "ENOENT" || error.code === "ECONNREFUSED";
        reject(
          absent
            ? new SeatError(
                "MUX_UNAVAILABLE",
                `No Herdr server is listening at ${this.socketPath} (${error.code}). Start herdr or point HERDR_SOCKET_PATH at its socket.`,
                { context, retryable: true, cause: error },
              )
            : new SeatError(
                "HERDR_PROTOCOL_ERROR",
                `The connection to Herdr at ${this.socketPath} failed during ${method}: ${error.message}.`,
                { context, cause: error },
              ),
        );
      };
      socket.once("error", fail);
      socket.once("connect", () => {
        socket.write(`${JSON.stringify({ id, method, params })}\n`);
        then(socket, (s) => readLine(s, context)).then(
          (value) => {
            clearTimeout(timer);
            socket.off("error", fail);
            resolve(value);
          },
          (error) => {
            clearTimeout(timer);
            socket.destroy();
            reject(error);
          },
        );
      });
    });
  }

  private unwrap(
    id: string,
    method: string,
    line: string | { line: string },
    expectedType: string,
  ): Record<string, unknown> {
    const text = typeof line === "string" ? line : line.line;
    const context = { socketPath: this.socketPath, method, requestId: id, line: text.slice(0, 500) };
    let envelope: { id?: unknown; result?: Record<string, unknown>; error?: { code?: string; message?: string } };
    try {
      envelope = JSON.parse(text);
    } catch (cause) {
      throw new SeatError("HERDR_PROTOCOL_ERROR", `Herdr answered ${method} with a line that is not JSON.`, {
        context,
        cause,
      });
    }
    if (typeof envelope !== "object" || envelope === null)
      throw new SeatError("HERDR_PROTOCOL_ERROR", `Herdr answered ${method} with a non-object.`, { context });
    if (envelope.id === "" && envelope.error) {
      throw new SeatError(
        "HERDR_PROTOCOL_ERROR",
        `Herdr could not parse our ${method} request: ${envelope.error.message ?? envelope.error.code}. The server may speak another protocol version.`,
        { context: { ...context, herdrCode: envelope.error.code } },
      );
    }
    if (envelope.id !== id)
      throw new SeatError(
        "HERDR_PROTOCOL_ERROR",
        `Herdr answered ${method} with id ${JSON.stringify(envelope.id)}, not ${JSON.stringify(id)}.`,
        { context },
      );
    if (envelope.error) {
      const code = String(envelope.error.code ?? "unknown");
      throw new SeatError(
        "MUX_COMMAND_FAILED",
        `Herdr refused ${method}: ${code}: ${envelope.error.message ?? ""}`.trim(),
        { context: { ...context, herdrCode: code, herdrMessage: envelope.error.message } },
      );
    }
    const result = envelope.result;
    if (typeof result !== "object" || result === null || result.type !== expectedType) {
      throw new SeatError(
        "HERDR_PROTOCOL_ERROR",
        `Herdr answered ${method} with result type ${JSON.stringify(result?.type)}, expected "${expectedType}".`,
        { context },
      );
    }
    return result;
  }
}

function readLine(socket: Socket, context: Record<string, unknown>): Promise<{ line: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffer = Buffer.alloc(0);
    const cleanup = (): void => {
      socket.off("data", onData);
      socket.off("end", onEnd);
    };
    const onData = (chunk: Buffer): void => {
      buffer = Buffer.concat([buffer, chunk]);
      const newline = buffer.indexOf(0x0a);
      if (newline === -1 ? buffer.length > HERDR_MAX_LINE_BYTES : newline > HERDR_MAX_LINE_BYTES) {
        cleanup();
        reject(
          new SeatError("HERDR_PROTOCOL_ERROR", `Herdr sent a line longer than ${HERDR_MAX_LINE_BYTES} bytes.`, {
            context,
          }),
        );
      } else if (newline !== -1) {
        cleanup();
        socket.pause();
        resolve({ line: buffer.subarray(0, newline).toString("utf8"), rest: buffer.subarray(newline + 1) });
      }
    };
    const onEnd = (): void => {
      cleanup();
      reject(
        new SeatError("HERDR_PROTOCOL_ERROR", "Herdr closed the connection without a complete reply line.", {
          context: { ...context, partial: buffer.toString("utf8").slice(0, 200) },
        }),
      );
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
  });
}

function eventStream(socket: Socket, initial: Buffer, socketPath: string): HerdrEventStream {
  const queue: Array<HerdrEvent | Error | null> = [];
  let wake: (() => void) | undefined;
  let buffer = initial;
  const push = (item: HerdrEvent | Error | null): void => {
    queue.push(item);
    wake?.();
  };
  const drain = (): void => {
    let newline: number;
    while ((newline = buffer.indexOf(0x0a)) !== -1) {
      const text = buffer.subarray(0, newline).toString("utf8");
      buffer = buffer.subarray(newline + 1);
      if (text.trim() === "") continue;
      try {
        const parsed = JSON.parse(text);
        if (parsed?.error)
          push(
            new SeatError(
              "MUX_COMMAND_FAILED",
              `Herdr ended the subscription: ${parsed.error.code}: ${parsed.error.message}`,
              { context: { socketPath, herdrCode: parsed.error.code } },
            ),
          );
        else if (typeof parsed?.event !== "string" || typeof parsed.data !== "object") throw new Error("not an event");
        else push(parsed as HerdrEvent);
      } catch {
        push(
          new SeatError("HERDR_PROTOCOL_ERROR", "Herdr sent a subscription line that is not an event.", {
            context: { socketPath, line: text.slice(0, 500) },
          }),
        );
        socket.destroy();
      }
    }
    if (buffer.length > HERDR_MAX_LINE_BYTES) {
      push(
        new SeatError("HERDR_PROTOCOL_ERROR", `Herdr sent an event line longer than ${HERDR_MAX_LINE_BYTES} bytes.`, {
          context: { socketPath },
        }),
      );
      socket.destroy();
    }
  };
  socket.on("data", (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    drain();
  });
  socket.on("close", () => push(null));
  socket.on("error", () => undefined); // close follows; the stream simply ends
  drain();
  socket.resume();
  return {
    close: () => socket.destroy(),
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length === 0)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        const item = queue.shift()!;
        if (item === null) return;
        if (item instanceof Error) throw item;
        yield item;
      }
    },
  };
}
