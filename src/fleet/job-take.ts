/*
 * Taking a fleet job for one run: `active`, under the run's fresh token.
 * Owns: the take (from `waiting`, or `active` left by a run that stopped before dispatch), the refusal of a job
 *   already dispatched (stalled-job recovery lands here: the job is recorded uncertain, never re-sent), and the
 *   notice of an uncertain job this worker took over.
 * Does not own: BullMQ's stall detection (worker.ts), the transitions (state.ts).
 * Invariant: a job whose record says dispatched (or anything after) is never prompted again.
 */
import { handBack } from "./job-end.js";
import { uncertainNotice } from "./job-notices.js";
import { viaRedis, type JobRun, type RunContext } from "./job-run.js";
import { jobKeys } from "./keys.js";
import { HEARTBEAT_EVERY_MS, HEARTBEAT_TTL_MS, settleDerivedUncertain, transition } from "./state.js";

/**
 * Takes the job for run `jr`. Resolves undefined when this run holds it now (`active`), or what the processor
 * returns when there is nothing to run: "uncertain" (recorded here) or "skipped". A Redis error hands it back.
 */
export async function takeJob(jr: JobRun): Promise<"uncertain" | "skipped" | undefined> {
  const { ctx, id, redis } = jr;
  let took: Awaited<ReturnType<typeof transition>>;
  try {
    took = await viaRedis(
      transition(redis, id, {
        from: ["waiting", "active"],
        to: "active",
        fields: { ...jr.tag, run: jr.run },
        event: { ...jr.tag, attempt: jr.job.attemptsStarted },
      }),
    );
  } catch {
    // The take may or may not have landed; nothing was sent either way.
    return handBack(jr, "redis-error-at-take");
  }
  if (took.moved) return undefined;
  if (took.current === "dispatched") {
    // Stalled-job recovery gave us a job whose prompt may already have reached the model: never re-send.
    const doubt = await transition(redis, id, {
      from: ["dispatched"],
      to: "uncertain",
      heartbeatGone: true,
      retainSeconds: jr.retainSeconds,
      fields: {
        code: "FLEET_JOB_UNCERTAIN",
        message: "its worker died after dispatch; the prompt may have reached the model and was not re-sent",
        uncertain_reason: "stalled-after-dispatch",
      },
      event: { code: "FLEET_JOB_UNCERTAIN", reason: "stalled-after-dispatch", noticedBy: ctx.workerId },
    }).catch(() => ({ moved: false }));
    if (doubt.moved) jr.tell(...uncertainNotice("died"));
    // Still beating: BullMQ will not offer the job again, so this worker watches until the beat lapses (then
    // the job is uncertain, told once) or the job ends (told by the run that ends it). In the background.
    else if (jr.notifies) void watchForUncertain(ctx, id, () => jr.tell(...uncertainNotice("stopped")));
    ctx.log(
      doubt.moved
        ? `job ${id}: uncertain (its worker died after dispatch; not re-sent)`
        : `job ${id}: dispatched and still beating elsewhere; left alone`,
    );
    return doubt.moved ? "uncertain" : "skipped";
  }
  // Recorded uncertain by a reader (`seat jobs show`, a watcher) that noticed the heartbeat gone: the worker that
  // recovers the job tells it, as it would have had it recorded it (the claim keeps it to once across the fleet).
  if (took.current === "uncertain") jr.tell(...uncertainNotice("stopped"));
  ctx.log(`job ${id}: already ${took.current || "gone"}; nothing to do`);
  return "skipped";
}

/**
 * After a stalled-job recovery that found the old run still beating: re-checks until the beat lapses (recording
 * the job uncertain, as any reader may) or the job is no longer dispatched; calls `uncertain` when it is uncertain.
 * Bounded by three heartbeat lifetimes; a Redis error ends the watch (a reader then records it, untold).
 */
async function watchForUncertain(ctx: RunContext, id: string, uncertain: () => void): Promise<void> {
  const until = Date.now() + 3 * HEARTBEAT_TTL_MS;
  try {
    while (Date.now() < until && !ctx.isClosing()) {
      await new Promise((r) => setTimeout(r, HEARTBEAT_EVERY_MS));
      await settleDerivedUncertain(ctx.redis, id, ctx.workerId, ctx.retainSeconds);
      const [status, alive, run] = await Promise.all([
        ctx.redis.hget(jobKeys(id).state, "status"),
        ctx.redis.get(jobKeys(id).alive),
        ctx.redis.hget(jobKeys(id).state, "run"),
      ]);
      if (status === "uncertain" && alive !== run) return uncertain();
      if (status !== "dispatched" && status !== "uncertain") return;
    }
  } catch {
    // the watch is a courtesy: the job's record is right without it
  }
}
