/*
 * Control socket front door: the per-turn socket another process talks to, and its typed answers.
 * Owns: the list of names other rooms may import from control/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../control/index.js", never a file inside control/.
 */
export {
  startControlServer,
  requestCancel,
  requestState,
  planControlSocket,
  removeDeadControlSocket,
} from "./socket.js";
export type { ControlServer, ControlPlace, ControlHandlers } from "./socket.js";
export { controlStateProblem, describeControlState, parseControlState } from "./state.js";
export type { ControlState, ControlStateKind, ControlSubject } from "./state.js";
export type { DescribedSession } from "./state.js";
export { requestControl } from "./socket.js";
export { CONTROL_OPS, controlRequestProblem, parseControlRequest } from "./messages.js";
export type { ControlRequest } from "./messages.js";
