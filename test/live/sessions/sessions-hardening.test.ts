/*
 * Named sessions under the audit of issue 14 (items 2, 4, 5) on the real grok 1.0.41 and the scripted
 * model, driven as a user would through separate `seat` processes: the holder's node binary replaced on disk
 * mid-turn, the journal write-locked by another process for 12 s while a turn runs, a seat home too long for
 * sun_path. The scenarios live in test/support/session-audit.ts (bench/r7-sessions.ts repeats them).
 * A missing real binary is a failure here, never a skip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { needGrok, type TestLike } from "../../support/requirements.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import {
  AUDIT_SCRIPT,
  errorCode,
  exeReplacedScenario,
  journalLockedScenario,
  longHomeScenario,
} from "../../support/session-audit.js";

async function rig(t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> {
  const started = await startLiveRig(AUDIT_SCRIPT);
  if (typeof started === "string") assert.fail(`the real grok binary is required: ${started}`);
  needGrok(t, false); // counted among the tests that ran on the real binary
  t.after(() => started.close());
  return started;
}

const show = (r: { code: number | null; stdout: string; stderr: string }) => `exit ${r.code}\n${r.stdout}\n${r.stderr}`;

test("a holder whose node binary is replaced on disk mid-turn keeps its lease: a second run exits 75 SESSION_BUSY and seat cancel ends the turn", async (t) => {
  const r = await rig(t);
  const seen = await exeReplacedScenario(r, {
    seatHome: join(r.sandbox.root, "seat-home"),
    name: "upgraded",
    scratch: join(r.sandbox.root, "bin"),
  });
  assert.ok(seen.reachedModel, "the holder's turn reached the model");
  assert.ok(seen.exeDeleted, "the holder's /proc/<pid>/exe read (deleted)");
  assert.equal(seen.second.code, 75, show(seen.second));
  assert.equal(errorCode(seen.second), "SESSION_BUSY");
  assert.equal(seen.secondSent, 0, "the second run sent nothing");
  assert.equal(seen.cancel.code, 0, show(seen.cancel));
  assert.equal(seen.holder.code, 130, show(seen.holder));
  assert.deepEqual(
    seen.turns.map((x) => x.state),
    ["interrupted"],
    "one turn, cancelled; no second turn ran",
  );
});

test("with the journal write-locked by another process for 12 s mid-turn: list and cancel answer, another run exits 75 JOURNAL_BUSY, and the cancelled holder records its turn", async (t) => {
  const r = await rig(t);
  const seen = await journalLockedScenario(r, { seatHome: join(r.sandbox.root, "seat-home"), name: "locked" });
  assert.ok(seen.reachedModel, "the holder's turn reached the model");
  assert.ok(seen.lockHeldThroughout, "the lock was held while the three commands ran");
  assert.equal(seen.list.code, 0, show(seen.list));
  assert.match(seen.list.stdout, /"name":"locked"/);
  assert.equal(seen.cancel.code, 0, show(seen.cancel));
  assert.equal(seen.other.code, 75, show(seen.other));
  assert.equal(errorCode(seen.other), "JOURNAL_BUSY");
  assert.equal(seen.holder.code, 130, show(seen.holder));
  for (const out of [seen.list, seen.cancel, seen.other, seen.holder])
    assert.doesNotMatch(out.stdout + out.stderr, /JOURNAL_CORRUPT|INTERNAL|database is locked/);
  assert.deepEqual(
    seen.turns.map((x) => x.state),
    ["interrupted"],
    "the cancelled turn was recorded once the lock was released",
  );
});

test("a seat home too long for sun_path still lets seat cancel -s reach the holder (never IDENTITY_MISMATCH) and leaves no socket files behind", async (t) => {
  const r = await rig(t);
  const seen = await longHomeScenario(r, { root: r.sandbox.root, name: "long" });
  assert.ok(
    seen.seatHomeBytes + "/sessions/ctl-000000000000.sock".length > 107,
    `the seat home (${seen.seatHomeBytes} bytes) is past sun_path`,
  );
  assert.ok(seen.reachedModel, "the holder's turn reached the model");
  assert.equal(seen.cancel.code, 0, show(seen.cancel));
  assert.equal(seen.holder.code, 130, show(seen.holder));
  assert.deepEqual(seen.leftovers, []);
});
