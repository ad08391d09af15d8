import { test } from "node:test";
import assert from "node:assert/strict";
import { SeatError } from "../errors.js";
import { DEFAULT_MAX_RUNS, RunSlots } from "./run-slots.js";

const isRunsLimit = (e: unknown) => e instanceof SeatError && e.code === "MCP_RUNS_LIMIT";

test("RunSlots: takes up to its limit, refuses the next with MCP_RUNS_LIMIT, and frees a slot when one is given back", () => {
  const slots = new RunSlots(2);
  const first = slots.take();
  const second = slots.take();
  assert.equal(slots.running, 2);
  assert.throws(() => slots.take(), isRunsLimit);
  assert.equal(slots.running, 2, "a refusal takes nothing");
  first();
  assert.equal(slots.running, 1);
  const third = slots.take();
  assert.equal(slots.running, 2);
  second();
  third();
  assert.equal(slots.running, 0);
});

test("RunSlots: giving a slot back twice frees it once", () => {
  const slots = new RunSlots(1);
  const release = slots.take();
  release();
  release();
  assert.equal(slots.running, 0);
  slots.take();
  assert.throws(() => slots.take(), isRunsLimit, "the double release did not make a second slot");
});

test("RunSlots: the refusal names the limit and the flag, and a limit below 1 is refused", () => {
  const slots = new RunSlots(1);
  slots.take();
  assert.throws(
    () => slots.take(),
    (e: unknown) => isRunsLimit(e) && /--max-runs 1/.test((e as Error).message),
  );
  assert.throws(
    () => new RunSlots(0),
    (e: unknown) => e instanceof SeatError && e.code === "MCP_OPTIONS_INVALID",
  );
  assert.equal(new RunSlots(DEFAULT_MAX_RUNS).limit, 4);
});
