/*
 * Attention states: the one word that says where anything that runs is — a headless session, a named session,
 *   a visible seat, a fleet job — and the `state` event that reports each change.
 * Owns: the AttentionState vocabulary, the StateEvent shape, and the mappings from what other folders record
 *   (a fleet job's status, a visible seat's journal row) onto it.
 * Does not own: producing the changes (runtime/ reports a session's, fleet/ a job's) or driving anything.
 * Invariant: this file imports nothing, so every folder may name the vocabulary without a cycle.
 */

/** Where a running thing is. `waiting` means it waits on a person (an approval or a question). */
export type AttentionState =
  | "starting"
  | "working"
  | "waiting"
  | "idle"
  | "done"
  | "failed"
  | "cancelled"
  | "interrupted"
  | "uncertain"
  /** A visible seat or named session that was live when its processes were taken (a reboot, a dead tmux server); `seat restore` brings it back. */
  | "lost";

/** Every attention state, in lifecycle order. */
export const ATTENTION_STATES: readonly AttentionState[] = [
  "starting",
  "working",
  "waiting",
  "idle",
  "done",
  "failed",
  "cancelled",
  "interrupted",
  "uncertain",
  "lost",
];

/** States after which the thing does nothing more by itself. */
export const FINAL_STATES: readonly AttentionState[] = [
  "done",
  "failed",
  "cancelled",
  "interrupted",
  "uncertain",
  "lost",
];

/** What a `waiting` thing waits on. */
export type WaitingOn = "approval" | "question";

/** One change of state, as carried by NDJSON (`seat run --json`), a fleet job's stream and `onState`. */
export type StateEvent = {
  type: "state";
  state: AttentionState;
  /** The state before this change (absent for the first one). */
  previous?: AttentionState;
  /** When this state began (ISO 8601). */
  since: string;
  /** With `waiting`: what it waits on. */
  waitingOn?: WaitingOn;
  /** A stable code or stop reason explaining a `failed`, `cancelled` or `idle` after a turn, when there is one. */
  reason?: string;
};

/** A fleet job's recorded status, as an attention state (queued and taken jobs are `starting`). */
export function jobAttentionState(status: string): AttentionState {
  switch (status) {
    case "waiting":
    case "active":
      return "starting";
    case "dispatched":
      return "working";
    case "completed":
      return "done";
    case "failed":
    case "cancelled":
    case "uncertain":
      return status;
    default:
      return "uncertain";
  }
}

/**
 * A visible seat's attention state from its journal: hiring → starting, releasing/released → done; an active
 * seat is `uncertain` with an uncertain delivery, `working` with one in flight, else `idle`.
 */
export function seatAttentionState(seatState: string, deliveryStates: readonly string[]): AttentionState {
  if (seatState === "hiring") return "starting";
  if (seatState === "releasing" || seatState === "released") return "done";
  if (deliveryStates.includes("uncertain")) return "uncertain";
  if (deliveryStates.some((s) => s === "fenced" || s === "dispatched" || s === "consumed")) return "working";
  return "idle";
}
