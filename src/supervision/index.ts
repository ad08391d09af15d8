/*
 * Supervision front door: what reads across processes — every run listed, approvals answered through
 *   another process's socket or through Redis, and the runs they reach. Listing every run is listing/; restoring
 *   what a reboot took is restore/.
 * Owns: the list of names other rooms may import from supervision/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../supervision/index.js", never a file inside supervision/.
 */
export { listApprovals, answerApproval } from "./approvals.js";
export type { ApprovalsOptions } from "./approvals.js";
export { remoteRuns, candidateSockets } from "./remote.js";
export type { RemoteRun } from "./remote.js";
export type { PendingApproval } from "./approvals-source.js";
export type { ApprovalsSource } from "./approvals-source.js";
export { approvalBelongsTo } from "./approvals-source.js";
