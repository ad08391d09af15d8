/*
 * Approvals front door: permission requests held for a person, answered from this process or from another
 * shell of the same user (the run's control socket).
 * Owns: the public names of approvals/ (listed by hand; adding one is an API decision).
 */
export { ApprovalQueue, DEFAULT_APPROVAL_TIMEOUT_MS, localQueues, queueFor } from "./queue.js";
export type { ApprovalAnswer, ApprovalOwner, ApprovalQueueOptions } from "./queue.js";
export { parseAnswer, assertApprovalId, assertDigest } from "./answer.js";
export { processApprovals } from "./local.js";
export { describeRequest, targetDigest, canonicalTarget, TARGET_DIGEST_SCHEMA } from "./target.js";
export { recordApprovalsIn, approvalRecordsDir } from "./record.js";
export type { PendingApproval } from "../acp/index.js";
export { maskView, visibleText, targetText, shortTarget, SHORT_TARGET_CHARS } from "./display.js";
export { isLocalApproval } from "./local.js";
export { readApprovalRecord } from "./record.js";
