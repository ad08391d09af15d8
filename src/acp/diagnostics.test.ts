/*
 * The five rules of the resolve-never-reject diagnostics invariant (seed 002), as a pure function.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createDiagnostic, turnDiagnostic } from "./diagnostics.js";

const failure = { code: "ACP_PROMPT_FAILED" as const, message: "The prompt failed: connection closed" };

test("rule 1: a create failure becomes a diagnostic that says the session could not start", () => {
  const d = createDiagnostic("ACP_HANDSHAKE_FAILED", "initialize timed out");
  assert.equal(d.code, "ACP_HANDSHAKE_FAILED");
  assert.match(d.message, /could not start: initialize timed out/);
});

test("rule 2: a failed prompt with no text yields the failure as diagnostic", () => {
  assert.deepEqual(turnDiagnostic({ text: "", failure }), failure);
  assert.deepEqual(turnDiagnostic({ text: "   \n", failure }), failure, "whitespace is not an answer");
});

test("rule 3: an abnormal stop reason with zero text yields a stop-reason diagnostic", () => {
  for (const stopReason of ["cancelled", "refusal", "max_tokens", "max_turn_requests"]) {
    const d = turnDiagnostic({ text: "", stopReason });
    assert.equal(d?.code, "ACP_STOP_REASON");
    assert.match(d?.message ?? "", new RegExp(stopReason));
  }
});

test("rule 4: a clean end_turn with no text is silent", () => {
  assert.equal(turnDiagnostic({ text: "", stopReason: "end_turn" }), undefined);
});

test("rule 5: partial text before a failure is kept and no diagnostic replaces it", () => {
  assert.equal(turnDiagnostic({ text: "half an answer", failure }), undefined);
  assert.equal(turnDiagnostic({ text: "half an answer", stopReason: "cancelled" }), undefined);
});
