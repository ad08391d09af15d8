import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { admitSeat } from "./admission.js";
import { assertCatalogReady, assertNativeOption, assertSelectionEcho } from "./readiness.js";

const registered = {
  leaderProtocolVersion: 1,
  leaderBinaryVersion: "1.0.50",
  leaderCapabilities: { control_v1: true },
};
const initialize = { protocolVersion: 1, agentCapabilities: { loadSession: true }, _meta: { agentVersion: "1.0.50" } };

test("admits one version at or above the floor and flags a lowered floor", () => {
  assert.deepEqual(admitSeat({ cliVersion: "1.0.50", registered, initialize }), {
    version: "1.0.50",
    versionFloor: "1.0.46",
    belowVerifiedFloor: false,
  });
  const low = { leaderProtocolVersion: 1, leaderBinaryVersion: "1.0.41", leaderCapabilities: { control_v1: true } };
  const admitted = admitSeat({
    versionFloor: "1.0.41",
    cliVersion: "1.0.41",
    registered: low,
    initialize: { ...initialize, _meta: { agentVersion: "1.0.41" } },
  });
  assert.equal(admitted.belowVerifiedFloor, true);
});

test("refuses naming what is lacking: floor, control_v1, loadSession, disagreeing versions", () => {
  const refuse = (input: Parameters<typeof admitSeat>[0], pattern: RegExp) =>
    assert.throws(
      () => admitSeat(input),
      (e: unknown) => isSeatError(e, "LEADER_VERSION_REFUSED") && pattern.test(e.message),
    );
  refuse(
    {
      cliVersion: "1.0.41",
      registered: { ...registered, leaderBinaryVersion: "1.0.41" },
      initialize: { ...initialize, _meta: { agentVersion: "1.0.41" } },
    },
    /1\.0\.41.*1\.0\.46/s,
  );
  refuse({ cliVersion: "1.0.50", registered: { ...registered, leaderCapabilities: {} }, initialize }, /control_v1/);
  refuse({ cliVersion: "1.0.50", registered, initialize: { ...initialize, agentCapabilities: {} } }, /loadSession/);
  refuse({ cliVersion: "1.0.51", registered, initialize }, /one version/);
});

test("catalog: an enabled direct mcp.linear.app server refuses; a disabled one does not", () => {
  assert.throws(
    () => assertCatalogReady([{ name: "linear", url: "https://mcp.linear.app/mcp" }]),
    (e: unknown) => isSeatError(e, "SEAT_REFUSED"),
  );
  assertCatalogReady([
    { name: "linear", url: "https://mcp.linear.app/mcp", enabled: false },
    "read_file",
    { name: "other", url: "https://example.org" },
  ]);
});

test("model and effort must be native options and echo after selection", () => {
  const result = {
    configOptions: [
      { id: "model", category: "model", currentValue: "mock", options: [{ value: "mock" }] },
      { id: "reasoning_effort", category: "thought_level", currentValue: "high", options: [{ value: "high" }] },
    ],
  };
  assert.equal(assertNativeOption(result, "model", "mock"), "model");
  assert.equal(assertNativeOption(result, "effort", "high"), "reasoning_effort");
  assert.throws(
    () => assertNativeOption(result, "model", "grok-9"),
    (e: unknown) => isSeatError(e, "SEAT_REFUSED"),
  );
  assert.throws(
    () => assertSelectionEcho(result, "model", "other"),
    (e: unknown) => isSeatError(e, "SEAT_REFUSED"),
  );
});
