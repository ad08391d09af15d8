/*
 * Turn health: while one turn runs, follow grok's log for the turn's session, report each retry and
 *   model-catalogue failure as a SeatEvent, and — with fail-fast — end the turn once grok has retried its
 *   model request N times, with MODEL_UNREACHABLE naming grok's reason.
 * Owns: the link from log lines to events, the turn fence (which lines belong to this turn), the fail-fast
 *   count and its diagnostic, the turn's abort signal.
 * Does not own: reading the file (follower.ts), parsing (log-line.ts), ending the turn (acp/ SessionCore
 *   aborts with the diagnostic as the signal's reason: cancel, then resolve).
 * Invariant: never fails a turn because the log is absent or malformed (bad lines are counted, never
 *   thrown); a line counts for this turn only if grok stamped it at or after the moment the turn was sent
 *   and it is not about a model request already seen before that moment — whatever the follower re-reads
 *   after a trim or truncation, an earlier turn's retries are never reported or counted again; fail-fast
 *   fires at most once per turn, and nothing is reported after it fired or after stop().
 * Spec: docs/health.md#the-turn-fence
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { Diagnostic, SeatEvent } from "../acp/index.js";
import { followLog, readLogTail, type FollowerStats } from "./follower.js";
import { LIMIT_STATUSES, parseLogLine, readHealthSignal, type HealthSignal } from "./log-line.js";

/** How much of the log's end is read at a turn's start to learn the model requests already under way (bytes). */
const PRIME_TAIL_BYTES = 64 * 1024;

/** The default of `--fail-fast` with no number. */
export const DEFAULT_FAIL_FAST_RETRIES = 3;

/** Where grok writes its structured log, for the environment grok runs with. */
export function grokLogPath(env: Record<string, string | undefined>): string {
  const grokHome = env.GROK_HOME || join(env.HOME || homedir(), ".grok");
  return join(grokHome, "logs", "unified.jsonl");
}

/** Options of startTurnHealth. */
export interface TurnHealthOptions {
  /** grok's unified.jsonl (see grokLogPath). */
  logPath: string;
  /** The ACP session id the turn runs in. */
  sessionId: string;
  /** grok's pid: catalogue lines carry no session id, only the process's pid. */
  pid?: number;
  promptId?: string;
  /**
   * When the turn was sent, in ms since the epoch on this machine's clock (grok stamps its lines with the same
   * clock). Lines stamped earlier are not this turn's. Default: the moment startTurnHealth is called.
   */
  sentAtMs?: number;
  /** End the turn after grok's Nth retry of one model request. Off when undefined or 0. */
  failFastAfterRetries?: number;
  /** Receives each retry / model_catalog event. */
  emit(event: SeatEvent): void;
  /** The caller's own abort signal, folded into the returned one. */
  signal?: AbortSignal;
  pollMs?: number;
}

/** Counts of what a turn's follower saw. */
export interface TurnHealthStats extends FollowerStats {
  /** Lines that were not a grok log object (skipped). */
  malformed: number;
  retries: number;
  /** Health lines of this session or process that were not this turn's (stamped before it was sent, unstamped, or about an older model request). */
  stale: number;
}

/** A running turn-health watch. */
export interface TurnHealth {
  /** Pass to the turn: aborted (reason: the MODEL_UNREACHABLE diagnostic) on fail-fast, or with the caller's signal. */
  readonly signal: AbortSignal;
  /** The MODEL_UNREACHABLE diagnostic, once fail-fast fired. */
  readonly unreachable: Diagnostic | undefined;
  /** Stops following; returns the counts. Idempotent, never rejects. */
  stop(): Promise<TurnHealthStats>;
}

/** The SeatEvent for a health signal. */
export function healthEvent(signal: HealthSignal, promptId?: string): SeatEvent {
  const turn = promptId ? { promptId } : {};
  switch (signal.kind) {
    case "retry":
      return {
        type: "retry",
        attempt: signal.attempt,
        max: signal.maxRetries,
        reason: signal.reason,
        detail: signal.detail,
        ...turn,
      };
    case "catalog_retry":
      return { type: "model_catalog", status: "retrying", attempt: signal.attempt, max: signal.maxRetries };
    case "catalog_failed":
      return { type: "model_catalog", status: "failed", reason: signal.reason, detail: signal.detail };
    case "inference_failed":
      return { type: "rate_limited", statusCode: signal.statusCode ?? 0, final: true, detail: signal.detail, ...turn };
  }
}

