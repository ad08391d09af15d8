/*
 * How one run of a fleet job ends: the end transition, the hand-back, and the end written through an outage.
 * Owns: `end` (before dispatch from `active`, after it from `dispatched`/`uncertain`, with the held `done` in the
 *   same atomic step, and the notice of the end it recorded), ending a job before dispatch (failed or cancelled),
 *   handing back a job that was not sent, recording an end after dispatch through a Redis outage (and again when
 *   Redis lost the record), and how a step's error ends the run.
 * Does not own: the transitions themselves (state.ts), the shared state of the run (job-run.ts).
 * Invariant: every write here is compare-and-set on the run token. Before dispatch nothing was sent, so a Redis
 *   error hands the job back to be run (here or elsewhere); only a dispatched run can end uncertain.
 */
import { DelayedError, WaitingError } from "bullmq";
import { isSeatError, messageOf } from "../errors.js";
import { endNotification } from "./job-notices.js";
import { persist, viaRedis, type JobRun } from "./job-run.js";
import { sessionHostKey } from "./keys.js";
import type { JobSpec } from "./job-spec.js";
import { releaseSessionHost } from "./session-host.js";
import { setIfRun, transition, type JobStatus, type Transition } from "./state.js";

/** How long a job put back behind a busy named session (or replicas not in sync) waits before it is offered again (ms). */
export const SESSION_RETRY_MS = 1_000;

/** An end transition of this run: before dispatch from active, after it from dispatched/uncertain. */
export async function end(
  jr: JobRun,
  to: JobStatus,
  fields: Record<string, string | number>,
  event: Record<string, unknown>,
  afterDispatch: boolean,
): Promise<{ moved: boolean; current: JobStatus | "" }> {
  const heldDone = jr.stream.heldDone;
  const r = await transition(jr.redis, jr.id, {
    from: afterDispatch ? ["dispatched", "uncertain"] : ["active"],
    to,
    fields,
    event: { ...jr.tag, ...event },
    retainSeconds: jr.retainSeconds,
    run: jr.run,
    ...(afterDispatch && heldDone ? { before: [heldDone] } : {}),
  });
  // Told only once the end is recorded, by the run that recorded it (a compare-and-set: one run per end).
  if (r.moved) jr.tell(...endNotification(to, fields));
  return r;
}

/** Ends the job before dispatch (only while this run owns it); a Redis error hands it back instead. */
export async function endBefore<S extends JobStatus>(
  jr: JobRun,
  to: S,
  fields: Record<string, string | number>,
  event: Record<string, unknown>,
): Promise<S> {
  await jr.stream.settled();
  // A name this job claimed for its host is free again before anyone can see the job ended.
  if (jr.claimedHost && !jr.opened) await viaRedis(releaseHost(jr));
  const r = await viaRedis(end(jr, to, fields, event, false));
  if (!r.moved)
    jr.ctx.log(`job ${jr.id}: not recorded ${to} (it is ${r.current || "gone"}; this run no longer owns it)`);
  return to;
}

/** Ends the job cancelled before dispatch, after recording that this worker acknowledged the cancel. */
export async function cancelBeforeDispatch(jr: JobRun): Promise<"cancelled"> {
  await viaRedis(setIfRun(jr.redis, jr.id, jr.run, { cancel_acked_by: jr.ctx.workerId, cancel_acked_at: Date.now() }));
  return endBefore(
    jr,
    "cancelled",
    { stop_reason: "cancelled" },
    { stopReason: "cancelled", reason: "cancelled-before-dispatch" },
  );
}

/** Frees the named session's host this run claimed (compare-and-set on this host). */
export function releaseHost(jr: JobRun): Promise<unknown> {
  const spec = jr.job.data as JobSpec;
  return releaseSessionHost(jr.redis, sessionHostKey(spec.cwd ?? "", spec.session!), jr.ctx.host);
}

