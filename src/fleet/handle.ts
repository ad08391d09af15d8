/*
 * Job handle: what a submitter holds for one fleet job — its events (resumable from a cursor), its result,
 *   its state and cancel.
 * Owns: following a job's stream until its terminal `job` event, noticing a dispatched job whose worker
 *   stopped beating (and recording it uncertain), noticing a record Redis lost after the job was seen (recorded
 *   as what the watcher saw: the turn's `done`, else uncertain — never "not found"), cancel's two paths (a
 *   waiting job is removed from its queue; a running one is told through a key and a pub/sub message its
 *   worker watches — and re-reads on every heartbeat) and waiting for the worker's acknowledgement.
 * Does not own: the stream and state formats (events.ts, state.ts) or running jobs (worker.ts).
 * Invariant: events() yields every event after `from` exactly once and in order, and ends after the job's
 *   terminal transition; it never ends early on a quiet job. cancel() never re-sends or re-queues anything.
 */
import type { Redis } from "ioredis";
import { Queue } from "bullmq";
import type { SeatEvent } from "../acp/index.js";
import { SeatError } from "../errors.js";
import { BULL_PREFIX, CANCEL_CHANNEL, jobKeys } from "./keys.js";
import { readEvents, START, type CursorEvent, type JobEvent } from "./events.js";
import {
  isBeating,
  readJob,
  settleDerivedUncertain,
  transition,
  TERMINAL,
  type JobRecord,
  type JobStatus,
  type Transition,
} from "./state.js";
import { type RedisTarget, fatalCause } from "../redis/index.js";

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
  /**
   * Cancels the job: a waiting one never runs; a running one's turn is cancelled by its worker. Waits up to
   * `ackTimeoutMs` (default 5000) for the worker to acknowledge (it acts on the pub/sub message, or on the
   * cancel key at its next heartbeat, every 2 s) or for the job to end.
   */
  cancel(options?: { ackTimeoutMs?: number }): Promise<CancelOutcome>;
}

/** What cancel() achieved. */
export interface CancelOutcome {
  status: JobStatus;
  /** The job was still waiting and was removed from its queue: it never ran. */
  removed: boolean;
  /** A worker acted on the cancel (or the job was removed, or it ended cancelled) within the wait. */
  acknowledged: boolean;
  /** The worker that acknowledged it. */
  acknowledgedBy?: string;
}

/** What a handle needs from the client that made it. */
export interface HandleDeps {
  target: RedisTarget;
  redis: Redis;
  /** A fresh connection for blocking reads (closed by the caller's close of the iterator). */
  blocking(): Redis;
  retainSeconds: number;
}

/**
 * A reader whose ACL role may not write (a watcher: NOPERM) still reports the uncertain it derived; recording
 * it is left to a reader that may (a submitter, the worker's stall recovery).
 */
async function recordIfAllowed(recording: Promise<unknown>): Promise<void> {
  await recording.catch((error: unknown) => {
    if (fatalCause(error) !== "forbidden") throw error;
  });
}

