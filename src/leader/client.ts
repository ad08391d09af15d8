/*
 * Leader client: one connection to a grok TUI leader's private socket, turned into an ACP Stream.
 * Owns: the unix socket, the register handshake, acp frame <-> JSON-RPC message mapping,
 *   control requests, pings and disconnect.
 * Does not own: proving who serves the socket (identity/), ACP semantics (acp/), version floors (seat/).
 * Invariant: connects exactly once and never reconnects (ADR 0224); a closed or broken socket ends
 *   the readable, fails pending requests, and resolves `closed` with the reason.
 * Spec: grok-wire.md §12.2-12.3
 */
import { createConnection, type Socket } from "node:net";
import type { AnyMessage, Stream } from "@agentclientprotocol/sdk";
import { SeatError, isSeatError } from "../errors.js";
import { FrameDecoder, encodeFrame, type LeaderFrame } from "./frames.js";
import { buildRegisterFrame, errorFrameToSeatError, parseRegistered, type LeaderRegistration } from "./registration.js";
import { acpFrame, parseAcpPayload } from "./payload.js";

/** Options for connectLeader; `timeoutMs` bounds connect + register (+ leader_ready). */
export interface ConnectLeaderOptions {
  socketPath: string;
  clientType: string;
  clientVersion?: string;
  timeoutMs: number;
  /** Send a ping every this many ms while open (the official client uses 30000); off when absent. */
  keepaliveMs?: number;
}

/** A leader control command such as `{ type: "get_leader_info" }`. */
export interface LeaderControlCommand {
  type: string;
  [key: string]: unknown;
}

/** How a leader connection ended: `error` is null only when we closed it ourselves. */
export interface LeaderClosed {
  error: SeatError | null;
  /** The last `shutting_down` or `shutdown` frame the leader sent, if any. */
  shutdownNotice: LeaderFrame | null;
}

/** A registered connection to the leader. One ACP client per connection; not re-entrant after close. */
export interface LeaderClient {
  readonly registered: LeaderRegistration;
  /** JSON-RPC messages in and out, carried as `acp` frames with a JSON-string payload. */
  readonly stream: Stream;
  /** Sends a control command and resolves its `Ok` value; throws LEADER_CONTROL_FAILED on `Err`. */
  control(command: LeaderControlCommand, options?: { timeoutMs?: number }): Promise<unknown>;
  /** Sends a ping and resolves on the matching pong. */
  ping(options?: { timeoutMs?: number }): Promise<void>;
  /** Sends `disconnect`, ends the socket and resolves once it is closed. */
  close(): Promise<LeaderClosed>;
  /** Resolves (never rejects) when the connection is gone, with the reason. */
  readonly closed: Promise<LeaderClosed>;
  /** Frames received so far and when the last one arrived (Date.now()); hire reads it as a sign of progress. */
  activity(): LeaderActivity;
}

/** What a connection has received: a count and the time of the last frame (null before any). */
export interface LeaderActivity {
  framesIn: number;
  lastFrameAt: number | null;
}

type Pending = { resolve: (value: unknown) => void; reject: (err: SeatError) => void; settled: boolean };

const READABLE_HIGH_WATER = 1024;
const CLOSE_GRACE_MS = 2000;

class LeaderConnection implements LeaderClient {
  registered!: LeaderRegistration;
  readonly stream: Stream;
  readonly closed: Promise<LeaderClosed>;
  readonly #socket: Socket;
  readonly #path: string;
  readonly #timeoutMs: number;
  readonly #decoder = new FrameDecoder();
  readonly #controls = new Map<string, Pending>();
  readonly #pings: Pending[] = [];
  #readable!: ReadableStreamDefaultController<AnyMessage>;
  #registering: Pending | null = null;
  #nextControl = 1;
  #error: SeatError | null = null;
  #shutdownNotice: LeaderFrame | null = null;
  #state: "registering" | "open" | "closing" | "closed" = "registering";
  #keepalive: NodeJS.Timeout | null = null;
  #framesIn = 0;
  #lastFrameAt: number | null = null;
  #resolveClosed!: (value: LeaderClosed) => void;