/**
 * Gives a job that was not sent back to its queue: the record moves to waiting (only from this run), then
 * BullMQ's job (delayed when `delayMs`). Retried through a Redis outage; if it never lands, BullMQ's
 * stalled-job recovery re-offers the job once its lock lapses (the record's `active` is taken over then).
 * Always throws BullMQ's WaitingError or DelayedError: the processor's way to say the job went back.
 */
export async function handBack(jr: JobRun, reason: string, delayMs = 0): Promise<never> {
  const { ctx, id, job, token } = jr;
  await jr.stream.settled();
  const back = await persist(jr.persistMs, () =>
    transition(jr.redis, id, {
      from: ["active", "dispatched", "uncertain"],
      to: "waiting",
      run: jr.run,
      event: { reason, worker: ctx.workerId },
    }),
  );
  let said: string;
  if (!back) said = "Redis did not answer; stalled-job recovery will re-offer it";
  // Not ours any more (another run took it, it ended, or the record is gone): leave BullMQ's job alone.
  else if (!back.moved && back.current !== "waiting") said = `left alone (it is ${back.current || "gone"})`;
  else {
    try {
      if (delayMs > 0) await job.moveToDelayed(Date.now() + delayMs, token);
      else await job.moveToWait(token);
      said = "back in its queue";
    } catch (error) {
      said = `its queue did not take it back (${messageOf(error)}); stalled-job recovery will re-offer it`;
    }
  }
  ctx.log(`job ${id}: handed back (${reason}): ${said}`);
  throw delayMs > 0 ? new DelayedError() : new WaitingError();
}

/**
 * Records how this run ended after dispatch, retried through a Redis outage. A record that vanished (Redis restarted
 * without its AOF) is written again with what this run knows, so watchers still see the end.
 */
export async function recordEnd(
  jr: JobRun,
  status: JobStatus,
  fields: Record<string, string | number>,
  event: Record<string, unknown>,
): Promise<void> {
  const { ctx, id } = jr;
  const done = jr.stream.heldDone;
  const outcome = await persist(jr.persistMs, () => end(jr, status, fields, event, true));
  if (!outcome) {
    ctx.log(`job ${id}: its end (${status}) could not be recorded: Redis did not answer`);
    return;
  }
  if (!outcome.moved && outcome.current === "") {
    const again: Transition = {
      from: [""],
      to: status,
      fields: { ...fields, worker: ctx.workerId, host: ctx.host, record_lost: 1 },
      event: { ...event, worker: ctx.workerId, host: ctx.host, reason: "record-lost" },
      retainSeconds: ctx.retainSeconds,
      ...(done ? { before: [done] } : {}),
    };
    await persist(jr.persistMs, () => transition(jr.redis, id, again));
    ctx.log(`job ${id}: its record had vanished (Redis lost it); recorded ${status} again`);
  } else if (!outcome.moved)
    ctx.log(`job ${id}: not recorded ${status} (it is ${outcome.current}; another run owns it)`);
}

/**
 * How a step's error ends the run: a hand-back (BullMQ's own errors pass through; a Redis error before dispatch
 * hands the job back to be run), `failed` before dispatch (only by this run), or `failed` recorded after dispatch.
 */
export async function endOnError(jr: JobRun, error: unknown): Promise<JobStatus> {
  if (error instanceof WaitingError || error instanceof DelayedError) throw error;
  await jr.stream.settled();
  // Before dispatch nothing was sent: a Redis failure hands the job back to be run; only this run may fail it.
  if (!jr.dispatched && isSeatError(error) && error.code === "FLEET_REDIS_UNAVAILABLE")
    return await handBack(jr, "redis-error-before-dispatch");
  const message = messageOf(error);
  const code = isSeatError(error) ? error.code : "ACP_PROMPT_FAILED";
  if (!jr.dispatched)
    return await endBefore(jr, "failed", { code, message }, { code, message }).catch(() =>
      handBack(jr, "redis-error-before-dispatch"),
    );
  await recordEnd(jr, "failed", { code, message }, { code, message });
  return "failed";
}
