/*
 * Job events: a job's event stream in Redis (one Stream per job), written by the worker, read by watchers.
 * Owns: appending a SeatEvent (bounded length), reading from a cursor (blocking), the FleetEvent shape.
 * Does not own: the `job` transition events (state.ts writes them atomically with the state) or their meaning.
 * Invariant: the cursor is the Redis stream id of the last event seen; reading from it returns every later
 *   event still in the stream, in order — a watcher that reconnects with its cursor misses nothing
 *   (within the bounded length, EVENTS_MAX_LEN, and until the keys expire after the job ended).
 *   Every event passes through redact() before it is written.
 */
import type { Redis } from "ioredis";
import type { SeatEvent } from "../acp/index.js";
import { redact } from "../internal/redact.js";
import { jobKeys } from "./keys.js";
import { EVENTS_MAX_LEN, type JobStatus } from "./state.js";

/** A transition of the job itself, in the same stream as the turn's events. */
export interface JobEvent {
  type: "job";
  id: string;
  status: JobStatus;
  atMs: number;
  worker?: string;
  host?: string;
  code?: string;
  message?: string;
  reason?: string;
  stopReason?: string;
  [key: string]: unknown;
}

/** What a job's stream carries: the turn's SeatEvents and the job's own transitions. */
export type FleetEvent = SeatEvent | JobEvent;

/** One event read from a stream, with its cursor (pass it as `from` to resume after it). */
export interface CursorEvent {
  cursor: string;
  event: FleetEvent;
}

/** The cursor that reads a stream from its beginning. */
export const START = "0-0";

// KEYS: events. ARGV: max length, event JSON, the append's mark. An append whose mark is among the stream's last
// entries already (the client re-sent it after a lost reply) is not written again; returns the entry's id.
const APPEND_ONCE = `
for _, entry in ipairs(redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 16)) do
  local f = entry[2]
  for i = 1, #f, 2 do if f[i] == 's' and f[i + 1] == ARGV[3] then return entry[1] end end
end
return redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'e', ARGV[2], 's', ARGV[3])
`;

/**
 * Appends `event` (redacted) to job `id`'s stream. With `mark` (unique per append, e.g. run token + sequence), an
 * append the Redis client re-sends after a lost reply is written once: a watcher never sees a text chunk twice.
 */
export async function appendEvent(redis: Redis, id: string, event: SeatEvent, mark?: string): Promise<string> {
  const json = JSON.stringify(redact(event));
  const cursor =
    mark === undefined
      ? await redis.xadd(jobKeys(id).events, "MAXLEN", "~", String(EVENTS_MAX_LEN), "*", "e", json)
      : ((await redis.eval(APPEND_ONCE, 1, jobKeys(id).events, String(EVENTS_MAX_LEN), json, mark)) as string);
  return cursor ?? "";
}

/** Reads up to `count` events after `from`, waiting up to `blockMs` for the first one (0 = do not wait). */
export async function readEvents(
  redis: Redis,
  id: string,
  from: string,
  blockMs: number,
  count = 500,
): Promise<CursorEvent[]> {
  const key = jobKeys(id).events;
  const reply = (
    blockMs > 0
      ? await redis.xread("COUNT", count, "BLOCK", blockMs, "STREAMS", key, from)
      : await redis.xread("COUNT", count, "STREAMS", key, from)
  ) as [string, [string, string[]][]][] | null;
  const entries = reply?.[0]?.[1] ?? [];
  const out: CursorEvent[] = [];
  for (const [cursor, fields] of entries) {
    const at = fields.indexOf("e");
    if (at < 0 || at % 2 !== 0) continue;
    try {
      out.push({ cursor, event: JSON.parse(fields[at + 1] ?? "null") as FleetEvent });
    } catch {
      // A foreign or damaged entry is skipped; the cursor still moves past it.
      out.push({
        cursor,
        event: {
          type: "diagnostic",
          diagnostic: {
            code: "FLEET_JOB_INVALID",
            message: "An unreadable entry in the job's event stream was skipped.",
          },
        },
      });
    }
  }
  return out;
}

/** True when `cursor` has the shape of a Redis stream id (`ms-seq` or `0`). */
export function isCursor(cursor: string): boolean {
  return /^\d+(-\d+)?$/.test(cursor);
}
