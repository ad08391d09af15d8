/*
 * Verdicts: the three-state result every identity check returns, and how checks combine.
 * Owns: Verdict, IdentityCheck, IdentityResult, combineChecks and the throw-unless-match helper.
 * Does not own: any particular check (linux.ts, prove.ts, active-sessions.ts).
 * Invariant: unknown never authorizes; one mismatch makes the whole result a mismatch.
 */
import { SeatError, type ErrorContext } from "../errors.js";

/** The outcome of an identity check; only `match` authorizes anything. */
export type Verdict = "match" | "mismatch" | "unknown";

/** One named check with its verdict and a reason a human can act on. */
export interface IdentityCheck {
  name: string;
  verdict: Verdict;
  reason: string;
}

/** A combined verdict with one reason per check that did not match. */
export interface IdentityResult {
  verdict: Verdict;
  reasons: string[];
  checks: IdentityCheck[];
}

/** Builds a check. */
export function check(name: string, verdict: Verdict, reason: string): IdentityCheck {
  return { name, verdict, reason };
}

/** Compares two values into a check: either side null/undefined is unknown, equal is match. */
export function compareField(name: string, expected: unknown, observed: unknown): IdentityCheck {
  if (expected === null || expected === undefined)
    return check(name, "unknown", `${name}: nothing was bound to compare with`);
  if (observed === null || observed === undefined)
    return check(name, "unknown", `${name}: could not be read (expected ${String(expected)})`);
  return expected === observed
    ? check(name, "match", `${name}: ${String(observed)}`)
    : check(name, "mismatch", `${name}: expected ${String(expected)}, found ${String(observed)}`);
}

/** Any mismatch → mismatch; else any unknown (or no checks at all) → unknown; else match. */
export function combineChecks(checks: IdentityCheck[]): IdentityResult {
  const verdict: Verdict = checks.some((c) => c.verdict === "mismatch")
    ? "mismatch"
    : checks.length === 0 || checks.some((c) => c.verdict === "unknown")
      ? "unknown"
      : "match";
  return { verdict, reasons: checks.filter((c) => c.verdict !== "match").map((c) => c.reason), checks };
}

/** Throws IDENTITY_MISMATCH or IDENTITY_UNKNOWN unless the result is a match. */
export function assertMatch(result: IdentityResult, subject: string, context: ErrorContext = {}): void {
  if (result.verdict === "match") return;
  const code = result.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN";
  const next =
    result.verdict === "mismatch"
      ? "Release the seat and hire a fresh one."
      : "Nothing is authorized on unknown identity; retry the proof or release the seat.";
  throw new SeatError(code, `${subject} is not proven (${result.verdict}): ${result.reasons.join("; ")}. ${next}`, {
    context: { ...context, verdict: result.verdict, reasons: result.reasons },
  });
}
