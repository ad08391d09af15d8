/*
 * Job handle: what a submitter holds for one fleet job — its events (resumable from a cursor), its result,
 *   its state and cancel.
 * Owns: following a job's stream until its terminal `job` event, noticing a dispatched job whose worker
 *   stopped beating (and recording it uncertain), cancel's two paths (a waiting job is removed from its queue;
 *   a running one is told through a key and a pub/sub message its worker watches).
 * Does not own: the stream and state formats (events.ts, state.ts) or running jobs (worker.ts).
 * Invariant: events() yields every event after `from` exactly once and in order, and ends after the job's
 *   terminal transition; it never ends early on a quiet job. cancel() never re-sends or re-queues anything.
 */
import type { Redis } from "ioredis";
import { Queue } from "bullmq";
import { SeatError } from "../errors.js";
import { BULL_PREFIX, CANCEL_CHANNEL, jobKeys } from "./keys.js";
import { readEvents, START, type CursorEvent, type JobEvent } from "./events.js";
import { readJob, settleDerivedUncertain, transition, TERMINAL, type JobRecord, type JobStatus } from "./state.js";
import type { RedisTarget } from "./connection.js";

/** How a job ended, as result() reports it. */
export interface JobResult {
  id: string;
  status: JobStatus;
  stopReason?: string;
  /** The error code of a failed, cancelled or uncertain job (or of the turn's diagnostic). */
  code?: string;
  message?: string;
  /** The assistant text streamed during the turn. */
  text: string;
}

/** Options of events(). */
export interface EventsOptions {
  /** Resume after this cursor (default: from the start). */
  from?: string;
  /** Stop following (the iterator ends without error). */
  signal?: AbortSignal;
  /** How long one blocking read waits before the job's state is checked (ms). Default 1000. */
  pollMs?: number;
}

/** A submitted fleet job. */
export interface JobHandle {
  readonly id: string;
  /** The job's events in order, each with its cursor; ends after the job's terminal `job` event. */
  events(options?: EventsOptions): AsyncIterableIterator<CursorEvent>;
  /** Waits for the job to end and says how. */
  result(options?: { signal?: AbortSignal }): Promise<JobResult>;
  /** The job's record now (a dispatched job whose worker stopped beating reads as uncertain). */
  state(): Promise<JobRecord>;
  /** Cancels the job: a waiting one never runs; a running one's turn is cancelled by its worker. */
  cancel(): Promise<{ status: JobStatus; removed: boolean }>;
}

/** What a handle needs from the client that made it. */
export interface HandleDeps {
  target: RedisTarget;
  redis: Redis;
  /** A fresh connection for blocking reads (closed by the caller's close of the iterator). */
  blocking(): Redis;
  retainSeconds: number;
}

/** A handle on job `id`. */
export function jobHandle(deps: HandleDeps, id: string): JobHandle {
  const state = async (): Promise<JobRecord> => {
    const record = await readJob(deps.redis, id);
    if (!record) throw new SeatError("FLEET_JOB_NOT_FOUND", `No fleet job ${id} in Redis at ${deps.target.displayUrl} (never submitted, or expired after it ended).`, { context: { jobId: id } });
    return record;
  };

  async function* events(options: EventsOptions = {}): AsyncIterableIterator<CursorEvent> {
    let cursor = options.from ?? START;
    const reader = deps.blocking();
    try {
      while (!options.signal?.aborted) {
        const batch = await readEvents(reader, id, cursor, options.pollMs ?? 1_000);
        for (const item of batch) {
          cursor = item.cursor;
          yield item;
          if (item.event.type === "job" && TERMINAL.includes((item.event as JobEvent).status)) return;
        }
        if (batch.length > 0) continue;
        // A quiet stream: has the job ended without us seeing it (trimmed), or did its worker die after dispatch?
        const record = await state();
        if (record.derived) await settleDerivedUncertain(deps.redis, id, "watcher", deps.retainSeconds);
        else if (TERMINAL.includes(record.status) && (await readEvents(reader, id, cursor, 0, 1)).length === 0) return;
      }
    } finally {
      reader.disconnect();
    }
  }

  return {
    id,
    events,
    state,
    async result(options = {}) {
      let text = "";
      let last: JobEvent | undefined;
      let stopReason: string | undefined;
      let code: string | undefined;
      for await (const { event } of events(options.signal ? { signal: options.signal } : {})) {
        if (event.type === "text") text += event.text;
        else if (event.type === "done") stopReason = event.stopReason;
        else if (event.type === "diagnostic") code ??= event.diagnostic.code;
        else if (event.type === "job") last = event;
      }
      const record = await state();
      const final = last && TERMINAL.includes(last.status) ? last : undefined;
      return {
        id,
        status: final?.status ?? record.status,
        text,
        ...((final?.stopReason ?? stopReason) ? { stopReason: final?.stopReason ?? stopReason } : {}),
        ...((final?.code ?? record.code ?? code) ? { code: final?.code ?? record.code ?? code } : {}),
        ...((final?.message ?? record.message) ? { message: final?.message ?? record.message } : {}),
      };
    },
    async cancel() {
      const record = await state();
      if (TERMINAL.includes(record.status)) return { status: record.status, removed: false };
      const keys = jobKeys(id);
      // The key covers a worker that takes the job between now and the removal below; the message reaches
      // one that is already running it.
      await deps.redis.set(keys.cancel, String(Date.now()), "EX", deps.retainSeconds);
      await deps.redis.publish(CANCEL_CHANNEL, id);
      let removed = false;
      if (record.status === "waiting" && record.queue) {
        const queue = new Queue(record.queue, { connection: deps.target.options, prefix: BULL_PREFIX });
        try {
          const job = await queue.getJob(id);
          // remove() refuses a job a worker holds the lock of; then the worker sees the cancel key.
          removed = job ? await job.remove().then(() => true, () => false) : false;
        } finally {
          await queue.close();
        }
        if (removed) {
          await transition(deps.redis, id, { from: ["waiting"], to: "cancelled", fields: { stop_reason: "cancelled" }, event: { stopReason: "cancelled", reason: "cancelled-before-start" }, retainSeconds: deps.retainSeconds });
        }
      }
      return { status: (await state()).status, removed };
    },
  };
}
