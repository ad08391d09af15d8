/*
 * Listing front door: every run of this user — named sessions, seats, fleet jobs, plain runs — with its attention
 *   state, as `seat ps`, `seat ps --watch`, the board and restore read it; cancelling a plain run by its id.
 * Owns: the list of names other rooms may import from listing/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../listing/index.js", never a file inside listing/.
 */
export { listLive } from "./listing.js";
export type { ListLiveOptions, LiveItem, LiveKind } from "./listing.js";
export { diffListings, itemKey, startsWaiting, waitingEnv } from "./watch.js";
export type { LiveChange } from "./watch.js";
export { cancelRun } from "./runs.js";
