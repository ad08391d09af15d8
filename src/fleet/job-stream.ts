/*
 * A fleet job's events on their way to its Redis stream, and its held approvals.
 * Owns: the chain that appends the session's events in the order it produced them (each under this run's mark, so
 *   a re-sent append lands once), the turn's `done` held back for the end transition, the session's attention state
 *   kept on the record, and the approvals the turn holds: published to Redis before their event, settled when
 *   answered, and read back when another host answered them.
 * Does not own: the stream and approval records themselves (events.ts, approvals.ts), the end transition
 *   (job-end.ts), delivering notices (notify.ts).
 * Invariant: a transition that follows an event waits for `settled()`, so a reader never sees an end before the
 *   events that led to it; every write is compare-and-set on the run token or idempotent under its mark.
 */
import type { Redis } from "ioredis";
import type { SeatEvent } from "../acp/index.js";
import { isSeatError } from "../errors.js";
import { parseAnswer, queueFor } from "../approvals/index.js";
import { ANSWER_POLL_MS, publishApproval, readAnswers, settleApproval } from "./approvals.js";
import { appendEvent } from "./events.js";
import { approvalNotice, type JobNotice } from "./job-notices.js";
import { setIfRun } from "./state.js";

/** Events `seat run --json` does not print are not streamed either. */
const QUIET = new Set(["queue", "mcp_initialized", "prompt_complete", "user_text"]);

/** Where one run's stream goes. */
export interface JobStreamOptions {
  redis: Redis;
  id: string;
  run: string;
  retainSeconds: number;
  /** Tells the job's notification targets (never throws, never waits). */
  tell(...notice: JobNotice): void;
}

/** The event stream of one run of a job: the session's `onEvent`, and what the run's steps wait on. */
export class JobStream {
  /**
   * The turn's `done`, held back and appended by the end transition itself (one atomic step), so a worker that dies
   * between the two leaves neither: a watcher never sees `done` on a job that then reads `uncertain`.
   */
  heldDone: SeatEvent | undefined;
  /** Appends so far: each event's mark is this run's token and its number, so a re-sent append lands once. */
  private appended = 0;
  private chain: Promise<unknown> = Promise.resolve();
  private asked = 0;
  private readonly pendingApprovals = new Set<string>();
  private answerPoll: NodeJS.Timeout | undefined;

  constructor(private readonly o: JobStreamOptions) {}

  /** Resolves once every event so far reached the stream (or failed to): a transition that follows waits for it. */
  settled(): Promise<unknown> {
    return this.chain;
  }

  /** Stops reading answers back (the run is over). */
  stop(): void {
    clearInterval(this.answerPoll);
  }

  /** The session's event callback: events reach the stream in the order the session produced them. */
  readonly onEvent = (event: SeatEvent): void => {
    const { redis, id, run } = this.o;
    if (QUIET.has(event.type)) return;
    if (event.type === "done") {
      this.heldDone = event;
      return;
    }
    const mark = `${run}:${++this.appended}`;
    this.chain = this.chain
      .then(() => this.trackApprovals(event))
      .catch(() => undefined)
      .then(() => appendEvent(redis, id, event, mark))
      .catch(() => undefined);
    // The session's attention state is also kept on the record (only while it names this run), so a lister
    // (`seat ps --redis`) reads one hash per job instead of scanning its stream.
    if (event.type === "state") {
      const fields = {
        attention_state: event.state,
        attention_since: event.since,
        attention_waiting_on: event.waitingOn ?? "",
      };
      this.chain = this.chain.then(() => setIfRun(redis, id, run, fields)).catch(() => undefined);
    }
  };

  // Held approvals: published to Redis before their event, answered from any host, read back here
  // as soon as the answer is announced on APPROVAL_ANSWERED_CHANNEL (worker.ts), and every ANSWER_POLL_MS in case
  // the announcement was lost (pub/sub is at most once).
  /** Reads this job's answered approvals now and hands each to the queue that holds it. */
  readonly pollAnswers = async (): Promise<void> => {
    for (const record of await readAnswers(this.o.redis, this.o.id, [...this.pendingApprovals]).catch(() => [])) {
      try {
        // Straight to this job's own queue: Redis already settled this answer (its compare-and-set).
        const queue = queueFor(record.view.id);
        if (!queue) continue;
        try {
          queue.answer(
            record.view.id,
            parseAnswer({
              decision: record.decision ?? "deny",
              ...(record.always ? { always: true } : {}),
              ...(record.by ? { by: record.by } : {}),
              ...(record.digest ? { digest: record.digest } : {}),
            }),
          );
        } catch (error) {
          // The digest the person saw is not the call this worker holds (the record was changed in Redis): deny it.
          if (!(isSeatError(error) && error.code === "APPROVAL_TARGET_CHANGED")) throw error;
          queue.answer(record.view.id, {
            decision: "deny",
            by: `worker: ${record.by ?? "an answer"} named another target (APPROVAL_TARGET_CHANGED)`,
          });
        }
      } catch {
        // Settled here first (deadline, end of turn): the local outcome stands and is recorded by its event.
      }
    }
  };

  private trackApprovals(event: SeatEvent): Promise<unknown> {
    const { redis, id, run, retainSeconds } = this.o;
    if (event.type === "approval_asked") {
      // The n-th approval of this job: a job is never prompted twice, so no other worker asks its n-th again.
      this.o.tell(...approvalNotice(event.approval, ++this.asked));
      this.pendingApprovals.add(event.approval.id);
      this.answerPoll ??= setInterval(() => void this.pollAnswers(), ANSWER_POLL_MS);
      return publishApproval(redis, id, run, event.approval, retainSeconds);
    }
    if (event.type === "approval_answered") {
      this.pendingApprovals.delete(event.id);
      const why = event.via === "timeout" ? "timeout" : event.via === "expired" ? "turn-ended" : undefined;
      return settleApproval(redis, id, event.id, {
        state: why ? "expired" : "answered",
        decision: event.decision,
        ...(why ? { why } : {}),
      });
    }
    return Promise.resolve();
  }
}
