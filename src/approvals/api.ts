/*
 * Approvals API: listApprovals() and answerApproval() — every held approval this user can answer.
 * Owns: combining this process's queues (local.ts) with the other live runs of this user (remote.ts).
 * Does not own: holding (queue.ts), the socket (sessions/), Redis (fleet/).
 * Invariant: an answer reaches at most the one run that holds the id; that run's queue decides first-wins, so
 *   a second answer from anywhere is told APPROVAL_ALREADY_ANSWERED naming the first.
 */
import { SeatError, isSeatError } from "../errors.js";
import type { PendingApproval } from "../acp/index.js";
import { assertApprovalId, parseAnswer } from "./answer.js";
import { processApprovals } from "./local.js";
import { localQueues, type ApprovalAnswer } from "./queue.js";
import { answerRemote, remoteRuns } from "./remote.js";

/** Where to look: `redis` (fleet jobs) is not served yet and is refused rather than ignored. */
export interface ApprovalsOptions {
  redis?: string;
  /** Environment whose GROK_SEAT_HOME / HOME locates the control sockets. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

function refuseRedis(options: ApprovalsOptions | undefined): void {
  if (options?.redis !== undefined) {
    throw new SeatError("APPROVAL_FLEET_UNSUPPORTED", "Fleet approvals (--redis) are not available in this version: fleet jobs still deny a call that needs approval (PERMISSION_NO_APPROVER). Allow the category when submitting (--allow), or run the prompt locally with seat run.", { context: { redis: "given" } });
  }
}

/** Every pending approval of this user on this machine: this process's sessions, then the other live runs. */
export async function listApprovals(options?: ApprovalsOptions): Promise<PendingApproval[]> {
  refuseRedis(options);
  const remote = await remoteRuns(options?.env ? { env: options.env } : {});
  return [...processApprovals.list(), ...remote.flatMap((r) => r.approvals)];
}

/**
 * Answers one pending approval wherever it is held. Throws APPROVAL_ANSWER_INVALID (malformed), APPROVAL_NOT_FOUND,
 * APPROVAL_ALREADY_ANSWERED (naming the first answer) or APPROVAL_EXPIRED.
 */
export async function answerApproval(id: string, answer: ApprovalAnswer, options?: ApprovalsOptions): Promise<{ id: string; decision: "allow" | "deny" }> {
  assertApprovalId(id);
  const checked = parseAnswer(answer);
  refuseRedis(options);
  if (localQueues().some((q) => q.knows(id))) return processApprovals.answer(id, checked);
  const runs = await remoteRuns(options?.env ? { env: options.env } : {});
  // The run listing it pending first; else every run, since a settled id is no longer listed but still known.
  const holder = runs.find((r) => r.approvals.some((a) => a.id === id));
  const ordered = holder ? [holder] : runs;
  for (const run of ordered) {
    try {
      return await answerRemote(run, id, checked);
    } catch (error) {
      if (!isSeatError(error)) continue;
      if (error.code !== "APPROVAL_NOT_FOUND") throw error;
    }
  }
  throw new SeatError("APPROVAL_NOT_FOUND", `No pending approval has id ${id} in this user's live runs. List them with \`seat approvals\`.`, { context: { id, runs: runs.length } });
}
