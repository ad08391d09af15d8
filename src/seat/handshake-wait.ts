/*
 * Handshake wait: how long hire waits for the leader to answer one request (initialize, authenticate,
 *   session/resume|load, commands, model/effort) — as long as grok shows it is working, within a cap.
 * Owns: the progress-moved deadline, the readiness it watches (frames on our leader connection, pongs to the
 *   pings it sends, new lines the leader pid writes to $GROK_HOME/logs/unified.jsonl) and the message naming
 *   the step, the time waited and what readiness said.
 * Does not own: the requests themselves or cleaning up a refused hire (hire.ts).
 *   A read grok may have dropped can be re-sent while its log is quiet (HandshakeResend).
 * Invariant: never waits past the cap; the deadline moves only on evidence seen after the request was sent;
 *   the log is read from where it ended when the step began (a shrink — grok trims it in place — restarts at the
 *   new end, never re-reads old lines). A failure is ACP_HANDSHAKE_FAILED with step, waitedMs and readiness.
 * Why: on a busy 2-core machine a real 1.0.41 leader once took more than 15 s to answer `authenticate`; the
 *   agent answers only when the TUI's own startup work (session/new, catalog, MCP) it queued behind has run, and
 *   that work keeps logging (`session.setup.phase`, `model changed`, …) while it runs (grok-wire.md §5, §13).
 * Spec: docs/seat-protocol.md#hire
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import type { LeaderClient } from "../leader/index.js";

/** The readiness a handshake wait watches. */
export interface HandshakeWatch {
  client: LeaderClient;
  /** The proven leader pid: only its log lines count. */
  leaderPid: number;
  /** $GROK_HOME of the seat; its logs/unified.jsonl is read for the leader's lines. */
  grokHome: string;
}

/** Limits of one wait: the window without any sign of progress, the overall cap, and the poll period. */
export interface HandshakeLimits {
  idleMs: number;
  capMs: number;
  pollMs?: number;
}

/**
 * Re-sending a read that grok may have dropped: when the leader's log has been quiet for `quietMs` since the last
 * send (grok works on nothing, yet has not answered), `send` is called again — at most `max` more times — and
 * whichever answer comes first is the step's. Only for requests that change nothing (a catalog read).
 */
export interface HandshakeResend<T> {
  send: () => Promise<T>;
  /** Default 10 s. */
  quietMs?: number;
  /** Default 2. */
  max?: number;
}

/** What readiness said by the end of a wait. */
export interface HandshakeReadiness {
  framesIn: number;
  pongs: number;
  lastPongAgoMs: number | null;
  logLines: number;
  lastLogMsg: string | null;
  lastLogAgoMs: number | null;
  lastProgressAgoMs: number;
}

/** How much of the log one poll reads at most; a larger burst is counted as progress without parsing all of it. */
const MAX_LOG_READ = 256 * 1024;

/** Follows the new lines the leader pid writes to unified.jsonl from the moment it is created. */
class LeaderLog {
  readonly #path: string;
  readonly #pid: number;
  #offset: number;
  #partial = "";
  lines = 0;
  lastMsg: string | null = null;
  lastAt: number | null = null;

  constructor(grokHome: string, pid: number) {
    this.#path = join(grokHome, "logs", "unified.jsonl");
    this.#pid = pid;
    this.#offset = this.#size() ?? 0;
  }

  #size(): number | null {
    try {
      return statSync(this.#path).size;
    } catch {
      return null;
    }
  }

