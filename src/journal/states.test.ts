import { test } from "node:test";
import assert from "node:assert/strict";
import {
  DELIVERY_STATES,
  DELIVERY_TRANSITIONS,
  assertEvidenceEchoes,
  assertTransition,
  canTransition,
  evidenceTarget,
} from "./states.js";
import { isSeatError } from "../errors.js";

test("never lets any state go back to fenced", () => {
  for (const from of DELIVERY_STATES) assert.equal(canTransition(from, "fenced"), false, from);
});

test("treats completed and failed as final", () => {
  for (const to of DELIVERY_STATES) {
    assert.equal(canTransition("completed", to), false);
    assert.equal(canTransition("failed", to), false);
  }
});

test("lets an uncertain delivery move forward on later evidence", () => {
  assert.ok(canTransition("uncertain", "consumed"));
  assert.ok(canTransition("uncertain", "completed"));
});

test("lets a fenced delivery only be dispatched or failed", () => {
  assert.deepEqual([...DELIVERY_TRANSITIONS.fenced].sort(), ["dispatched", "failed"]);
});

test("maps cancellation evidence to submitted, never to completed", () => {
  assert.equal(evidenceTarget("cancelled"), "submitted");
  assert.equal(evidenceTarget("note"), null);
});

test("names the allowed moves when refusing a transition", () => {
  assert.throws(
    () => assertTransition("completed", "dispatched", "p1"),
    (err: unknown) => {
      assert.ok(isSeatError(err, "JOURNAL_STATE_INVALID"));
      assert.match(err.message, /final/);
      return true;
    },
  );
});

test("requires completion evidence to echo both the original session id and prompt id", () => {
  const expected = { sessionId: "s1", promptId: "p1" };
  assertEvidenceEchoes({ kind: "completed", source: "result", sessionId: "s1", promptId: "p1" }, expected);
  for (const bad of [
    { kind: "completed" as const, source: "result", promptId: "p1" },
    { kind: "completed" as const, source: "result", sessionId: "s1" },
    { kind: "completed" as const, source: "result", sessionId: "s2", promptId: "p1" },
    { kind: "consumed" as const, source: "queue", promptId: "p2" },
  ]) {
    assert.throws(
      () => assertEvidenceEchoes(bad, expected),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
      JSON.stringify(bad),
    );
  }
});

test("accepts queue evidence that carries only the prompt id", () => {
  assertEvidenceEchoes(
    { kind: "consumed", source: "_x.ai/queue/changed", promptId: "p1" },
    { sessionId: "s1", promptId: "p1" },
  );
});
