/*
 * P8's replicated run (bench/fleet-bench.ts) reads each worker's durability rule from the worker's own log line,
 * and its goal is met only when every worker ran under the replicated rule. Pure functions: no Redis, no workers.
 * The log lines come from the worker's own describeRule, so a reworded line cannot silently read as "replicated".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fleetBenchSection, ruleOf, type FleetBenchResult } from "../../../bench/fleet-bench.js";
import { describeRule } from "../../../src/fleet/replication.js";

const replicatedLine = `seat worker: ${describeRule({ rule: "replicated", required: 1, source: "Sentinel lists 1 replica(s), 1 promotable; primary reports 1 connected" }, 1000)}\n`;
const singleLine = `seat worker: ${describeRule({ rule: "single-primary", required: 0, source: "primary reports 0 connected" }, 1000)}\n`;

test("ruleOf reads the worker's last durability-rule line, and says 'not stated' when there is none", () => {
  assert.equal(ruleOf(replicatedLine), "replicated, WAIT 1");
  assert.equal(ruleOf(singleLine), "single-primary");
  // The last line counts: a worker whose replica went away logs the new rule.
  assert.equal(ruleOf(replicatedLine + singleLine), "single-primary");
  assert.equal(ruleOf("seat worker: listening\n"), "not stated");
});

function result(rules: string[][]): FleetBenchResult {
  const level = (k: number) => ({
    workers: k,
    jobs: 3,
    fleetJobsPerS: 1,
    directJobsPerS: 1,
    ratio: 1,
    fleetFailed: 0,
    directFailed: 0,
    rules: rules[k - 1]!,
  });
  const lat = { n: 1, p50: 1, p99: 1, max: 1 };
  return {
    throughput: [level(1)],
    replicated: { throughput: [level(1), level(2), level(3)], markMs: lat, waitMs: lat },
    eventLatencyMs: lat,
    durationMs: 1,
  };
}

test("P8's replicated goal is met only when every worker of every level logged the replicated rule", () => {
  const goal = (r: FleetBenchResult) =>
    fleetBenchSection(r).goals.find((g) => g.goal.startsWith("with a replica: every fleet job completed"));
  const r = "replicated, WAIT 1";
  const all = goal(result([[r], [r, r], [r, r, r]]));
  assert.equal(all?.met, true);
  assert.match(all?.measured ?? "", /replicated, WAIT 1 ×3/);
  // One worker that fell back to single-primary at level 2 (it would not have waited for the replica): missed.
  assert.equal(goal(result([[r], [r, "single-primary"], [r, r, r]]))?.met, false);
  assert.equal(goal(result([[r], [r, r], [r, r, "not stated"]]))?.met, false);
  // The table names each worker's rule when they differ.
  assert.match(
    fleetBenchSection(result([[r], [r, r], [r, "single-primary", r]])).body,
    /replicated, WAIT 1; single-primary/,
  );
});

test("P8 reports the worker's mark → first chunk path with and without the replica only when both were measured", () => {
  const r = result([["replicated, WAIT 1"], ["replicated, WAIT 1"], ["replicated, WAIT 1"]]);
  assert.doesNotMatch(fleetBenchSection(r).body, /dispatch mark → the agent's first chunk/);
  r.throughput[0]!.markToChunkMs = [10, 12, 14];
  r.replicated!.throughput[0]!.markToChunkMs = [11, 13];
  r.replicated!.throughput[2]!.markToChunkMs = [15];
  const body = fleetBenchSection(r).body;
  // Pooled over the levels: 3 jobs without, 3 with (nearest-rank p50: 12 and 13), and their difference.
  assert.match(body, /\| without a replica \| 3 \| 12\.0 \|/);
  assert.match(body, /\| with a replica \(`WAIT 1` after the mark\) \| 3 \| 13\.0 \|/);
  assert.match(body, /p50 1\.00 ms\) is what the replica added/);
});