  /** Reads what was appended since the last poll; returns how many new leader lines it found. */
  poll(): number {
    const size = this.#size();
    if (size === null) return 0;
    if (size < this.#offset) {
      // Trimmed in place (or replaced): what is there now was written before this poll or is the kept half.
      this.#offset = size;
      this.#partial = "";
      return 0;
    }
    if (size === this.#offset) return 0;
    const length = Math.min(size - this.#offset, MAX_LOG_READ);
    const buffer = Buffer.alloc(length);
    let fd: number | null = null;
    try {
      fd = openSync(this.#path, "r");
      readSync(fd, buffer, 0, length, this.#offset);
    } catch {
      return 0;
    } finally {
      if (fd !== null) closeSync(fd);
    }
    this.#offset += length;
    const text = this.#partial + buffer.toString("utf8");
    const parts = text.split("\n");
    this.#partial = parts.pop() ?? "";
    let found = 0;
    for (const line of parts) {
      try {
        const entry = JSON.parse(line) as { pid?: unknown; msg?: unknown };
        if (entry.pid !== this.#pid) continue;
        found += 1;
        if (typeof entry.msg === "string") this.lastMsg = entry.msg;
      } catch {
        /* a torn or foreign line */
      }
    }
    if (found > 0) {
      this.lines += found;
      this.lastAt = Date.now();
    }
    return found;
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function describe(readiness: HandshakeReadiness, pid: number): string {
  const pong =
    readiness.lastPongAgoMs === null
      ? "the leader answered none of our pings"
      : `the leader answered its last ping ${seconds(readiness.lastPongAgoMs)} ago`;
  const log =
    readiness.logLines === 0
      ? `grok's log has no new line from pid ${pid}`
      : `grok's log has ${readiness.logLines} new line(s) from pid ${pid}, the last "${readiness.lastLogMsg ?? "?"}" ${seconds(readiness.lastLogAgoMs ?? 0)} ago`;
  return `${pong}; ${log}; ${readiness.framesIn} frame(s) arrived on our connection`;
}

/**
 * Waits for `work` (one hire request already sent) while grok shows progress: the deadline is `idleMs` after
 * the last sign of progress (a frame on our connection, a pong, a new leader line in grok's log), never more
 * than `capMs` after the start. Rejects ACP_HANDSHAKE_FAILED naming the step, the time waited and readiness
 * (and, with `resend`, how many times the request was sent).
 */
export async function awaitHandshake<T>(
  work: Promise<T>,
  step: string,
  watch: HandshakeWatch,
  limits: HandshakeLimits,
  context: Record<string, unknown> = {},
  resend?: HandshakeResend<T>,
): Promise<T> {
  const pollMs = limits.pollMs ?? Math.max(100, Math.min(1_000, Math.floor(limits.idleMs / 4)));
  const started = Date.now();
  const log = new LeaderLog(watch.grokHome, watch.leaderPid);
  const startFrames = watch.client.activity().framesIn;
  let frames = startFrames;
  let lastProgress = started;
  let pongs = 0;
  let lastPongAt: number | null = null;
  let timer: NodeJS.Timeout | undefined;
  // Re-sends race the first send; the first answer wins, a late one is ignored.
  let sends = 1;
  let lastWork = started;
  let answer!: (value: T) => void;
  const answered = new Promise<T>((resolve) => (answer = resolve));
  const failure = new Promise<never>((_, reject) => {
    const tick = () => {
      const now = Date.now();
      const seen = watch.client.activity().framesIn;
      const logged = log.poll() > 0;
      if (logged || seen > frames) lastProgress = now;
      if (logged) lastWork = now;
      frames = seen;
      if (resend && sends <= (resend.max ?? 2) && now - lastWork >= (resend.quietMs ?? 10_000)) {
        sends += 1;
        lastWork = now;
        resend.send().then(answer, () => undefined);
      }
      const idle = now - lastProgress >= limits.idleMs;
      const capped = now - started >= limits.capMs;
      if (idle || capped) {
        const readiness: HandshakeReadiness = {
          framesIn: frames - startFrames,
          pongs,
          lastPongAgoMs: lastPongAt === null ? null : now - lastPongAt,
          logLines: log.lines,
          lastLogMsg: log.lastMsg,
          lastLogAgoMs: log.lastAt === null ? null : now - log.lastAt,
          lastProgressAgoMs: now - lastProgress,
        };
        const why =
          capped && !idle
            ? `grok kept showing progress, but the hire's limit of ${seconds(limits.capMs)} for one step ran out`
            : `no sign of progress for the last ${seconds(now - lastProgress)}`;
        reject(
          new SeatError(
            "ACP_HANDSHAKE_FAILED",
            `The leader did not answer ${step} after ${seconds(now - started)}: ${why}. Readiness: ${describe(readiness, watch.leaderPid)}. Hire a fresh seat; on a busy machine the library's requestTimeoutMs (time without progress) and handshakeCapMs (the cap) allow more.`,
            {
              context: {
                ...context,
                step,
                waitedMs: now - started,
                idleMs: limits.idleMs,
                capMs: limits.capMs,
                leaderPid: watch.leaderPid,
                readiness,
                ...(resend ? { sends } : {}),
              },
              retryable: true,
            },
          ),
        );
        return;
      }
      // A pong is liveness of the leader process itself; it arrives as a frame, so it also moves the deadline.
      watch.client.ping({ timeoutMs: pollMs }).then(
        () => void ((pongs += 1), (lastPongAt = Date.now())),
        () => undefined,
      );
      timer = setTimeout(tick, pollMs);
    };
    timer = setTimeout(tick, 0);
  });
  failure.catch(() => undefined);
  try {
    return await Promise.race([work, answered, failure]);
  } finally {
    clearTimeout(timer);
  }
}
