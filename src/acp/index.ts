/*
 * ACP front door: the session core both seats share — connection, update mapping, events, diagnostics.
 */
export { connectAcp, isAuthRequired } from "./connection.js";
export type { AcpHandlers, AcpPeer } from "./connection.js";
export { SessionCore } from "./session-core.js";
export { CallbackQueue, stuckDiagnostic } from "./callback-queue.js";
export type { StuckCallback } from "./callback-queue.js";
export { checkPromptInput } from "./prompt-input.js";
export type { PromptOptions, TurnResult, PromptContent } from "./session-core.js";
export { mapSessionUpdate, mapExtNotification, readUsage, isTerminalToolStatus, sessionIdOf } from "./updates.js";
export { turnDiagnostic, createDiagnostic } from "./diagnostics.js";
export type { TurnOutcome } from "./diagnostics.js";
export { ACP, X_AI } from "./methods.js";
export type {
  SeatEvent,
  SeatEventType,
  SeatCallbacks,
  Diagnostic,
  PlanEntry,
  Usage,
  QueueState,
  PendingApproval,
} from "./events.js";
