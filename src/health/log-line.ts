/*
 * grok's log lines: a small tolerant reader of one line of `$GROK_HOME/logs/unified.jsonl` into a health
 *   signal — an inference retry of one session, or a model-catalogue failure of one grok process.
 * Owns: which `msg` values mean what (grok 1.0.41, recorded in test/fixtures/health/), the shape checks,
 *   and the short human summary of grok's reason text.
 * Does not own: reading the file (follower.ts) or acting on a signal (monitor.ts).
 * Invariant: parseLogLine and readHealthSignal never throw, whatever the text; anything unexpected yields
 *   undefined. A reason is passed on with URL credentials and query strings removed.
 */

/** The fields of one unified.jsonl line we look at. */
export interface LogLine {
  msg: string;
  /** The ACP session id, when the line is about one session. */
  sid?: string;
  pid?: number;
  /** When grok wrote the line (its `ts`, ms since the epoch), when it carries a parseable one. */
  tsMs?: number;
  /** The model request a retry belongs to (`ctx.sampler_request_id`), when present. */
  requestId?: string;
  ctx: Record<string, unknown>;
}

/** What one log line says about grok's health, for a follower of one session and one process. */
export type HealthSignal =
  /** `statusCode`: the model's HTTP status when grok's reason names one (429, 503, 529, …). */
  | { kind: "retry"; attempt: number; maxRetries: number; reason: string; detail: string; statusCode?: number }
  /** grok gave up on a model request (`shell.turn.inference_failed`): its HTTP status and whether grok deemed it retryable. */
  | { kind: "inference_failed"; statusCode?: number; retryable?: boolean; detail: string }
  | { kind: "catalog_retry"; attempt: number; maxRetries: number }
  | { kind: "catalog_failed"; reason: string; detail: string };

/** Who a follower is watching: the ACP session id, and grok's pid for lines about the whole process. */
export interface HealthScope {
  sessionId: string;
  pid?: number;
}

/** grok 1.0.41's message names we rely on. */
export const GROK_LOG_MSG = {
  inferenceRetry: "shell.turn.inference_retry",
  inferenceFailed: "shell.turn.inference_failed",
  catalogRetry: "model catalog: retry scheduled",
  catalogExhausted: "model catalog: all retries exhausted",
} as const;

const MAX_LINE_CHARS = 64 * 1024;

/** Parses one line as a grok log object; undefined for anything else (never throws). */
export function parseLogLine(text: string): LogLine | undefined {
  if (typeof text !== "string" || text.length > MAX_LINE_CHARS) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.msg !== "string") return undefined;
  const ctx =
    typeof record.ctx === "object" && record.ctx !== null && !Array.isArray(record.ctx)
      ? (record.ctx as Record<string, unknown>)
      : {};
  const tsMs = typeof record.ts === "string" ? Date.parse(record.ts) : Number.NaN;
  return {
    msg: record.msg,
    ...(typeof record.sid === "string" ? { sid: record.sid } : {}),
    ...(Number.isFinite(tsMs) ? { tsMs } : {}),
    ...(typeof ctx.sampler_request_id === "string" && ctx.sampler_request_id !== ""
      ? { requestId: ctx.sampler_request_id }
      : {}),
    ...(typeof record.pid === "number" && Number.isInteger(record.pid) ? { pid: record.pid } : {}),
    ctx,
  };
}

function count(value: unknown): number | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** grok's reason with URL userinfo and query strings removed, on one line, at most 400 characters. */
export function cleanReason(text: string): string {
  const line = text
    .replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@)]*@/gi, "$1")
    .replace(/(https?:\/\/[^\s?#)]*)[?#][^\s)]*/gi, "$1")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > 400 ? `${line.slice(0, 399)}…` : line;
}

const SUMMARIES: ReadonlyArray<[RegExp, string]> = [
  [/dns error|failed to lookup address|name or service not known/i, "dns error"],
  [/connection refused/i, "connection refused"],
  [/connection reset/i, "connection reset"],
  [/timed? ?out|deadline/i, "timed out"],
  [/certificate|tls|ssl/i, "tls error"],
  [/\b(401|403)\b|unauthori[sz]ed|forbidden/i, "not authorized"],
  [/\b429\b|rate limit/i, "rate limited"],
  [/\b5\d\d\b|server error|overloaded/i, "server error"],
];

/** A short label for grok's reason ("dns error", "connection refused", …), else its last clause. */
export function summarizeReason(text: string): string {
  for (const [pattern, label] of SUMMARIES) if (pattern.test(text)) return label;
  const clauses = cleanReason(text)
    .split(": ")
    .filter((c) => c.trim() !== "");
  const last = clauses[clauses.length - 1] ?? "";
  if (last === "") return "unknown error";
  return last.length > 80 ? `${last.slice(0, 79)}…` : last;
}

/** The HTTP status grok's reason text names (`API error (status 429 Too Many Requests)`), if any. */
function statusIn(text: string): number | undefined {
  const match = /\bstatus (\d{3})\b/.exec(text);
  return match ? Number(match[1]) : undefined;
}

/** The HTTP statuses of a model that is limiting us: rate limited, unavailable, overloaded, out of credit. */
export const LIMIT_STATUSES: readonly number[] = [402, 429, 503, 529];

/** The health signal `line` carries for `scope`, or undefined (other sessions, other processes, other messages). */
export function readHealthSignal(line: LogLine, scope: HealthScope): HealthSignal | undefined {
  if (line.msg === GROK_LOG_MSG.inferenceRetry) {
    if (line.sid !== scope.sessionId) return undefined;
    const attempt = count(line.ctx.attempt);
    const maxRetries = count(line.ctx.max_retries);
    if (attempt === undefined || maxRetries === undefined) return undefined;
    const raw =
      typeof line.ctx.reason === "string"
        ? line.ctx.reason
        : typeof line.ctx.kind === "string"
          ? line.ctx.kind
          : "unknown error";
    const status = statusIn(raw);
    return {
      kind: "retry",
      attempt,
      maxRetries,
      reason: summarizeReason(raw),
      detail: cleanReason(raw),
      ...(status === undefined ? {} : { statusCode: status }),
    };
  }
  if (line.msg === GROK_LOG_MSG.inferenceFailed) {
    if (line.sid !== scope.sessionId) return undefined;
    const raw = typeof line.ctx.message === "string" ? line.ctx.message : "model request failed";
    const status = count(line.ctx.status_code) ?? statusIn(raw);
    return {
      kind: "inference_failed",
      detail: cleanReason(raw),
      ...(status === undefined ? {} : { statusCode: status }),
      ...(typeof line.ctx.is_retryable === "boolean" ? { retryable: line.ctx.is_retryable } : {}),
    };
  }
  // Catalogue lines carry no session id: they belong to the process, so they need the process's pid.
  if (line.sid !== undefined || scope.pid === undefined || line.pid !== scope.pid) return undefined;
  if (line.msg === GROK_LOG_MSG.catalogRetry) {
    const attempt = count(line.ctx.attempt);
    const maxRetries = count(line.ctx.max_retries);
    return attempt === undefined || maxRetries === undefined
      ? undefined
      : { kind: "catalog_retry", attempt, maxRetries };
  }
  if (line.msg === GROK_LOG_MSG.catalogExhausted) {
    const raw = typeof line.ctx.error === "string" ? line.ctx.error : "model catalog fetch failed";
    return { kind: "catalog_failed", reason: summarizeReason(raw), detail: cleanReason(raw) };
  }
  return undefined;
}
