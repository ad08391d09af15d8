/*
 * This process's approvals: every live queue (each session holding approvals) seen as one.
 * Owns: processApprovals — what the run's control socket serves to `seat approvals` / `seat approve`.
 * Does not own: the queues (queue.ts) or the socket (sessions/control.ts).
 */
import { SeatError } from "../errors.js";
import type { PendingApproval } from "../acp/index.js";
import { assertApprovalId, parseAnswer } from "./answer.js";
import { localQueues, queueFor } from "./queue.js";

/** The held approvals of every live session in this process: list them, answer one (first answer wins). */
export const processApprovals = {
  list(): PendingApproval[] {
    return localQueues().flatMap((q) => q.list());
  },
  /** Throws APPROVAL_ANSWER_INVALID, APPROVAL_NOT_FOUND, APPROVAL_ALREADY_ANSWERED or APPROVAL_EXPIRED. */
  answer(id: unknown, answer: unknown): { id: string; decision: "allow" | "deny" } {
    assertApprovalId(id);
    const checked = parseAnswer(answer);
    const queue = queueFor(id);
    if (!queue) throw new SeatError("APPROVAL_NOT_FOUND", `No pending approval has id ${id}. List them with \`seat approvals\`.`, { context: { id } });
    return queue.answer(id, checked);
  },
};
