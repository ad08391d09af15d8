/*
 * Seat front door: the visible seat — hire, deliver, status, release — and its controller process.
 * Owns: the list of names siblings (cli/, bench/) may import from seat/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../seat/index.js", never a file inside seat/.
 */
export {
  VERIFIED_VERSION_FLOOR,
  admitLeader,
  admitSeat,
  leaderProtocolGaps,
  agentProtocolGaps,
  agentVersionOf,
} from "./admission.js";
export type { Admission, AdmissionInput } from "./admission.js";
export {
  LINEAR_MCP_HOST,
  LINEAR_DISABLE_STEP,
  findLinearEndpoints,
  assertCatalogReady,
  assertNativeOption,
  assertSelectionEcho,
  configOptionsOf,
  nativeModelIds,
} from "./readiness.js";
export type { ConfigOption } from "./readiness.js";
export {
  buildHirePlan,
  buildTuiEnv,
  createSocketDir,
  newSeatId,
  MAX_SOCKET_PATH_BYTES,
  TUI_ENV_ALLOW_LIST,
} from "./plan.js";
export type { HirePlan, PlanInput } from "./plan.js";
export { awaitHandshake } from "./handshake-wait.js";
export type { HandshakeLimits, HandshakeReadiness, HandshakeResend, HandshakeWatch } from "./handshake-wait.js";
export {
  bindTui,
  reproveTui,
  bindLeader,
  proveSeatLeader,
  reproveForDispatch,
  readLockPid,
  waitForActiveSession,
  observeExit,
  waitForExitObserved,
  assertProven,
} from "./proof.js";
export type { TuiProof, LeaderBinding, ProveSeatLeaderInput, DispatchProof, DispatchSeal } from "./proof.js";
export { assertBrief, briefProblem } from "./brief.js";
export { hireSeat, readCliVersion } from "./hire.js";
export type { HireSeatOptions } from "./hire.js";
export { VisibleSeat, stopLeaderAfterTuiExit } from "./visible-seat.js";
export type { AttachedParts, DeliverOptions, ReleaseResult, StopLeaderInput } from "./visible-seat.js";
export { findSessionFileEvidence, reconcileFromSessionFiles } from "./evidence.js";
export { runController, controlSocketPath, backendFor, controllerEnv, envValuesOf } from "./controller.js";
export type { ControllerConfig, ControlRequest } from "./controller.js";
export { callController, unwrapReply, isControllerGone } from "./control-client.js";
export { offlineStatus, offlineRelease, controllerState } from "./offline.js";
export type { OfflineStatus } from "./offline.js";
export { commitSeatWorktree, lockSeatWorktree } from "./seat-worktree.js";
export type { SeatWorktreeRelease } from "./seat-worktree.js";
export { isSeatLost, restoreSeat } from "./restore.js";
export type { RestoreResult } from "./restore.js";
export { launchController } from "./launch-controller.js";
export { notifySeatChanges, seatEventId, startSeatNotifier, type SeatNotifier } from "./seat-notify.js";
