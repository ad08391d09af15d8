/*
 * A fleet job's turn: open the agent session, let the run fence it, send the prompt.
 * Owns: opening the session (fresh, or the named session the job continues), the hand-over of the session to the
 *   cancel listener, the one call of `prompt()`, and the cancel that arrived before the turn started.
 * Does not own: what must hold before the prompt is sent (the caller's `beforeSend`: `checkOpened` in job-prepare.ts,
 *   then job-fence.ts), disposing the session (job-settle.ts, run-job.ts), what the result means (job-settle.ts).
 * Invariant: `prompt()` is called at most once, and only after `beforeSend` said nothing stops it.
 */
import type { TurnResult } from "../acp/index.js";
import { isSeatError } from "../errors.js";
import { createSession, type HeadlessSession, type SessionOptions } from "../runtime/index.js";
import { openSession } from "../sessions/index.js";
import { cancelTurn, type RunningJob } from "./job-cancel.js";

/** What a job's turn needs. */
export interface JobTurnInput {
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
  | { session: HeadlessSession; result: TurnResult };

/**
 * Opens the job's session and, once `beforeSend` resolves undefined, sends the prompt and resolves its result.
 * `beforeSend` gets the ready session and may stop the turn with a value (nothing is sent). The session is left open:
 * disposing it is the caller's. A named session whose turn runs elsewhere resolves `busy` (SESSION_BUSY).
 */
export async function jobTurn<Stop>(
  input: JobTurnInput,
  beforeSend: (session: HeadlessSession) => Promise<Stop | undefined>,
): Promise<JobTurn<Stop>> {
  const { options, named, entry } = input;
  let session: HeadlessSession;
  if (named) {
    try {
      session = (await openSession({ ...options, name: named.name, waitMs: named.waitMs })).session;
    } catch (error) {
      // Another turn of this named session runs (here): the job queues behind it rather than fail.
      if (isSeatError(error) && error.code === "SESSION_BUSY") return { busy: true };
      throw error;
    }
  } else session = await createSession(options);
  entry.session = session;
  if (session.state !== "ready") {
    const d = session.diagnostics[0];
    return { notStarted: { code: d?.code ?? "ACP_SESSION_DEAD", message: d?.message ?? "the session did not start" } };
  }
  const stop = await beforeSend(session);
  if (stop !== undefined) return { stopped: stop };
  entry.turnRunning = true;
  const turn = session.prompt(input.prompt, { promptId: input.promptId });
  if (entry.cancelled) void cancelTurn(entry);
  const result = await turn;
  entry.turnRunning = false;
  return { session, result };
}
