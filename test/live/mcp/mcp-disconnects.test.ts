/*
 * Host disconnects on `seat mcp` (issue 19 §2 and §4, R8's subset): MCP hosts running the official client go away
 * mid-turn — killed, the server's stdin closed, the SDK's close() — with the real grok behind the server. Nothing
 * of the server's tree outlives it (process table scan by the sandbox HOME every process inherits), and every turn
 * whose prompt reached the model is in the usage ledger. The full campaign (100 disconnects) is R8 in
 * `npm run torture` (bench/r8-disconnects.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesWithHome, runR8 } from "../../../bench/r8-disconnects.js";
import { liveBinary } from "../../support/live-rig.js";
import { needGrok } from "../../support/requirements.js";

test("five MCP hosts leaving mid-turn (killed, stdin closed, SDK close) orphan no process and every turn that reached the model is recorded", async (t) => {
  const binary = await liveBinary();
  if (!needGrok(t, binary instanceof Error ? `real grok unavailable: ${binary.message}` : false)) return;
  // Early (grok starting), mid-stream twice, late, and after the answer, across the three ways.
  const r = await runR8({ disconnects: 5, fractions: [0.05, 0.5, 0.7, 0.95, 1.2] });
  assert.equal(r.skipped, undefined);
  assert.deepEqual(r.problems, []);
  assert.equal(r.disconnects, 5);
  assert.deepEqual(r.byWay, { "kill-host": 2, eof: 2, close: 1 });
  assert.deepEqual(r.orphans, []);
  assert.equal(r.hung, 0);
  assert.deepEqual(r.unrecorded, []);
  assert.ok(
    r.reachedModel >= 2,
    `at least the mid-stream disconnects came after the prompt reached the model (${r.reachedModel})`,
  );
  assert.equal(r.recorded, r.reachedModel);
});

test("the orphan scan finds a live process by the HOME it inherited, and not once it is gone", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-r8-scan-"));
  const child = spawn("sleep", ["30"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    stdio: "ignore",
  });
  try {
    await new Promise((resolve) => child.once("spawn", resolve));
    assert.deepEqual(
      processesWithHome(home).map((p) => p.pid),
      [child.pid],
    );
    assert.deepEqual(processesWithHome(`${home}-other`), [], "an exact HOME entry, not a prefix");
  } finally {
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    rmSync(home, { recursive: true, force: true });
  }
  assert.deepEqual(processesWithHome(home), []);
});
