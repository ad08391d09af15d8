/*
 * Torture subset for the visible seat: a short slice of R2 and R3 from `npm run torture` (bench/torture-seat.ts)
 * that runs in `npm test` — one kill -9 of the controller after each delivery step on the fake TUI + fake leader
 * in real tmux, and a few variants of every identity / socket attack. No timing assertions. The runners own and
 * tear down every seat, tmux server, socket and temp dir they create, also when a case fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CRASH_STEPS, runSeatCrashCycles } from "../../../bench/seat-crash.js";
import { ATTACK_KINDS, judgeAttack, runSeatAttacks } from "../../../bench/seat-attacks.js";
import { need, tmuxMissing } from "../../support/requirements.js";

test("a controller killed after each delivery step loses nothing, duplicates nothing, reports in-flight deliveries uncertain and reconciles them from late evidence", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const result = await runSeatCrashCycles({ cycles: 1 });
  assert.deepEqual(
    result.cases.map((c) => c.step),
    [...CRASH_STEPS],
  );
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

test("every identity and socket attack kind is refused with the code it must produce, and the clean controls pass", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const result = await runSeatAttacks({ perKind: 2, hireRounds: 1 });
  assert.equal(result.skipped, null);
  assert.deepEqual(result.controls.failures, []);
  for (const kind of ATTACK_KINDS) {
    const k = result.kinds.find((x) => x.kind === kind)!;
    assert.ok(k.tried > 0, `${kind} was tried`);
    assert.ok(k.distinct > 0 && k.distinct <= k.tried, `${kind}: ${k.distinct} distinct of ${k.tried}`);
    assert.deepEqual(k.failures, [], kind);
    assert.equal(k.refused, k.tried, kind);
    assert.equal(k.codes.accepted, undefined, `${kind} was never accepted`);
    // IDENTITY_UNKNOWN only where two listeners share the socket's name (see bench/seat-attacks.ts, replaced-inode).
    const identity =
      kind === "replaced-inode"
        ? /^IDENTITY_(MISMATCH|UNKNOWN)(\+SEAT_RELEASE_REFUSED)$/
        : /^IDENTITY_MISMATCH(\+(SEAT_RELEASE_REFUSED|no-signal:leader-gone))?$/;
    const allowed = kind === "herdr-contradictory" ? /^HERDR_AGENT_REFUSED\[(mismatch|unknown)\]$/ : identity;
    for (const code of Object.keys(k.codes)) assert.match(code, allowed, `${kind} refused with ${code}`);
  }
  // The two Herdr hires whose report contradicts the launch are refused as a mismatch at once, not by a timeout.
  const herdr = result.kinds.find((x) => x.kind === "herdr-contradictory")!;
  assert.equal(herdr.variants["hire: Herdr reports agent pi"], 1);
  assert.equal(herdr.variants["hire: Herdr reports another grok session"], 1);
});

test("an attack refused with another code, by a timeout, or with the right code for the wrong check does not count as refused", () => {
  const mismatch = { codes: ["HERDR_AGENT_REFUSED[mismatch]"] };
  assert.deepEqual(judgeAttack(mismatch, { code: "HERDR_AGENT_REFUSED[mismatch]", checks: [], reason: "r" }), {
    refused: true,
  });
  const timeout = judgeAttack(mismatch, { code: "HERDR_AGENT_REFUSED[unknown]", checks: [], reason: "time ran out" });
  assert.equal(timeout.refused, false);
  assert.match(timeout.refused ? "" : timeout.failure, /got HERDR_AGENT_REFUSED\[unknown\]/);
  const identity = { codes: ["IDENTITY_MISMATCH+SEAT_RELEASE_REFUSED"], checks: ["socket-dir"] };
  assert.equal(
    judgeAttack(identity, { code: "IDENTITY_UNKNOWN+SEAT_RELEASE_REFUSED", checks: ["socket-dir"], reason: "" })
      .refused,
    false,
  );
  assert.equal(
    judgeAttack(identity, { code: "IDENTITY_MISMATCH+SEAT_RELEASE_REFUSED", checks: ["lock"], reason: "" }).refused,
    false,
  );
  assert.equal(judgeAttack(identity, { code: "LEADER_TIMEOUT", checks: [], reason: "" }).refused, false);
  assert.equal(judgeAttack(identity, { code: null, checks: [], reason: "hired" }).refused, false);
  assert.equal(
    judgeAttack(identity, {
      code: "IDENTITY_MISMATCH+SEAT_RELEASE_REFUSED",
      checks: ["lock", "socket-dir"],
      reason: "",
    }).refused,
    true,
  );
});
