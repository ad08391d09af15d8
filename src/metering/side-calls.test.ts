import { test } from "node:test";
import assert from "node:assert/strict";
import { sideCallsFromMeter, type MeteredCall, type ReportedTurn } from "./index.js";

const call = (kind: MeteredCall["kind"], input?: number, output?: number): MeteredCall => ({
  kind,
  promptId: "p",
  model: "m",
  requestBytes: 4_000,
  status: 200,
  ...(input === undefined ? {} : { inputTokens: input }),
  ...(output === undefined ? {} : { outputTokens: output }),
});
const reported = (modelCalls?: number): ReportedTurn => ({
  usage: { inputTokens: 11, outputTokens: 2, ...(modelCalls === undefined ? {} : { modelCalls }) },
});
const rows = (calls: MeteredCall[], turn: ReportedTurn) =>
  sideCallsFromMeter(calls, turn).map((s) => [s.kinds, s.modelCalls, s.inputTokens, s.outputTokens, s.metered]);

test("a main call the model answered after grok's count (a tool's follow-up after a cancel) is added as measured, once", () => {
  assert.deepEqual(rows([call("main", 11, 2), call("main", 11, 1)], reported(1)), [[["main"], 1, 11, 1, "proxy"]]);
  assert.deepEqual(rows([call("main", 11, 2), call("main", 11, 1)], reported(2)), [], "grok counted both");
  assert.deepEqual(
    rows([call("main", 11, 2), call("main", 11, 1), call("turn_summary", 30, 4)], reported(1)),
    [[["main", "turn_summary"], 2, 41, 5, "proxy"]],
    "with the turn's side calls, per model",
  );
});

test("a main call cut before its usage, refused, or failed is not counted in grok's stead; no count from grok adds none", () => {
  const cut = call("main");
  const refused = { ...call("main", 11, 1), refused: true, status: 402 };
  const failed = { ...call("main", 11, 1), status: 500 };
  assert.deepEqual(rows([cut, call("main", 11, 2), refused, failed], reported(1)), []);
  assert.deepEqual(rows([call("main", 11, 2), call("main", 11, 1)], reported()), [], "usage without a call count");
  assert.deepEqual(
    rows([call("main", 11, 2)], {}),
    [[["main"], 1, 11, 2, "proxy"]],
    "no usage at all: every main call is the metering point's",
  );
});
