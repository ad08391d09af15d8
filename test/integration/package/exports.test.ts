/*
 * The public API is a decision: this pins the names the package's two front doors export
 * (`grok-seat` and the `grok-seat/testing` rig), and what the packed tarball's .js files point at.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import * as api from "../../../src/index.js";
import * as testing from "../../../src/testing.js";
import { AGENT_NAMES, agentProfile } from "../../../src/agents/index.js";

test("the library front door exports exactly the listed names", () => {
  assert.deepEqual(
    Object.keys(api).sort(),
    [
      "DEFAULT_POLICY",
      "ERROR_CODES",
      "VERIFIED_VERSION_FLOOR",
      "VisibleSeat",
      "hireSeat",
      "SeatError",
      "SessionCore",
      "categorize",
      "chooseAuthMethod",
      "compareVersions",
      "connectAcp",
      "createPermissionGate",
      "createSession",
      "createToolBridge",
      "ensureGrokBinary",
      "isSeatError",
      "laneMarker",
      "listGrokModels",
      "loadPolicyFile",
      "normalizeModelSelection",
      "openSession",
      "prepareSupervisedTurn",
      "runSupervisedTurn",
      "parseGrokModels",
      "parseGrokVersion",
      "parsePolicyFlags",
      "probeAcp",
      "probeGrok",
      "projectSchema",
      "resolveGrokBinary",
      "stageSkills",
      "toAcpMcpServers",
      "turnDiagnostic",
      "connectFleet",
      "enqueue",
      "startWorker",
      "createWorktree",
      "commitTurn",
      "listWorktrees",
      "findWorktree",
      "diffWorktree",
      "mergeWorktree",
      "discardWorktree",
      "planTurnWorktree",
      "finishTurnWorktree",
      "HostToolError",
      "listApprovals",
      "answerApproval",
      "queryUsage",
      "loadPrices",
      "computeCost",
      "listLost",
      "restoreLost",
      "createNotifier",
      "createNotifyEvent",
      "notifyFromEvents",
      "parseNotifyConfig",
      "chooseTargets",
      "NOTIFY_EVENT_SCHEMA",
    ].sort(),
  );
});

test("the grok-seat/testing door exports exactly the offline rig and nothing of the seats", () => {
  assert.deepEqual(
    Object.keys(testing).sort(),
    [
      "canUnshareNetwork",
      "createSandbox",
      "offlineWiring",
      "parseScript",
      "runInLoopbackNamespace",
      "sandboxConfigToml",
      "startMockModel",
      "startRedisServer",
      "startSentinelSet",
    ].sort(),
  );
  for (const name of Object.keys(testing)) assert.equal(name in api, false, `${name} is also on the main front door`);
});

test("the agents' offline wiring to the mock model lives in grok-seat/testing, not on the shipped agent profiles", () => {
  for (const name of AGENT_NAMES) {
    assert.equal("offline" in agentProfile(name), false, `${name}'s profile carries no mock wiring`);
    assert.equal(
      typeof testing.offlineWiring(name)?.configure,
      "function",
      `${name} has offline wiring in grok-seat/testing`,
    );
  }
  assert.equal(testing.offlineWiring("no-such-agent"), undefined);
});

test("package.json exposes only the two front doors and the seat bin", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../../../package.json", import.meta.url), "utf8")) as {
    exports: Record<string, unknown>;
    bin: Record<string, string>;
  };
  assert.deepEqual(Object.keys(pkg.exports), [".", "./testing"]);
  assert.deepEqual(Object.keys(pkg.bin), ["seat"]);
});

test("no packed .js file points at a source map the tarball does not ship", () => {
  // The files `npm pack` would put in the tarball (no build: the test runs on the built dist/).
  const root = fileURLToPath(new URL("../../../../", import.meta.url));
  const packed = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(packed.status, 0, packed.stderr);
  const files = new Set(
    (
      JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{ files: Array<{ path: string }> }>
    )[0]!.files.map((f) => f.path),
  );
  const scripts = [...files].filter((f) => /\.[cm]?js$/.test(f));
  assert.ok(
    scripts.includes("dist/src/index.js"),
    `the tarball ships the built library (${scripts.length} .js files): run npm run build first`,
  );
  const dangling: string[] = [];
  for (const file of scripts) {
    for (const [, url] of readFileSync(join(root, file), "utf8").matchAll(/^\/\/[#@] sourceMappingURL=(\S+)\s*$/gm)) {
      if (url!.startsWith("data:")) continue;
      const target = normalize(join(dirname(file), decodeURIComponent(url!.replace(/[?#].*$/, ""))));
      if (!files.has(target)) dangling.push(`${file} → ${url}`);
    }
  }
  assert.deepEqual(dangling, [], `${dangling.length} packed .js file(s) reference a map the tarball lacks`);
});