  constructor(socket: Socket, options: ConnectLeaderOptions) {
    this.#socket = socket;
    this.#path = options.socketPath;
    this.#timeoutMs = options.timeoutMs;
    this.closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    const readable = new ReadableStream<AnyMessage>(
      {
        start: (controller) => void (this.#readable = controller),
        pull: () => void (this.#socket.isPaused() && this.#socket.resume()),
        cancel: () => void this.close(),
      },
      { highWaterMark: READABLE_HIGH_WATER },
    );
    const writable = new WritableStream<AnyMessage>({
      write: (message) => this.#send(acpFrame(message)),
      close: async () => void (await this.close()),
      abort: () => this.#fail(null),
    });
    this.stream = { readable, writable };
    socket.on("data", (chunk: Buffer) => this.#onData(chunk));
    socket.on("end", () => this.#onEnd());
    socket.on("error", (err) => this.#fail(this.#gone(`failed: ${err.message}`, err)));
    socket.on("close", () => this.#onClose());
    if (options.keepaliveMs !== undefined && options.keepaliveMs > 0) {
      this.#keepalive = setInterval(() => {
        if (this.#state !== "open") return;
        this.#pings.push({ resolve: () => {}, reject: () => {}, settled: true });
        this.#send({ type: "ping" }).catch(() => {});
      }, options.keepaliveMs);
      this.#keepalive.unref();
    }
  }

  /** Sends register and waits for registered (and leader_ready when registered said ready:false). */
  register(clientType: string, clientVersion: string | null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#registering = { resolve: () => resolve(), reject, settled: false };
      this.#send(buildRegisterFrame(clientType, clientVersion)).catch((err) =>
        this.#fail(asSeatError(err, this.#path)),
      );
    });
  }

  control(command: LeaderControlCommand, options: { timeoutMs?: number } = {}): Promise<unknown> {
    if (!this.registered.controlAvailable) {
      return Promise.reject(
        new SeatError(
          "LEADER_PROTOCOL_ERROR",
          `The leader on ${this.#path} reports protocol ${this.registered.leaderProtocolVersion ?? "none"} with control_v1=${String(this.registered.leaderCapabilities.control_v1)}; control needs protocol 1 with control_v1. Do not drive this leader.`,
          { context: { socketPath: this.#path, command: command.type, registered: this.registered.frame } },
        ),
      );
    }
    const requestId = `c${this.#nextControl++}`;
    return this.#request(
      (pending) => this.#controls.set(requestId, pending),
      () => this.#controls.delete(requestId),
      { type: "control", request_id: requestId, command },
      `control ${command.type}`,
      options.timeoutMs,
    );
  }

  activity(): LeaderActivity {
    return { framesIn: this.#framesIn, lastFrameAt: this.#lastFrameAt };
  }

  async ping(options: { timeoutMs?: number } = {}): Promise<void> {
    await this.#request(
      (pending) => this.#pings.push(pending),
      () => {},
      { type: "ping" },
      "ping",
      options.timeoutMs,
    );
  }

  close(): Promise<LeaderClosed> {
    if (this.#state === "registering" || this.#state === "open") {
      this.#state = "closing";
      this.#socket.write(encodeFrame({ type: "disconnect" }));
      this.#socket.end();
      setTimeout(() => this.#socket.destroy(), CLOSE_GRACE_MS).unref();
    }
    return this.closed;
  }

  #request(
    enlist: (pending: Pending) => void,
    forget: () => void,
    frame: LeaderFrame,
    what: string,
    timeoutMs = this.#timeoutMs,
  ): Promise<unknown> {
    if (this.#state !== "open") return Promise.reject(this.#error ?? this.#gone(`is closed; cannot send ${what}`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.settled = true;
        forget();
        reject(
          new SeatError(
            "LEADER_TIMEOUT",
            `The leader on ${this.#path} did not answer ${what} within ${timeoutMs} ms. The connection is left open; close it if the leader stays silent.`,
            { context: { socketPath: this.#path, request: what, timeoutMs }, retryable: true },
          ),
        );
      }, timeoutMs);
      const pending: Pending = {
        settled: false,
        resolve: (v) => void (clearTimeout(timer), (pending.settled = true), resolve(v)),
        reject: (e) => void (clearTimeout(timer), (pending.settled = true), reject(e)),
      };
      enlist(pending);
      this.#send(frame).catch((err) => pending.reject(asSeatError(err, this.#path)));
    });
  }

  #send(frame: LeaderFrame): Promise<void> {
    if (this.#state === "closing" || this.#state === "closed" || this.#socket.destroyed) {
      return Promise.reject(this.#error ?? this.#gone(`is closed; cannot send a ${frame.type} frame`));
    }
    const bytes = encodeFrame(frame);
    return new Promise((resolve, reject) => {
      this.#socket.write(bytes, (err) => (err ? reject(this.#gone(`write failed: ${err.message}`, err)) : resolve()));
    });
  }

  #onData(chunk: Buffer): void {
    let frames: LeaderFrame[];
    try {
      frames = this.#decoder.push(chunk);
    } catch (err) {
      return this.#fail(asSeatError(err, this.#path));
    }
    if (frames.length > 0) {
      this.#framesIn += frames.length;
      this.#lastFrameAt = Date.now();
    }
    for (const frame of frames) {
      if (this.#state === "closed") return;
      try {
        this.#onFrame(frame);
      } catch (err) {
        return this.#fail(asSeatError(err, this.#path));
      }
    }
  }

  #onFrame(frame: LeaderFrame): void {
    switch (frame.type) {
      case "registered": {
        if (!this.#registering || this.registered) throw this.#protocol("sent a second registered frame", frame);
        this.registered = parseRegistered(frame, this.#path);
        if (this.registered.ready) this.#opened();
        return;
      }
      case "leader_ready":
        if (this.registered && !this.registered.ready) {
          this.registered = { ...this.registered, ready: true };
          this.#opened();
        }
        return;
      case "error":
        throw errorFrameToSeatError(frame, this.#path);
      case "acp": {
        if (!this.registered) throw this.#protocol("sent an acp frame before registered", frame);
        this.#readable.enqueue(parseAcpPayload(frame, this.#path));
        if ((this.#readable.desiredSize ?? 1) <= 0) this.#socket.pause();
        return;
      }
      case "control_result":
        return this.#onControlResult(frame);
      case "pong": {
        const waiter = this.#pings.shift();
        if (waiter && !waiter.settled) waiter.resolve(undefined);
        return;
      }
      case "shutting_down":
      case "shutdown":
        this.#shutdownNotice = frame;
        return;
      default:
        // Newer leaders add frame types (serde defaults); unknown ones are not ours to act on.
        return;
    }
  }

  #onControlResult(frame: LeaderFrame): void {
    const id = frame.request_id;
    const pending = typeof id === "string" ? this.#controls.get(id) : undefined;
    if (!pending) return; // late answer to a request that already timed out
    this.#controls.delete(id as string);
    const result = frame.result as Record<string, unknown> | null | undefined;
    if (result && typeof result === "object" && "Ok" in result) return pending.resolve(result.Ok);
    if (result && typeof result === "object" && "Err" in result) {
      return pending.reject(
        new SeatError(
          "LEADER_CONTROL_FAILED",
          `The leader on ${this.#path} refused control request ${String(id)}: ${JSON.stringify(result.Err)}.`,
          { context: { socketPath: this.#path, requestId: id, err: result.Err } },
        ),
      );
    }
    pending.reject(this.#protocol(`answered control ${String(id)} with neither Ok nor Err`, frame));
  }

  #opened(): void {
    this.#state = "open";
    this.#registering?.resolve(undefined);
    this.#registering = null;
  }

  #onEnd(): void {
    try {
      this.#decoder.end();
    } catch (err) {
      this.#fail(asSeatError(err, this.#path));
    }
  }

  #fail(error: SeatError | null): void {
    if (this.#state === "closed") return;
    if (error && !this.#error) this.#error = error;
    this.#socket.destroy();
  }

  #onClose(): void {
    const wasClosing = this.#state === "closing";
    this.#state = "closed";
    if (this.#keepalive) clearInterval(this.#keepalive);
    if (!this.#error && !wasClosing) {
      const notice = this.#shutdownNotice ? ` after announcing ${JSON.stringify(this.#shutdownNotice)}` : "";
      this.#error = this.#gone(`closed the connection${notice}`);
    }
    const reason = this.#error ?? this.#gone("was closed by this client");
    this.#registering?.reject(reason);
    for (const pending of [...this.#controls.values(), ...this.#pings]) if (!pending.settled) pending.reject(reason);
    this.#controls.clear();
    this.#pings.length = 0;
    try {
      this.#readable.close();
    } catch {
      /* already closed or cancelled by the reader */
    }
    this.#resolveClosed({ error: this.#error, shutdownNotice: this.#shutdownNotice });
  }

  #gone(what: string, cause?: unknown): SeatError {
    return new SeatError(
      "LEADER_SOCKET_GONE",
      `The leader connection on ${this.#path} ${what}. The seat does not reconnect; release it and hire a fresh one.`,
      {
        context: { socketPath: this.#path, shutdownNotice: this.#shutdownNotice },
        cause,
      },
    );
  }

  #protocol(what: string, frame: LeaderFrame): SeatError {
    return new SeatError("LEADER_PROTOCOL_ERROR", `The leader on ${this.#path} ${what}. Close this connection.`, {
      context: { socketPath: this.#path, frameType: frame.type },
    });
  }
}

function asSeatError(err: unknown, socketPath: string): SeatError {
  if (isSeatError(err)) return err;
  return new SeatError("LEADER_PROTOCOL_ERROR", `Unexpected failure on the leader connection ${socketPath}.`, {
    context: { socketPath },
    cause: err,
  });
}

/**
 * Connects once to the leader socket, registers as a stdio client and returns the open connection.
 * Throws LEADER_SOCKET_GONE (no socket, refused), LEADER_PROTOCOL_ERROR (error frame), LEADER_TIMEOUT.
 */
export async function connectLeader(options: ConnectLeaderOptions): Promise<LeaderClient> {
  const { socketPath, timeoutMs } = options;
  const socket = createConnection({ path: socketPath });
  const connection = new LeaderConnection(socket, options);
  let socketTimeout: SeatError | null = null;
  const timer = setTimeout(() => {
    const phase = connection.registered ? "leader_ready" : "registered";
    socketTimeout = new SeatError(
      "LEADER_TIMEOUT",
      `The leader on ${socketPath} did not answer with ${phase} within ${timeoutMs} ms. Check that the TUI is up, then release the seat.`,
      { context: { socketPath, timeoutMs, phase }, retryable: true },
    );
    socket.destroy(socketTimeout);
  }, timeoutMs);
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", (err: NodeJS.ErrnoException) =>
        reject(
          socketTimeout ??
            new SeatError(
              "LEADER_SOCKET_GONE",
              `Cannot connect to the leader socket ${socketPath}: ${err.message}. Check that the TUI was started with this --leader-socket and is still running.`,
              {
                context: { socketPath, errno: err.code },
                cause: err,
                retryable: err.code === "ENOENT" || err.code === "ECONNREFUSED",
              },
            ),
        ),
      );
    });
    await connection.register(options.clientType, options.clientVersion ?? null);
    return connection;
  } catch (err) {
    socket.destroy();
    await connection.closed;
    throw socketTimeout ?? err;
  } finally {
    clearTimeout(timer);
  }
}
