/*
 * Cancelling a fleet job this worker runs.
 * Owns: the running job as the cancel listener sees it (`RunningJob`), the acknowledgement a cancel records on the
 *   job (compare-and-set on the run token), and the cancel of its turn, repeated so one that raced the prompt's
 *   start is not lost.
 * Does not own: hearing the cancel (worker.ts subscribes, the run's heartbeat re-reads the key: job-run.ts), ending
 *   a job cancelled before dispatch (job-end.ts).
 */
import type { SupervisedTurn } from "../turn/index.js";
import type { Redis } from "ioredis";
import type { HeadlessSession } from "../runtime/index.js";
import { setIfRun } from "./state.js";

/** A job this worker is running, as the cancel listener sees it. */
export interface RunningJob {
  id: string;
  run: string;
  cancelled: boolean;
  session?: HeadlessSession;
  /** The job's supervised turn, once opened: the run's clean-up closes it (the session disposed first). */
  turn?: SupervisedTurn;
  turnRunning: boolean;
  /** Reads this job's answered approvals now (the worker calls it when an answer is announced). */
  readAnswers?: () => void;
}

/** What acknowledging a cancel needs from the worker. */
export interface CancelContext {
  redis: Redis;
  workerId: string;
  log(line: string): void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Acts on a cancel for a running job: records the acknowledgement (only while this run owns it), cancels the turn. */
export async function acknowledgeCancel(ctx: CancelContext, entry: RunningJob): Promise<void> {
  const first = !entry.cancelled;
  const cancelling = cancelTurn(entry);
  if (first)
    await setIfRun(ctx.redis, entry.id, entry.run, {
      cancel_acked_by: ctx.workerId,
      cancel_acked_at: Date.now(),
    }).catch(() => undefined);
  await cancelling;
}

/** Cancels a running turn now and again shortly after (a cancel that raced the prompt's start is not lost). */
export async function cancelTurn(entry: RunningJob): Promise<void> {
  entry.cancelled = true;
  for (const delayMs of [0, 150, 500]) {
    if (delayMs) await sleep(delayMs);
    if (!entry.turnRunning) return;
    await entry.session?.cancel().catch(() => undefined);
  }
}
