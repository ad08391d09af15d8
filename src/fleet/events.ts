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

/** Appends `event` (redacted) to job `id`'s stream. */
export async function appendEvent(redis: Redis, id: string, event: SeatEvent): Promise<string> {
  const cursor = await redis.xadd(jobKeys(id).events, "MAXLEN", "~", String(EVENTS_MAX_LEN), "*", "e", JSON.stringify(redact(event)));
  return cursor ?? "";
}

/** Reads up to `count` events after `from`, waiting up to `blockMs` for the first one (0 = do not wait). */
export async function readEvents(redis: Redis, id: string, from: string, blockMs: number, count = 500): Promise<CursorEvent[]> {
  const key = jobKeys(id).events;
  const reply = (blockMs > 0
    ? await redis.xread("COUNT", count, "BLOCK", blockMs, "STREAMS", key, from)
    : await redis.xread("COUNT", count, "STREAMS", key, from)) as [string, [string, string[]][]][] | null;
  const entries = reply?.[0]?.[1] ?? [];
  const out: CursorEvent[] = [];
  for (const [cursor, fields] of entries) {
    const at = fields.indexOf("e");
    if (at < 0 || at % 2 !== 0) continue;
    try {
      out.push({ cursor, event: JSON.parse(fields[at + 1] ?? "null") as FleetEvent });
    } catch {
      // A foreign or damaged entry is skipped; the cursor still moves past it.
      out.push({ cursor, event: { type: "diagnostic", diagnostic: { code: "FLEET_JOB_INVALID", message: "An unreadable entry in the job's event stream was skipped." } } });
    }
  }
  return out;
}

/** True when `cursor` has the shape of a Redis stream id (`ms-seq` or `0`). */
export function isCursor(cursor: string): boolean {
  return /^\d+(-\d+)?$/.test(cursor);
}