/** The `rate_limited` event a signal also means (a limit status: 402, 429, 503, 529), or undefined. */
export function limitEvent(signal: HealthSignal, promptId?: string): SeatEvent | undefined {
  if (signal.kind !== "retry" || signal.statusCode === undefined || !LIMIT_STATUSES.includes(signal.statusCode))
    return undefined;
  return {
    type: "rate_limited",
    statusCode: signal.statusCode,
    final: false,
    attempt: signal.attempt,
    max: signal.maxRetries,
    detail: signal.detail,
    ...(promptId ? { promptId } : {}),
  };
}

/** The MODEL_UNREACHABLE diagnostic for a retry that reached the fail-fast limit. */
export function unreachableDiagnostic(signal: Extract<HealthSignal, { kind: "retry" }>, limit: number): Diagnostic {
  return {
    code: "MODEL_UNREACHABLE",
    message:
      `grok could not reach its model: ${signal.reason} (attempt ${signal.attempt}/${signal.maxRetries}); the turn was ended after ${limit} ` +
      `retr${limit === 1 ? "y" : "ies"} (fail-fast). grok said: ${signal.detail}. Check the network and the model's base_url, or retry later.`,
  };
}

/** Starts watching one turn; call it just before the prompt is sent. */
export function startTurnHealth(options: TurnHealthOptions): TurnHealth {
  const controller = new AbortController();
  const limit =
    options.failFastAfterRetries && options.failFastAfterRetries > 0
      ? Math.floor(options.failFastAfterRetries)
      : undefined;
  let malformed = 0;
  let retries = 0;
  let stale = 0;
  const sentAtMs = options.sentAtMs ?? Date.now();
  // Model requests grok logged before this turn was sent: their later lines are not this turn's either. Primed
  // from the log's recent tail, so a request of the previous turn that grok still retried after its cancel
  // would be known even though the follower never reads what came before the turn.
  const olderRequests = new Set<string>();
  for (const text of readLogTail(options.logPath, PRIME_TAIL_BYTES)) {
    if (!text.includes("sampler_request_id")) continue; // cheap: most lines are about nothing of the kind
    const line = parseLogLine(text);
    if (line?.requestId !== undefined && (line.tsMs === undefined || line.tsMs < sentAtMs))
      olderRequests.add(line.requestId);
  }
  let unreachable: Diagnostic | undefined;
  let stopping = false;
  const scope = { sessionId: options.sessionId, ...(options.pid !== undefined ? { pid: options.pid } : {}) };
  const follower = followLog({
    path: options.logPath,
    ...(options.pollMs ? { pollMs: options.pollMs } : {}),
    onLine(text) {
      if (stopping) return; // the turn is over: nothing is reported after its end
      const line = parseLogLine(text);
      if (!line) {
        malformed += 1;
        return;
      }
      const before = line.tsMs === undefined || line.tsMs < sentAtMs;
      if (before && line.requestId !== undefined) olderRequests.add(line.requestId);
      const signal = readHealthSignal(line, scope);
      if (!signal) return;
      if (before || (line.requestId !== undefined && olderRequests.has(line.requestId))) {
        stale += 1;
        return;
      }
      if (signal.kind === "retry") retries += 1;
      // A failure that is not a limit (a 400, a 401) is the turn's own diagnostic already; only limits are events.
      if (
        signal.kind === "inference_failed" &&
        (signal.statusCode === undefined || !LIMIT_STATUSES.includes(signal.statusCode))
      )
        return;
      options.emit(healthEvent(signal, options.promptId));
      const limited = limitEvent(signal, options.promptId);
      if (limited) options.emit(limited);
      if (signal.kind === "retry" && limit !== undefined && signal.attempt >= limit && !unreachable) {
        unreachable = unreachableDiagnostic(signal, limit);
        stopping = true; // the turn is being ended: later lines of this poll are not reported
        controller.abort(unreachable);
      }
    },
  });
  const outer = options.signal;
  const forward = () => controller.abort(outer?.reason);
  if (outer?.aborted) forward();
  else outer?.addEventListener("abort", forward, { once: true });
  return {
    signal: controller.signal,
    get unreachable() {
      return unreachable;
    },
    async stop() {
      stopping = true;
      outer?.removeEventListener("abort", forward);
      const stats = await follower.stop();
      return { ...stats, malformed, retries, stale };
    },
  };
}
