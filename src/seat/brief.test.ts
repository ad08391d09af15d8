import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { assertBrief, briefProblem } from "./brief.js";

test("a brief with text, newlines and tabs is accepted unchanged", () => {
  assert.equal(briefProblem("line one\n\tline two"), null);
  assert.equal(assertBrief("ünïcode ✓", "CLI_USAGE", "seat send"), "ünïcode ✓");
});

test("empty, whitespace-only, NUL and other C0 briefs are refused with the caller's code, naming what is wrong", () => {
  assert.match(briefProblem("")!, /empty/);
  assert.match(briefProblem(" \n\t ")!, /whitespace only/);
  assert.match(briefProblem("a\u0000b")!, /U\+0000 at offset 1/);
  assert.match(briefProblem("ring\u0007")!, /U\+0007/);
  assert.match(briefProblem("esc\u001b[31m")!, /U\+001B/);
  assert.match(briefProblem("cr\r\n")!, /U\+000D/);
  assert.match(briefProblem(42)!, /must be text/);
  assert.throws(
    () => assertBrief("", "SEAT_BRIEF_INVALID", "control socket"),
    (e: unknown) => isSeatError(e, "SEAT_BRIEF_INVALID"),
  );
  assert.throws(
    () => assertBrief("\u0000", "CLI_USAGE", "seat send"),
    (e: unknown) => isSeatError(e, "CLI_USAGE"),
  );
});
