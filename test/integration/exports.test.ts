/*
 * The public API is a decision: this pins the names the package's front door exports.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as api from "../../src/index.js";

test("the library front door exports exactly the listed names", () => {
  assert.deepEqual(Object.keys(api).sort(), [
    "DEFAULT_POLICY", "ERROR_CODES", "VERIFIED_VERSION_FLOOR", "VisibleSeat", "hireSeat", "SeatError", "SessionCore", "categorize", "chooseAuthMethod", "compareVersions",
    "connectAcp", "createPermissionGate", "createSandbox", "createSession", "createToolBridge", "ensureGrokBinary",
    "isSeatError", "laneMarker", "listGrokModels", "loadPolicyFile", "normalizeModelSelection", "openSession", "parseGrokModels",
    "parseGrokVersion", "parsePolicyFlags", "probeAcp", "probeGrok", "projectSchema", "resolveGrokBinary",
    "stageSkills", "startMockModel", "toAcpMcpServers", "turnDiagnostic",
  ].sort());
});

test("package.json exposes only the front door and the seat bin", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { exports: Record<string, unknown>; bin: Record<string, string> };
  assert.deepEqual(Object.keys(pkg.exports), ["."]);
  assert.deepEqual(Object.keys(pkg.bin), ["seat"]);
});
