/*
 * Delivery states: the state machine of one delivery, with no I/O.
 * Owns: the state list, the transition table, and which state a piece of evidence points to.
 * Does not own: storage (journal.ts) or deciding what counts as evidence on the wire (seat/).
 * Invariant: nothing ever goes back to fenced; completed is reached only from evidence that echoes
 *   the original session and prompt id; cancellation ends in submitted, never in completed.
 * Spec: ADR 0224 ("Persist a delivery fence before native dispatch ...")
 */
import { SeatError } from "../errors.js";

/** Every delivery state, in the order a healthy delivery moves through them. */
export const DELIVERY_STATES = [
  "fenced",
  "dispatched",
  "consumed",
  "completed",
  "uncertain",
  "failed",
  "submitted",
] as const;

/** One delivery state. `submitted` is what a cancelled delivery ends as: handed over, completion unknown. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** Allowed moves. Terminal states (completed, failed) have none. */
export const DELIVERY_TRANSITIONS: Readonly<Record<DeliveryState, readonly DeliveryState[]>> = {
  fenced: ["dispatched", "failed"],
  dispatched: ["consumed", "completed", "uncertain", "failed", "submitted"],
  consumed: ["completed", "uncertain", "failed", "submitted"],
  uncertain: ["consumed", "completed", "failed", "submitted"],
  submitted: ["completed"],
  completed: [],
  failed: [],
};

/** True when a delivery may move from `from` to `to`. */
export function canTransition(from: DeliveryState, to: DeliveryState): boolean {
  return DELIVERY_TRANSITIONS[from].includes(to);
}

/** Throws JOURNAL_STATE_INVALID unless `from → to` is in the transition table. */
export function assertTransition(from: DeliveryState, to: DeliveryState, promptId: string): void {
  if (!canTransition(from, to)) {
    const allowed = DELIVERY_TRANSITIONS[from];
    throw new SeatError(
      "JOURNAL_STATE_INVALID",
      `Delivery ${promptId} is ${from}; it cannot become ${to} (allowed: ${allowed.length ? allowed.join(", ") : "none, it is final"}).`,
      { context: { promptId, from, to } },
    );
  }
}

/** What a piece of evidence says happened: queue acknowledgement, final result, error, cancellation or a plain note. */
export type EvidenceKind = "consumed" | "completed" | "failed" | "cancelled" | "note";

/** One observation about a delivery, as recorded in its evidence list. */
export interface DeliveryEvidence {
  kind: EvidenceKind;
  /** Where it came from, e.g. "_x.ai/queue/changed", "session/prompt result", "recovery". */
  source: string;
  /** The session id the evidence names; required (and must match) for `completed`. */
  sessionId?: string;
  /** The prompt id the evidence names; required (and must match) for `completed`. */
  promptId?: string;
  detail?: unknown;
  /** ISO time it was recorded; filled in by the journal. */
  at?: string;
}

/** The state a piece of evidence points to, or null for notes. */
export function evidenceTarget(kind: EvidenceKind): DeliveryState | null {
  switch (kind) {
    case "consumed":
      return "consumed";
    case "completed":
      return "completed";
    case "failed":
      return "failed";
    case "cancelled":
      return "submitted";
    case "note":
      return null;
  }
}

/**
 * Checks that evidence names this delivery: any ids it carries must match, and completion must carry
 * both the original session id and prompt id. Throws JOURNAL_STATE_INVALID otherwise.
 */
export function assertEvidenceEchoes(
  evidence: DeliveryEvidence,
  expected: { sessionId: string; promptId: string },
): void {
  const problems: string[] = [];
  if (evidence.promptId !== undefined && evidence.promptId !== expected.promptId)
    problems.push(`prompt id ${evidence.promptId}`);
  if (evidence.sessionId !== undefined && evidence.sessionId !== expected.sessionId)
    problems.push(`session id ${evidence.sessionId}`);
  if (evidence.kind === "completed") {
    if (evidence.promptId === undefined) problems.push("no prompt id");
    if (evidence.sessionId === undefined) problems.push("no session id");
  }
  if (problems.length > 0) {
    throw new SeatError(
      "JOURNAL_STATE_INVALID",
      `Evidence "${evidence.kind}" from ${evidence.source} does not echo delivery ${expected.promptId} in session ${expected.sessionId} (${problems.join(", ")}); it was not recorded.`,
      { context: { evidence, expected } },
    );
  }
}
