/*
 * Control messages: the requests a control socket takes — `cancel`, `state`, `approvals`, `answer` — as one typed
 *   union, and the check the server applies to every line before it acts on it.
 * Owns: ControlRequest, controlRequestProblem and parseControlRequest; the client sends only a ControlRequest
 *   (requestControl's type), the server believes only a line that fits (socket.ts's serve).
 * Does not own: the socket (socket.ts), the `state` answer (state.ts), what an answer to an approval means
 *   (approvals/answer.ts checks it where it is applied).
 * Invariant: a line that does not fit does nothing and is answered `ok: false` with CONTROL_REQUEST_INVALID and
 *   the reason; a key the schema does not know is refused, never ignored.
 */

/** One request to a control socket. */
export type ControlRequest =
  | { op: "cancel" }
  | { op: "state" }
  | { op: "approvals" }
  /** `answer` is checked by the approvals queue that applies it (parseAnswer). */
  | { op: "answer"; id: string; answer: unknown };

/** The operations a control socket knows. */
export const CONTROL_OPS = ["cancel", "state", "approvals", "answer"] as const;

const KEYS: Record<(typeof CONTROL_OPS)[number], readonly string[]> = {
  cancel: ["op"],
  state: ["op"],
  approvals: ["op"],
  answer: ["op", "id", "answer"],
};

/** Why `value` is not a ControlRequest, or null when it is one. */
export function controlRequestProblem(value: unknown): string | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "a request is a JSON object";
  const request = value as Record<string, unknown>;
  const op = request.op;
  if (typeof op !== "string" || !(CONTROL_OPS as readonly string[]).includes(op))
    return `op must be one of ${CONTROL_OPS.join(", ")}`;
  const known = KEYS[op as (typeof CONTROL_OPS)[number]];
  const stray = Object.keys(request).filter((key) => !known.includes(key));
  if (stray.length > 0) return `${op} takes no ${stray.map((key) => JSON.stringify(key)).join(", ")}`;
  if (op === "answer") {
    if (typeof request.id !== "string" || request.id === "") return "answer needs the approval's id (a string)";
    if (!("answer" in request)) return "answer needs the answer";
  }
  return null;
}

/** `value` as a ControlRequest, or null when it does not fit (controlRequestProblem says why). */
export function parseControlRequest(value: unknown): ControlRequest | null {
  return controlRequestProblem(value) === null ? (value as ControlRequest) : null;
}
