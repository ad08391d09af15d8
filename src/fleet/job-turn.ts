/*
 * A fleet job's turn: the supervised turn every door runs (turn/), opened, fenced by the run, sent.
 * Owns: opening the job's supervised turn (a fresh session, or the named session the job continues; no control
 *   socket — a job is steered through Redis; its ledger rows name the job), the hand-over of the session to the
 *   cancel listener, the one send, and the cancel that arrived before the turn started.
 * Does not own: what must hold before the prompt is sent (the caller's `beforeSend`: `checkOpened` in job-prepare.ts,
 *   then job-fence.ts), closing the turn (job-settle.ts, run-job.ts), what the result means (job-settle.ts).
 * Invariant: the prompt is sent at most once, and only after `beforeSend` said nothing stops it.
 */
import type { TurnResult } from "../acp/index.js";
import { isSeatError } from "../errors.js";
import type { HeadlessSession, SessionOptions } from "../runtime/index.js";
import { prepareSupervisedTurn, type SupervisedTurn } from "../turn/index.js";
import { cancelTurn, type RunningJob } from "./job-cancel.js";

/** What a job's turn needs. */
export interface JobTurnInput {
  /** The job's id: its ledger rows name it. */
  jobId: string;
  options: SessionOptions;
  /** The named session the job continues, and how long it waits for that session's lease (ms). */
  named?: { name: string; waitMs: number };
  prompt: string;
  promptId: string;
  /**
   * The cancel listener's view of the job: it gets the session as soon as the session exists (so the run's clean-up
   * disposes it), is marked running for the turn, and a cancel it heard before the turn started is applied.
   */
  entry: RunningJob;
}

/** How a job's turn went: not started (busy, or a session that did not start), stopped before the prompt, or sent. */
export type JobTurn<Stop> =
  | { busy: true }
  | { notStarted: { code: string; message: string } }
  | { stopped: Stop }
  | { turn: SupervisedTurn; result: TurnResult };

/**
 * Opens the job's session and, once `beforeSend` resolves undefined, sends the prompt and resolves its result.
 * `beforeSend` gets the ready session and may stop the turn with a value (nothing is sent). The turn is left open:
 * closing it is the caller's (the session is disposed by close()). A named session whose turn runs elsewhere resolves `busy` (SESSION_BUSY).
 */
export async function jobTurn<Stop>(
  input: JobTurnInput,
  beforeSend: (session: HeadlessSession) => Promise<Stop | undefined>,
): Promise<JobTurn<Stop>> {
  const { options, named, entry } = input;
  const prepared = await prepareSupervisedTurn({
    ...options,
    control: false,
    // A job works where its spec says (or in its repo clone): never in a named session's earlier seat worktree.
    worktree: false,
    ledger: { source: "job", jobId: input.jobId },
    ...(named ? { named: { name: named.name, waitMs: named.waitMs } } : {}),
  });
  let turn: SupervisedTurn;
  try {
    turn = await prepared.open();
  } catch (error) {
    // Another turn of this named session runs (here): the job queues behind it rather than fail.
    if (isSeatError(error) && error.code === "SESSION_BUSY") return { busy: true };
    throw error;
  }
  entry.session = turn.session;
  entry.turn = turn;
  if (!turn.ready) {
    const d = turn.failure;
    return { notStarted: { code: d?.code ?? "ACP_SESSION_DEAD", message: d?.message ?? "the session did not start" } };
  }
  const stop = await beforeSend(turn.session);
  if (stop !== undefined) return { stopped: stop };
  entry.turnRunning = true;
  const sending = turn.send(input.prompt, { promptId: input.promptId });
  if (entry.cancelled) void cancelTurn(entry);
  const result = await sending;
  entry.turnRunning = false;
  return { turn, result };
}
