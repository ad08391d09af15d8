/*
 * This process's approvals: every live queue (each session holding approvals) seen as one.
 * Owns: processApprovals — what the run's control socket serves to `seat approvals` / `seat approve`.
 * Does not own: the queues (queue.ts) or the socket (control/socket.ts).
 */
import { SeatError } from "../errors.js";
import type { PendingApproval } from "../acp/index.js";
import { assertApprovalId, parseAnswer } from "./answer.js";
import { localQueues, queueFor } from "./queue.js";

/**
 * True when approval `id` is held in this process and is not a fleet job's: a job's approval is answered only
 * through Redis (its compare-and-set on the approval, the job and the run token), never over a local socket.
 */
export function isLocalApproval(id: string): boolean {
  const queue = queueFor(id);
  return queue !== undefined && !queue.list().some((a) => a.id === id && a.owner.kind === "job");
}

/** The held approvals of every live session in this process but fleet jobs': list them, answer one (first answer wins). */
export const processApprovals = {
  list(): PendingApproval[] {
    return localQueues()
      .flatMap((q) => q.list())
      .filter((a) => a.owner.kind !== "job");
  },
  /** Throws APPROVAL_ANSWER_INVALID, APPROVAL_NOT_FOUND, APPROVAL_ALREADY_ANSWERED or APPROVAL_EXPIRED. */
  answer(id: unknown, answer: unknown): { id: string; decision: "allow" | "deny" } {
    assertApprovalId(id);
    const checked = parseAnswer(answer);
    const queue = isLocalApproval(id) ? queueFor(id) : undefined;
    if (!queue)
      throw new SeatError(
        "APPROVAL_NOT_FOUND",
        `No pending approval has id ${id}. List them with \`seat approvals\`.`,
        { context: { id } },
      );
    return queue.answer(id, checked);
  },
};
