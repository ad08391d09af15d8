import { test } from "node:test";
import assert from "node:assert/strict";
import { assertMatch, check, combineChecks, compareField } from "./verdict.js";
import { isSeatError } from "../errors.js";

test("one mismatch makes the combined verdict a mismatch even beside unknowns", () => {
  const result = combineChecks([
    check("a", "match", "a ok"),
    check("b", "unknown", "b unread"),
    check("c", "mismatch", "c differs"),
  ]);
  assert.equal(result.verdict, "mismatch");
  assert.deepEqual(result.reasons, ["b unread", "c differs"]);
});

test("an unknown check, or no checks at all, never combines to a match", () => {
  assert.equal(combineChecks([check("a", "match", ""), check("b", "unknown", "")]).verdict, "unknown");
  assert.equal(combineChecks([]).verdict, "unknown");
});

test("compares fields three ways: equal, different, or missing on either side", () => {
  assert.equal(compareField("exe", "/a", "/a").verdict, "match");
  assert.equal(compareField("exe", "/a", "/b").verdict, "mismatch");
  assert.equal(compareField("exe", "/a", null).verdict, "unknown");
  assert.equal(compareField("exe", null, "/a").verdict, "unknown");
});

test("refuses anything but a match with IDENTITY_MISMATCH or IDENTITY_UNKNOWN", () => {
  assertMatch(combineChecks([check("a", "match", "")]), "leader");
  assert.throws(
    () => assertMatch(combineChecks([check("a", "mismatch", "pid differs")]), "leader"),
    (e) => isSeatError(e, "IDENTITY_MISMATCH") && /pid differs/.test(e.message),
  );
  assert.throws(
    () => assertMatch(combineChecks([check("a", "unknown", "unread")]), "leader"),
    (e) => isSeatError(e, "IDENTITY_UNKNOWN"),
  );
});
