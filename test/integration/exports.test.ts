/*
 * The public API is a decision: this pins the names the package's two front doors export
 * (`grok-seat` and the `grok-seat/testing` rig).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as api from "../../src/index.js";
import * as testing from "../../src/testing.js";

test("the library front door exports exactly the listed names", () => {
  assert.deepEqual(Object.keys(api).sort(), [
    "DEFAULT_POLICY", "ERROR_CODES", "VERIFIED_VERSION_FLOOR", "VisibleSeat", "hireSeat", "SeatError", "SessionCore", "categorize", "chooseAuthMethod", "compareVersions",
    "connectAcp", "createPermissionGate", "createSession", "createToolBridge", "ensureGrokBinary",
    "isSeatError", "laneMarker", "listGrokModels", "loadPolicyFile", "normalizeModelSelection", "openSession", "parseGrokModels",
    "parseGrokVersion", "parsePolicyFlags", "probeAcp", "probeGrok", "projectSchema", "resolveGrokBinary",
    "stageSkills", "toAcpMcpServers", "turnDiagnostic", "connectFleet", "enqueue", "startWorker",
    "createWorktree", "commitTurn", "listWorktrees", "findWorktree", "diffWorktree", "mergeWorktree", "discardWorktree",
    "HostToolError",
    "listApprovals", "answerApproval",
    "queryUsage", "loadPrices", "computeCost",
  ].sort());
});

test("the grok-seat/testing door exports exactly the offline rig and nothing of the seats", () => {
  assert.deepEqual(Object.keys(testing).sort(), ["canUnshareNetwork", "createSandbox", "parseScript", "runInLoopbackNamespace", "sandboxConfigToml", "startMockModel", "startRedisServer", "startSentinelSet"].sort());
  for (const name of Object.keys(testing)) assert.equal(name in api, false, `${name} is also on the main front door`);
});

test("package.json exposes only the two front doors and the seat bin", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown>; bin: Record<string, string> };
  assert.deepEqual(Object.keys(pkg.exports), [".", "./testing"]);
  assert.deepEqual(Object.keys(pkg.bin), ["seat"]);
});
