import { test } from "node:test";
import assert from "node:assert/strict";
import { inspect } from "node:util";
import { SeatError, isSeatError } from "./errors.js";

type ErrorsModule = typeof import("./errors.js");

/** A second, separate instance of this module, as a worker's tools module importing the library loads beside the bundle. */
async function otherCopy(): Promise<ErrorsModule> {
  const copy = (await import(new URL("./errors.js?other-copy", import.meta.url).href)) as ErrorsModule;
  assert.notEqual(copy.SeatError, SeatError, "a separate module instance, with its own class");
  return copy;
}

test("a SeatError made by another copy of grok-seat in this process is a SeatError here: instanceof and isSeatError, with its code", async () => {
  const copy = await otherCopy();
  const foreign = new copy.SeatError("GROK_NOT_FOUND", "no grok here");
  assert.ok(foreign instanceof SeatError);
  assert.ok(isSeatError(foreign));
  assert.ok(isSeatError(foreign, "GROK_NOT_FOUND"));
  assert.equal(isSeatError(foreign, "CLI_USAGE"), false);
  // And the other way round: the other copy sees ours.
  assert.ok(copy.isSeatError(new SeatError("CLI_USAGE", "ours"), "CLI_USAGE"));
});

test("only a SeatError is one: an Error with a code, a plain object, null and primitives are not; the brand is no own property", () => {
  assert.equal(isSeatError(Object.assign(new Error("x [CLI_USAGE]"), { code: "CLI_USAGE" })), false);
  assert.equal(isSeatError({ code: "CLI_USAGE", message: "x", context: {} }), false);
  for (const value of [null, undefined, "CLI_USAGE", 7]) assert.equal(isSeatError(value), false);
  const error = new SeatError("CLI_USAGE", "bad flag");
  assert.deepEqual(Object.getOwnPropertySymbols(error), []);
  assert.doesNotMatch(inspect(error), /grok-seat\.SeatError/);
});
