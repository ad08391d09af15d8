/*
 * Torture subset: a short deterministic slice of `npm run torture` (bench/torture.ts) that runs in `npm test` —
 * one dispose/crash cycle per fault scenario, a seeded fuzz pass over every target, the secrets canary, and one
 * small P5 wave (bench/scale.ts) to show the alive-at-once measurement and its /proc scans work.
 * No timing assertions: speed belongs to `npm run bench`. Every process a cycle starts is checked and killed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { CYCLE_SCENARIOS, runDisposeCycles } from "../../../bench/cycles.js";
import { runFuzz } from "../../../bench/fuzz.js";
import { benchScale } from "../../../bench/scale.js";
import { runSecretsCheck } from "../../../bench/secrets.js";

test("every fault scenario's session resolves on dispose and leaves no process alive", async () => {
  const result = await runDisposeCycles({ cycles: CYCLE_SCENARIOS.length, concurrency: 2 });
  assert.deepEqual(result.failures, []);
  assert.deepEqual(result.survivors, []);
  assert.equal(result.resolved, CYCLE_SCENARIOS.length);
});

test("seeded fuzzing of the version and models parsers, ACP lines and leader frames finds no crash", async () => {
  fc.configureGlobal({ seed: 5 });
  try {
    const result = await runFuzz({ scale: 0.02 });
    for (const target of result.targets)
      assert.equal(target.failures, 0, `${target.target}: ${target.counterexample ?? ""}`);
    assert.equal(result.uncaught, 0);
    assert.ok(result.cases > 1_000);
  } finally {
    fc.resetConfigureGlobal();
  }
});

test("a canary in the parent env reaches neither the agent, its descendants, the model nor any report", async () => {
  const result = await runSecretsCheck();
  for (const c of result.cases) assert.deepEqual(c.leaks, [], `${c.agent} leaked`);
  assert.ok(
    result.cases.some((c) => c.agent === "fake" && c.processesChecked >= 2),
    "a grandchild's environ was checked",
  );
});

test("a P5 wave holds its sessions alive at once in a fresh process, sees every agent in /proc, and leaves none after dispose", async () => {
  const result = await benchScale({ grokSizes: [], fakeSizes: [3] });
  assert.deepEqual(result.childFailures, []);
  const [wave] = result.waves;
  assert.ok(wave, "the wave reported");
  assert.equal(wave.failures, 0, wave.errors.join("; "));
  // Three sessions alive together: the independent /proc scan saw (at least) their three agent processes at once.
  assert.ok(wave.agentProcessesAlive >= 3, `agents alive at once: ${wave.agentProcessesAlive}`);
  assert.equal(wave.survivors, 0);
  assert.equal(wave.survivorsAfterExit, 0);
  assert.ok(wave.rssBaselineBytes > 0 && wave.rssAllAliveBytes > 0, "raw RSS figures are recorded");
  assert.equal(wave.rssPerSessionMiB, (wave.rssAllAliveBytes - wave.rssBaselineBytes) / 3 / 2 ** 20);
});
