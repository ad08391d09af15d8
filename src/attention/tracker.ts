/*
 * State tracker: holds one thing's current attention state and reports each change exactly once.
 * Owns: the current state, when it began, what a `waiting` waits on, and the mapping from how a turn ended
 *   (stop reason, diagnostic code) to the state after it.
 * Does not own: deciding when a turn starts or ends (runtime/), or delivering the event (the caller's emit).
 * Invariant: setting the state it already has (with the same waitingOn) reports nothing; a final state is
 *   left only by a new turn (`working`), never by a late lifecycle step of the old one.
 */
import { FINAL_STATES, type AttentionState, type StateEvent, type WaitingOn } from "./states.js";

/** A snapshot of one thing's attention state. */
export interface AttentionSnapshot {
  state: AttentionState;
  /** ISO 8601 time the state began. */
  since: string;
  waitingOn?: WaitingOn;
  reason?: string;
}

/** Holds and reports one thing's state. */
export interface StateTracker {
  /** The current state. */
  snapshot(): AttentionSnapshot;
  /** Moves to `state`; reports a StateEvent through `emit` when it changed. Returns whether it changed. */
  set(state: AttentionState, detail?: { waitingOn?: WaitingOn; reason?: string }): boolean;
}

/** Creates a tracker in `initial` (reported at once through `emit`). `now` is for tests. */
export function createStateTracker(
  emit: (event: StateEvent) => void,
  initial: AttentionState = "starting",
  now: () => Date = () => new Date(),
): StateTracker {
  let current: AttentionSnapshot = { state: initial, since: now().toISOString() };
  emit({ type: "state", state: initial, since: current.since });
  return {
    snapshot: () => ({ ...current }),
    set(state, detail = {}) {
      if (state === current.state && detail.waitingOn === current.waitingOn) return false;
      const previous = current.state;
      current = {
        state,
        since: now().toISOString(),
        ...(detail.waitingOn ? { waitingOn: detail.waitingOn } : {}),
        ...(detail.reason ? { reason: detail.reason } : {}),
      };
      emit({
        type: "state",
        state,
        previous,
        since: current.since,
        ...(detail.waitingOn ? { waitingOn: detail.waitingOn } : {}),
        ...(detail.reason ? { reason: detail.reason } : {}),
      });
      return true;
    },
  };
}

/** True for a state after which the thing does nothing more by itself. */
export function isFinalState(state: AttentionState): boolean {
  return FINAL_STATES.includes(state);
}

/**
 * The state after a turn: `cancelled` when it was cancelled from outside (no code of its own), `failed` when it
 * ended with a diagnostic code, else `idle` (the session waits for its next prompt).
 */
export function stateAfterTurn(result: { stopReason?: string; diagnostic?: { code: string } }): {
  state: AttentionState;
  reason?: string;
} {
  const code = result.diagnostic?.code;
  if (result.stopReason === "cancelled" && (code === undefined || code === "ACP_STOP_REASON"))
    return { state: "cancelled", reason: "cancelled" };
  if (code !== undefined) return { state: "failed", reason: code };
  return { state: "idle", ...(result.stopReason ? { reason: result.stopReason } : {}) };
}
