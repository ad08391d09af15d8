/*
 * Turn control front door: what a supervised turn serves on its control socket (state, cancel, held
 *   approvals), for a fresh turn (turn/) and a named session's (sessions/) alike.
 * Owns: the list of names other rooms may import from turn-control/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../turn-control/index.js", never a file inside turn-control/.
 */
export { planRunControl, startRunControl, startTurnControl } from "./turn-control.js";
export type { RunControlPlan } from "./turn-control.js";
