/*
 * Running one fleet job on a worker: the fence across hosts, as the steps of one run.
 * Owns: the processor BullMQ calls, in the order a run goes — take the job (job-take.ts) → the checks before its
 *   session starts (job-prepare.ts) → the job's turn (job-turn.ts): open the session, the checks once it opened, the
 *   dispatch fence (job-fence.ts), send the prompt → settle the turn (job-settle.ts) → record the end (job-end.ts);
 *   how an error ends the run, and the clean-up every run ends with.
 * Does not own: BullMQ's queueing, locks and stall detection (worker.ts configures them), what a run shares
 *   (job-run.ts), the session itself (runtime/, sessions/), the permission decisions (permissions/).
 * Invariant: a job runs only when BullMQ's copy of its spec matches the seal its submitter wrote in its record
 *   (job-seal.ts; FLEET_JOB_TAMPERED / FLEET_JOB_UNSIGNED otherwise, before any session starts).
 *   The prompt is sent only after `dispatched` was written by the guarded transition and Redis
 *   acknowledged it; a job whose record says dispatched (or anything after) is never prompted again.
 *   Every write after the take — heartbeat, end, hand-back, cancel ack — is compare-and-set on this run's token,
 *   so a stale run (a worker that was stopped while another took the job) changes nothing.
 *   Before dispatch, nothing was sent: a Redis error or a shutdown hands the job back to be run (here or
 *   elsewhere), a busy named session puts it back behind the running turn, a cancel ends it cancelled. A mark
 *   the primary lost in a failover (the one the connection follows now does not hold it) is handed back too.
 */
import type { Job } from "bullmq";
import { settleBudget } from "./budget.js";
import { endBefore, endOnError, handBack, recordEnd, releaseHost, SESSION_RETRY_MS } from "./job-end.js";
import { fenceDispatch } from "./job-fence.js";
import { checkOpened, prepareJob } from "./job-prepare.js";
import { JobRun, type RunContext } from "./job-run.js";
import { settleTurn } from "./job-settle.js";
import { takeJob } from "./job-take.js";
import { jobTurn } from "./job-turn.js";
import { finishJobWorktree } from "../worktrees/index.js";
import { dropHeartbeat, type JobStatus } from "./state.js";

export { acknowledgeCancel, cancelTurn, type RunningJob } from "./job-cancel.js";
export { REPLICAS_WAIT_MS } from "./job-fence.js";
export { SESSION_RETRY_MS } from "./job-end.js";
export type { RunContext } from "./job-run.js";

/** How long a job waits for a named session's lease before going back behind the running turn (ms). */
export const SESSION_WAIT_MS = 2_000;

/** Runs job `job` (BullMQ's processor); resolves the final status it recorded. */
export async function runJob(ctx: RunContext, job: Job, token: string | undefined): Promise<JobStatus | "skipped"> {
  const jr = new JobRun(ctx, job, token);
  const refused = await takeJob(jr);
  if (refused) return refused;
  jr.start();
  try {
    const prepared = await prepareJob(jr);
    if (typeof prepared === "string") return prepared;
    const { spec, options } = prepared;
    const promptId = `fleet-${jr.id}`;
    // Between the session's start and the prompt: the checks once it opened, then the dispatch fence.
    const beforeSend = async () => (await checkOpened(jr, spec)) ?? (await fenceDispatch(jr, promptId));
    const turn = await jobTurn(
      {
        jobId: jr.id,
        options,
        ...(spec.session ? { named: { name: spec.session, waitMs: SESSION_WAIT_MS } } : {}),
        prompt: spec.prompt,
        promptId,
        entry: jr.entry,
      },
      beforeSend,
    );
    // Another turn of this named session runs (here): queue behind it rather than fail.
    if ("busy" in turn) return await handBack(jr, "session-busy", SESSION_RETRY_MS);
    if ("notStarted" in turn) return await endBefore(jr, "failed", turn.notStarted, { code: turn.notStarted.code });
    if ("stopped" in turn) return turn.stopped;
    const { status, fields, event } = await settleTurn(jr, spec, promptId, turn.turn, turn.result);
    await recordEnd(jr, status, fields, event);
    ctx.log(`job ${jr.id}: ${status}`);
    return status;
  } catch (error) {
    return await endOnError(jr, error);
  } finally {
    await cleanUp(jr);
  }
}

/** What every run that took its job ends with, in this order, whatever happened; never throws. */
async function cleanUp(jr: JobRun): Promise<void> {
  // Reserved but never sent (a session that did not start, a cancel, a hand-back): the budget gets it back.
  if (jr.reservation && !jr.dispatched) await settleBudget(jr.redis, jr.reservation, 0).catch(() => undefined);
  jr.stopHeartbeat();
  jr.stream.stop();
  jr.ctx.running.delete(jr.id);
  // The turn's close disposes the agent first; a session opened without one (none today) is disposed alone.
  if (jr.entry.turn) {
    const closed = await jr.entry.turn.close();
    for (const d of closed.diagnostics) jr.ctx.log(`job ${jr.id}: ${d.message}`);
  } else await jr.session?.dispose().catch(() => undefined);
  // A job that ended before its turn did (an error, no dispatch) leaves nothing: its worktree goes, unpushed.
  if (jr.tree)
    await finishJobWorktree(jr.tree, { promptId: `fleet-${jr.id}`, prompt: "" }, { push: false }).catch(
      () => undefined,
    );
  if (jr.claimedHost && !jr.opened) await releaseHost(jr).catch(() => undefined);
  await dropHeartbeat(jr.redis, jr.id, jr.run).catch(() => undefined);
}
