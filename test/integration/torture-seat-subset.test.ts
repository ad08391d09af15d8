/*
 * Torture subset for the visible seat: a short slice of R2 and R3 from `npm run torture` (bench/torture-seat.ts)
 * that runs in `npm test` — one kill -9 of the controller after each delivery step on the fake TUI + fake leader
 * in real tmux, and a few variants of every identity / socket attack. No timing assertions. The runners own and
 * tear down every seat, tmux server, socket and temp dir they create, also when a case fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CRASH_STEPS, runSeatCrashCycles } from "../../bench/seat-crash.js";
import { ATTACK_KINDS, runSeatAttacks } from "../../bench/seat-attacks.js";
import { need, tmuxMissing } from "../support/requirements.js";


test("a controller killed after each delivery step loses nothing, duplicates nothing, reports in-flight deliveries uncertain and reconciles them from late evidence", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const result = await runSeatCrashCycles({ cycles: 1 });
  assert.deepEqual(result.cases.map((c) => c.step), [...CRASH_STEPS]);
  for (const c of result.cases) assert.deepEqual(c.problems, [], `kill after ${c.step}`);
  assert.equal(result.duplicates, 0);
  assert.equal(result.lost, 0);
  assert.equal(result.misreported, 0);
  const byStep = Object.fromEntries(result.cases.map((c) => [c.step, c]));
  assert.equal(byStep.fenced!.finalState, "failed");
  assert.equal(byStep.fenced!.seen, 0);
  for (const step of ["dispatched", "consumed"]) {
    assert.equal(byStep[step]!.stateAtCrash, step);
    assert.equal(byStep[step]!.reconciled, true);
    assert.equal(byStep[step]!.seen, 1);
  }
  assert.equal(byStep.completed!.finalState, "completed");
});

test("every identity and socket attack kind is refused with a reason naming it, and the clean controls pass", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const result = await runSeatAttacks({ perKind: 2, hireRounds: 1 });
  assert.equal(result.skipped, null);
  assert.deepEqual(result.controls.failures, []);
  for (const kind of ATTACK_KINDS) {
    const k = result.kinds.find((x) => x.kind === kind)!;
    assert.ok(k.tried > 0, `${kind} was tried`);
    assert.deepEqual(k.failures, [], kind);
    assert.equal(k.refused, k.tried, kind);
  }
});
