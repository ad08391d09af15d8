/*
 * Approval answers: checking an answer or an id that arrived from outside (a CLI flag, a socket line, Redis).
 * Owns: parseAnswer() and assertApprovalId() — the only way an outside answer becomes an ApprovalAnswer.
 * Does not own: applying it (queue.ts, fleet/).
 * Invariant: anything unclear is refused with APPROVAL_ANSWER_INVALID, never read as an allow.
 */
import { SeatError } from "../errors.js";
import type { ApprovalAnswer } from "./queue.js";

const ID = /^ap_[0-9a-f]{16}$/;
const MAX_NOTE = 1_000;
/** A target digest: sha256 in lower-case hex (approvals/target.ts). */
const DIGEST = /^[0-9a-f]{64}$/;

function invalid(message: string, context: Record<string, unknown>): SeatError {
  return new SeatError("APPROVAL_ANSWER_INVALID", message, { context });
}

/** Refuses an id that is not an approval id (`ap_` + 16 hex digits). */
export function assertApprovalId(id: unknown): asserts id is string {
  if (typeof id !== "string" || !ID.test(id))
    throw invalid(
      `${JSON.stringify(id)} is not an approval id (ap_ followed by 16 hex digits); list them with \`seat approvals\`.`,
      { id: typeof id === "string" ? id.slice(0, 64) : typeof id },
    );
}

/** Refuses a digest that is not sha256 in lower-case hex (64 digits), as `seat approvals` lists it. */
export function assertDigest(digest: unknown): asserts digest is string {
  if (typeof digest !== "string" || !DIGEST.test(digest))
    throw invalid(
      `${JSON.stringify(typeof digest === "string" ? digest.slice(0, 80) : digest)} is not an approval digest (64 lower-case hex digits, the "digest" of \`seat approvals --json\`).`,
      {},
    );
}

/** Checks an answer from outside: decision allow|deny, optional boolean always, optional short strings, optional digest. */
export function parseAnswer(value: unknown): ApprovalAnswer {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalid('An approval answer must be an object {decision: "allow"|"deny"}.', {});
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record))
    if (!["decision", "always", "message", "by", "digest"].includes(key))
      throw invalid(`An approval answer has unknown key "${key}".`, { key });
  if (record.decision !== "allow" && record.decision !== "deny")
    throw invalid(
      `An approval answer's decision must be "allow" or "deny", not ${JSON.stringify(record.decision)}.`,
      {},
    );
  if (record.always !== undefined && typeof record.always !== "boolean")
    throw invalid("An approval answer's always must be true or false.", {});
  if (record.always === true && record.decision === "deny") throw invalid("always applies only to allow.", {});
  for (const key of ["message", "by"] as const) {
    if (record[key] !== undefined && (typeof record[key] !== "string" || (record[key] as string).length > MAX_NOTE))
      throw invalid(`An approval answer's ${key} must be a string of at most ${MAX_NOTE} characters.`, { key });
  }
  if (record.digest !== undefined) assertDigest(record.digest);
  return {
    decision: record.decision,
    ...(record.always === true ? { always: true } : {}),
    ...(typeof record.message === "string" ? { message: record.message } : {}),
    ...(typeof record.by === "string" ? { by: record.by } : {}),
    ...(typeof record.digest === "string" ? { digest: record.digest } : {}),
  };
}
