/*
 * grok-seat library front door: every public name, listed by hand (no `export *`).
 * Adding a name here is an API decision; test/integration/package/exports.test.ts pins the list.
 * The offline test rig (mock model, sandbox) is the `grok-seat/testing` subpath (src/testing.ts), not this door.
 */
export { SeatError, isSeatError, ERROR_CODES } from "./errors.js";
export type { ErrorCode, ErrorContext } from "./errors.js";

// Headless seat
export { createSession, probeAcp } from "./runtime/index.js";
export { chooseAuthMethod } from "./agents/index.js";
export type {
  HeadlessSession,
  SessionState,
  SessionOptions,
  PermissionHook,
  PermissionDecider,
  PromptInput,
  AuditEvent,
  AcpProbe,
} from "./runtime/index.js";

// Named sessions (outlive one process; no daemon)
export { openSession } from "./sessions/index.js";
export type { OpenSessionOptions, OpenedSession } from "./sessions/index.js";
export type { SessionRecord, TurnRecord } from "./session-store/index.js";

// The supervised turn: every door's recipe (session, control socket, approvals, ledger, worktree, notifications)
export { prepareSupervisedTurn, runSupervisedTurn } from "./turn/index.js";
export type {
  ClosedTurn,
  PreparedTurn,
  SupervisedTurn,
  SupervisedTurnOptions,
  SupervisedTurnOutcome,
  TurnLedger,
} from "./turn/index.js";

// Visible seat
export { hireSeat, VisibleSeat, VERIFIED_VERSION_FLOOR } from "./seat/index.js";
export type { HireSeatOptions, DeliverOptions, ReleaseResult } from "./seat/index.js";

// Shared session core and events
export { SessionCore, connectAcp, turnDiagnostic } from "./acp/index.js";
export type {
  SeatEvent,
  SeatEventType,
  SeatCallbacks,
  Diagnostic,
  PlanEntry,
  Usage,
  QueueState,
  TurnResult,
  PromptOptions,
} from "./acp/index.js";

// The grok binary
export {
  resolveGrokBinary,
  ensureGrokBinary,
  probeGrok,
  parseGrokVersion,
  compareVersions,
  parseGrokModels,
  listGrokModels,
  normalizeModelSelection,
  laneMarker,
} from "./grok/index.js";
export type { GrokBinary, GrokProbe, GrokModels } from "./grok/index.js";

// Host tools, permissions, skills
export { createToolBridge, projectSchema } from "./tools/index.js";
export { toAcpMcpServers } from "./runtime/index.js";
export { HostToolError } from "./tools/index.js";
export type { HostTool, ToolBridge } from "./tools/index.js";
export type { OperatorMcpServer } from "./runtime/index.js";
export {
  createPermissionGate,
  parsePolicyFlags,
  loadPolicyFile,
  categorize,
  DEFAULT_POLICY,
} from "./permissions/index.js";
export type { PermissionPolicy, PermissionCategory, Approver, PermissionGate } from "./permissions/index.js";
export { stageSkills } from "./skills/index.js";
export type { StagedSkills } from "./skills/index.js";

// Fleets: jobs on BullMQ and Redis, workers on many hosts (docs/fleet.md)
// Loaded on first call (fleet-on-use/index.ts): importing grok-seat loads neither BullMQ nor ioredis.
export { connectFleet, enqueue, startWorker } from "./fleet-on-use/index.js";
export type {
  FleetClient,
  FleetClientOptions,
  JobRequest,
  JobHandle,
  JobResult,
  EventsOptions,
  FleetWorker,
  WorkerOptions,
  JobStatus,
  JobRecord,
  FleetEvent,
  JobEvent,
  CursorEvent,
} from "./fleet/index.js";

// Attention: one state for everything that runs (docs/supervision.md)
export type { AttentionState, StateEvent, WaitingOn, AttentionSnapshot } from "./attention/index.js";

// After a reboot: what was lost, and bringing it back (docs/restore.md); loaded on first call
export { listLost, restoreLost } from "./restore/index.js";
export type { LiveItem } from "./listing/index.js";
export type { Restored } from "./restore/index.js";

// Notifications a person away from the terminal receives (docs/notifications.md)
export { createNotifier, notifyFromEvents, NOTIFY_EVENT_SCHEMA } from "./notify/index.js";
export { createNotifyEvent, parseNotifyConfig, chooseTargets } from "./notify-config/index.js";
export type { Notifier, NotifierOptions, DeliveryOutcome } from "./notify/index.js";
export type {
  NotifyConfig,
  NotifyTarget,
  NotifyEvent,
  NotifyEventName,
  NotifySubject,
  NotifyApproval,
} from "./notify-config/index.js";

// Worktrees: one git worktree per seat, a commit per turn, then review, merge or discard (docs/worktrees.md)
export {
  createWorktree,
  commitTurn,
  listWorktrees,
  findWorktree,
  diffWorktree,
  mergeWorktree,
  discardWorktree,
} from "./worktrees/index.js";
export type {
  CreateWorktreeOptions,
  CreatedWorktree,
  WorktreeRecord,
  WorktreeStatus,
  TurnCommit,
  MergeMode,
  MergeOptions,
  MergeResult,
  DiscardResult,
} from "./worktrees/index.js";
// A supervised turn's worktree, as `seat run --worktree` and the MCP run tool take it (docs/supervision.md)
export { planTurnWorktree, finishTurnWorktree } from "./worktrees/index.js";
export type { TurnWorktree, TurnWorktreeOptions, TurnWorktreePlan } from "./worktrees/index.js";

// Approvals held for a person (docs/supervision.md)
export { listApprovals, answerApproval } from "./supervision/index.js";
export type { PendingApproval, ApprovalAnswer } from "./approvals/index.js";
export type { ApprovalsOptions } from "./supervision/index.js";

// Spend: the usage ledger, budgets and the operator's prices (docs/spend.md)
export { queryUsage } from "./usage/index.js";
export { loadPrices, computeCost } from "./metering/index.js";
export type { UsageQuery, UsageTotals, UsageGrouping } from "./usage/index.js";
export type { TurnBudget, PriceTable, ModelPrice, SideCallUsage } from "./metering/index.js";
