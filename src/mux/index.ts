/*
 * mux/ front door: multiplexer backends behind one Backend interface.
 * Owns: the list of names siblings may import from mux/ (by hand; adding one is an API decision).
 * Does not own: any implementation.
 * Invariant: siblings import `../mux/index.js`, never a file inside mux/.
 */
export type { Backend, LaunchSpec, PaneDescriptor, WaitOptions } from "./backend.js";
export { isPidAlive } from "./backend.js";
export { TmuxBackend, isTmuxAvailable } from "./tmux.js";
export type { TmuxBackendOptions } from "./tmux.js";
export { HerdrBackend } from "./herdr.js";
export type { HerdrBackendOptions } from "./herdr.js";
export { HerdrClient, isHerdrError, HERDR_MAX_LINE_BYTES } from "./herdr-client.js";
export type { HerdrClientOptions, HerdrEventStream, HerdrAgentReport } from "./herdr-client.js";
export { checkHerdrAgent } from "./herdr-agent.js";
export type { ExpectedHerdrAgent, HerdrAgentVerdict } from "./herdr-agent.js";
export { resolveHerdrSocketPath } from "./herdr-wire.js";
export type {
  HerdrAgentSession,
  HerdrAgentStatus,
  HerdrEvent,
  HerdrLayout,
  HerdrLayoutNode,
  HerdrPaneInfo,
  HerdrPaneRead,
  HerdrPong,
  HerdrProcessInfo,
  HerdrSubscription,
  HerdrTabInfo,
  HerdrWorkspaceInfo,
} from "./herdr-wire.js";
export { chooseBackend, detectBackend } from "./detect.js";
export type { BackendChoice, BackendFacts, DetectOptions } from "./detect.js";
