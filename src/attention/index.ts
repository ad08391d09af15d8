/*
 * Attention front door: one state for everything that runs, and the listing behind `seat ps`.
 * Owns: the public names of attention/ (listed by hand). It reads; it never drives.
 */
export { ATTENTION_STATES, FINAL_STATES, jobAttentionState, seatAttentionState } from "./states.js";
export type { AttentionState, StateEvent, WaitingOn } from "./states.js";
export { createStateTracker, isFinalState, stateAfterTurn } from "./tracker.js";
export type { AttentionSnapshot, StateTracker } from "./tracker.js";