/** A handle on job `id`. */
export function jobHandle(deps: HandleDeps, id: string): JobHandle {
  const notFound = () =>
    new SeatError(
      "FLEET_JOB_NOT_FOUND",
      `No fleet job ${id} in Redis at ${deps.target.displayUrl} (never submitted, or expired after it ended).`,
      { context: { jobId: id } },
    );
  /** The record now; a dispatched job found without a heartbeat is recorded uncertain before it is reported. */
  const state = async (): Promise<JobRecord> => {
    const record = await readJob(deps.redis, id);
    if (!record) throw notFound();
    if (!record.derived) return record;
    await recordIfAllowed(settleDerivedUncertain(deps.redis, id, "reader", deps.retainSeconds));
    return (await readJob(deps.redis, id)) ?? record;
  };

  /**
   * The record vanished after this watcher saw the job (Redis restarted without its AOF): record what the
   * watcher saw — the turn's `done` (completed, cancelled, or failed with its diagnostic), else uncertain.
   */
  const recordVanished = async (
    done: Extract<SeatEvent, { type: "done" }> | undefined,
    diagnostic: string | undefined,
  ) => {
    const reason = "record-vanished";
    const message = "Redis lost the job's record (a restart without its append-only file)";
    const t: Pick<Transition, "to" | "fields" | "event"> = done
      ? done.stopReason === "cancelled"
        ? {
            to: "cancelled" as const,
            fields: { stop_reason: "cancelled", message },
            event: { stopReason: "cancelled", reason },
          }
        : diagnostic
          ? { to: "failed" as const, fields: { code: diagnostic, message }, event: { code: diagnostic, reason } }
          : {
              to: "completed" as const,
              fields: { ...(done.stopReason ? { stop_reason: done.stopReason } : {}), message },
              event: { ...(done.stopReason ? { stopReason: done.stopReason } : {}), reason },
            }
      : {
          to: "uncertain" as const,
          fields: {
            code: "FLEET_JOB_UNCERTAIN",
            message: `${message} after it was seen; the prompt may have reached the model and is not re-sent`,
            uncertain_reason: reason,
          },
          event: { code: "FLEET_JOB_UNCERTAIN", reason },
        };
    await transition(deps.redis, id, { from: [""], ...t, retainSeconds: deps.retainSeconds });
  };

  async function* events(options: EventsOptions = {}): AsyncIterableIterator<CursorEvent> {
    let cursor = options.from ?? START;
    // A watcher resuming from a cursor has seen the job before.
    let seen = cursor !== START;
    let done: Extract<SeatEvent, { type: "done" }> | undefined;
    let diagnostic: string | undefined;
    const reader = deps.blocking();
    try {
      while (!options.signal?.aborted) {
        const batch = await readEvents(reader, id, cursor, options.pollMs ?? 1_000);
        for (const item of batch) {
          cursor = item.cursor;
          seen = true;
          if (item.event.type === "done") done = item.event;
          else if (item.event.type === "diagnostic") diagnostic ??= item.event.diagnostic.code;
          yield item;
          if (item.event.type === "job" && TERMINAL.includes((item.event as JobEvent).status)) {
            // Re-judged: an uncertain job whose run still beats is running its turn; keep following it.
            if (
              (item.event as JobEvent).status === "uncertain" &&
              (await readJob(deps.redis, id))?.status === "dispatched"
            )
              continue;
            return;
          }
        }
        if (batch.length > 0) continue;
        // A quiet stream: has the job ended without us seeing it (trimmed), did its worker die after dispatch,
        // or did Redis lose its record?
        const record = await readJob(deps.redis, id);
        if (!record) {
          if (!seen) throw notFound();
          // A run that still beats will record its own end; otherwise say what this watcher saw.
          if (!(await isBeating(deps.redis, id))) await recordVanished(done, diagnostic);
        } else if (record.derived)
          await recordIfAllowed(settleDerivedUncertain(deps.redis, id, "watcher", deps.retainSeconds));
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
      const final = last && TERMINAL.includes(last.status) ? last : undefined;
      // The record may be gone again by now (a volatile Redis): what the stream said is the answer then.
      const record: Partial<JobRecord> = (await readJob(deps.redis, id)) ?? (final ? {} : await state());
      return {
        id,
        status: final?.status ?? record.status!,
        text,
        ...((final?.stopReason ?? stopReason) ? { stopReason: final?.stopReason ?? stopReason } : {}),
        ...((final?.code ?? record.code ?? code) ? { code: final?.code ?? record.code ?? code } : {}),
        ...((final?.message ?? record.message) ? { message: final?.message ?? record.message } : {}),
      };
    },
    async cancel(options = {}) {
      const record = await state();
      if (TERMINAL.includes(record.status)) return { status: record.status, removed: false, acknowledged: false };
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
          removed = job
            ? await job.remove().then(
                () => true,
                () => false,
              )
            : false;
        } finally {
          await queue.close();
        }
        if (removed) {
          await transition(deps.redis, id, {
            from: ["waiting"],
            to: "cancelled",
            fields: { stop_reason: "cancelled" },
            event: { stopReason: "cancelled", reason: "cancelled-before-start" },
            retainSeconds: deps.retainSeconds,
          });
        }
      }
      if (removed) return { status: (await state()).status, removed, acknowledged: true };
      // Wait for the worker's word: it acknowledges when it acts on the cancel (message or heartbeat).
      const deadline = Date.now() + (options.ackTimeoutMs ?? 5_000);
      for (;;) {
        const now = await state();
        if (now.cancelAckedBy || now.status === "cancelled")
          return {
            status: now.status,
            removed,
            acknowledged: true,
            ...(now.cancelAckedBy ? { acknowledgedBy: now.cancelAckedBy } : {}),
          };
        if (TERMINAL.includes(now.status) || Date.now() >= deadline)
          return { status: now.status, removed, acknowledged: false };
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}
