/*
 * The dispatch fence of a fleet job: the `dispatched` mark, written and confirmed before the prompt is sent.
 * Owns: waiting for the replicas that count to be online, the guarded transition active → dispatched (compare-and-set
 *   on the run token, after the run's events so far), and — with replicas — the confirmation that every replica
 *   that could be promoted holds the mark; a mark not confirmed ends the job uncertain (`replication-unconfirmed`),
 *   never sent, and a mark the primary lost in a failover hands the job back to be run.
 * Does not own: the transitions and the mark's refresh (state.ts), the replicas' acknowledgement (replication.ts).
 * Invariant: the prompt is sent only after `dispatched` was written by the guarded transition and Redis (and the
 *   replicas that count) acknowledged it; from then on the job is never prompted again.
 */
import { end, handBack, SESSION_RETRY_MS } from "./job-end.js";
import { persist, viaRedis, type JobRun } from "./job-run.js";
import { awaitReplicasOnline, confirmReplicated } from "./replication.js";
import { touchMark, transition } from "./state.js";

/** How long a job waits before its mark for the counted replicas to be in sync (ms), then goes back to its queue. */
export const REPLICAS_WAIT_MS = 3_000;

/**
 * Writes job `jr`'s dispatch mark for prompt `promptId` and confirms it. Resolves undefined when the prompt may be
 * sent now (`jr.dispatched` is set), else what the processor returns: "skipped" (another run holds the job) or
 * "uncertain" (the mark was not confirmed; nothing was sent). A Redis error before the mark rejects
 * FLEET_REDIS_UNAVAILABLE; a hand-back throws BullMQ's WaitingError or DelayedError.
 */
export async function fenceDispatch(jr: JobRun, promptId: string): Promise<"skipped" | "uncertain" | undefined> {
  const { ctx, id, redis } = jr;
  // A counted replica that is resyncing (after a failover, say) could not acknowledge a mark now: nothing is
  // written yet, so the job waits a little, then goes back to its queue (never uncertain for it).
  if (ctx.replication && ctx.replication.rule().required > 0) {
    const required = ctx.replication.rule().required;
    const online = await viaRedis(awaitReplicasOnline(redis, required, REPLICAS_WAIT_MS));
    if (online < required) return await handBack(jr, "replicas-behind", SESSION_RETRY_MS);
  }
  await jr.stream.settled();
  const epochBefore = ctx.replication?.epoch() ?? 0;
  const fenced = await viaRedis(
    transition(redis, id, {
      from: ["active"],
      to: "dispatched",
      run: jr.run,
      fields: { prompt_id: promptId, dispatched_at: Date.now() },
      event: { ...jr.tag, promptId },
    }),
  );
  if (!fenced.moved) {
    ctx.log(`job ${id}: not dispatched (it is ${fenced.current || "gone"})`);
    return "skipped";
  }
  // The mark counts only once every replica that could be promoted has it (replication.ts); until then nothing is sent.
  if (ctx.replication) {
    const rule = ctx.replication.rule();
    const ack = await confirmReplicated(
      redis,
      ctx.replication.epoch,
      epochBefore,
      rule.required,
      ctx.replication.timeoutMs,
      () => touchMark(redis, id, jr.run),
    );
    // The primary the connection follows now has no mark of this run: the failover lost it with the write, nothing
    // was sent, and no primary to come can say `dispatched` for this run (the old one resyncs from this one), so
    // the job goes back to its queue to run — never uncertain, and never left `active` under a run that returned.
    if (!ack.confirmed && ack.lost) return await handBack(jr, "mark-lost-in-failover");
    if (!ack.confirmed) {
      const message = `the dispatch mark was ${ack.lost ? "lost by the primary before its replicas had it" : `acknowledged by ${Math.max(0, ack.acknowledged)} of the ${ack.required} replica(s) that could be promoted within ${ctx.replication.timeoutMs} ms`}; the prompt was not sent, but a future primary may still hold the mark`;
      const fields = { code: "FLEET_REPLICATION_UNCONFIRMED", message, uncertain_reason: "replication-unconfirmed" };
      const unsent = () =>
        end(
          jr,
          "uncertain",
          fields,
          {
            code: "FLEET_REPLICATION_UNCONFIRMED",
            reason: "replication-unconfirmed",
            required: ack.required,
            acknowledged: ack.acknowledged,
          },
          true,
        );
      // The run's own word (never sent) must outlive the failover too: written on the primary the connection
      // follows now (over a heartbeat-lost a reader may have recorded meanwhile), and confirmed like the mark —
      // a write that landed on a primary about to be demoted is written again after the move. The heartbeat
      // stops once the end is written: a beat re-judges this run's `uncertain` as a live turn (`dispatched`).
      const endEpoch = ctx.replication.epoch();
      const ended = await persist(jr.persistMs, unsent);
      jr.stopHeartbeat();
      if (ended?.moved)
        await confirmReplicated(
          redis,
          ctx.replication.epoch,
          endEpoch,
          ctx.replication.rule().required,
          Math.max(ctx.replication.timeoutMs, 5_000),
          async () => (await unsent()).moved,
        ).catch(() => undefined);
      ctx.log(`job ${id}: uncertain (replication-unconfirmed): ${message}`);
      return "uncertain";
    }
  }
  jr.dispatched = true;
  return undefined;
}
