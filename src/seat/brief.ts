/*
 * Brief check: what text a visible seat accepts as a brief, decided once for the CLI and the controller.
 * Owns: the rule (not empty, not whitespace only, no NUL and no C0 control character except \n and \t)
 *   and the message naming the first offending character.
 * Does not own: which code a refusal carries (the CLI says CLI_USAGE, the controller SEAT_BRIEF_INVALID).
 * Invariant: a refused brief is never fenced, so nothing is journalled or sent for it.
 * Spec: docs/seat-protocol.md#delivery
 */
import { SeatError, type ErrorCode } from "../errors.js";

// C0 controls other than \t (0x09) and \n (0x0a); DEL and C1 are left to the model.
const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f]/;

/** Why `text` is not a brief, or null when it is one. */
export function briefProblem(text: unknown): string | null {
  if (typeof text !== "string") return `a brief must be text, got ${text === null ? "null" : typeof text}`;
  if (text.trim() === "") return text === "" ? "the brief is empty" : "the brief is whitespace only";
  const bad = FORBIDDEN.exec(text);
  if (bad) {
    const hex = bad[0].charCodeAt(0).toString(16).padStart(2, "0");
    return `the brief carries control character U+00${hex.toUpperCase()} at offset ${bad.index} (only newline and tab are allowed)`;
  }
  return null;
}

/** Throws a SeatError with `code` when `text` is not a brief; returns it otherwise. */
export function assertBrief(
  text: unknown,
  code: Extract<ErrorCode, "CLI_USAGE" | "SEAT_BRIEF_INVALID">,
  where: string,
): string {
  const problem = briefProblem(text);
  if (problem !== null)
    throw new SeatError(code, `${where}: ${problem}. Nothing was fenced or sent; fix the brief and send it again.`, {
      context: { problem },
    });
  return text as string;
}
