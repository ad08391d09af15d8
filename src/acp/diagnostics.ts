/*
 * Turn diagnostics: the resolve-never-reject invariant of seed 002, as one pure function.
 * Owns: deciding whether a finished turn needs a diagnostic, and its code and text.
 * Does not own: running the turn (session-core.ts) or showing the text (callbacks, cli/).
 * Invariant (seed 002 "Diagnostics and empty-output invariant"):
 *   1. create/handshake failure → dead session + diagnostic (runtime/ applies it; create does not throw);
 *   2. prompt failure → diagnostic only when no assistant text streamed; never reject;
 *   3. abnormal stopReason (not end_turn) with zero text → stop-reason diagnostic;
 *   4. clean end_turn with no text → silent;
 *   5. partial text before a failure is kept, never replaced by an error.
 */
import type { ErrorCode } from "../errors.js";
import type { Diagnostic } from "./events.js";

/** How a turn ended, as far as the diagnostics rule cares. */
export interface TurnOutcome {
  /** Assistant text streamed during the turn. */
  text: string;
  /** The stop reason, when the agent answered. */
  stopReason?: string;
  /** The failure, when the prompt failed (error response, lost connection, timeout). */
  failure?: { code: ErrorCode; message: string };
}

/** The diagnostic a finished turn must report, or undefined when it must stay silent. */
export function turnDiagnostic(outcome: TurnOutcome): Diagnostic | undefined {
  const hasText = outcome.text.trim().length > 0;
  if (outcome.failure) {
    // Rule 5: partial text is the answer; rule 2: only an empty turn gets the failure text.
    return hasText ? undefined : { code: outcome.failure.code, message: outcome.failure.message };
  }
  if (hasText) return undefined;
  if (outcome.stopReason === undefined || outcome.stopReason === "end_turn") return undefined; // rule 4
  return {
    code: "ACP_STOP_REASON",
    message: `Grok ended the turn with stop reason "${outcome.stopReason}" and no text.`,
  };
}

/** The diagnostic for a session that could not be created (rule 1); `agent` names who failed (default Grok). */
export function createDiagnostic(code: ErrorCode, message: string, agent = "Grok"): Diagnostic {
  return { code, message: `${agent} session could not start: ${message}` };
}
