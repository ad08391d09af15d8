/*
 * Worktrees: one git worktree per seat — created under the seat home on branch seat/<name>, a commit per turn,
 *   then review (list, diff), merge into the user's branch, or discard.
 * Owns: the front door of worktrees/.
 * Does not own: running agents (runtime/, sessions/) or the CLI verbs (cli/).
 * Spec: docs/worktrees.md
 */
export { GIT_MIN_VERSION, SEAT_IDENTITY, gitEnv, isGitRecentEnough, parseGitVersion } from "./git.js";
export { resolveRepository } from "./repo.js";
export type { Repository } from "./repo.js";
export { WORKTREE_RECORD_SCHEMA, listRecords, readRecord, worktreePath } from "./records.js";
export type { WorktreeRecord } from "./records.js";
export { createWorktree } from "./create.js";
export type { CreateWorktreeOptions, CreatedWorktree } from "./create.js";
export { commitTurn, turnCommitMessage } from "./commit.js";
export type { TurnCommit } from "./commit.js";
export { diffWorktree, findWorktree, listWorktrees, shortStat, worktreeStatus } from "./review.js";
export type { WorktreeStatus } from "./review.js";
export { mergeWorktree } from "./merge.js";
export type { MergeMode, MergeOptions, MergeResult } from "./merge.js";
export { discardWorktree } from "./discard.js";
export { deadHolder, lockWorktree, worktreeHolder } from "./lock.js";
export type { WorktreeHolder, WorktreeLock } from "./lock.js";
export type { DiscardResult } from "./discard.js";
export { cacheDir, finishJobWorktree, prepareJobWorktree } from "./remote.js";
export type { JobWorktree, JobWorktreeResult } from "./remote.js";
export { existingTurnWorktree, finishTurnWorktree, planTurnWorktree } from "./turn.js";
export type { TurnWorktree, TurnWorktreeOptions, TurnWorktreePlan } from "./turn.js";
