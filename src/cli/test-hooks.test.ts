/*
 * Test hooks switch on only by name through GROK_SEAT_TEST_HOOKS.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { testHookEnabled } from "./test-hooks.js";

test("a hook is on only when GROK_SEAT_TEST_HOOKS names it exactly, alone or in a comma list", () => {
  assert.equal(testHookEnabled("hold-before-dispatch", {}), false);
  assert.equal(testHookEnabled("hold-before-dispatch", { GROK_SEAT_TEST_HOOKS: "" }), false);
  assert.equal(testHookEnabled("hold-before-dispatch", { GROK_SEAT_TEST_HOOKS: "hold-before-dispatch-later" }), false);
  assert.equal(testHookEnabled("hold-before-dispatch", { GROK_SEAT_TEST_HOOKS: "hold-before-dispatch" }), true);
  assert.equal(testHookEnabled("hold-before-dispatch", { GROK_SEAT_TEST_HOOKS: "other, hold-before-dispatch" }), true);
});
