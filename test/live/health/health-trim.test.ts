/*
 * grok's log trim, live (issue 14 item 1): the real grok 1.0.41 trims $GROK_HOME/logs/unified.jsonl in place
 * once it passes 5 MiB. A named session's turn 1 fails with HTTP 500s and fail-fast ends it; turn 2, to a working
 * model, arrives as grok trims the log, whose kept half still holds turn 1's retries of the same session id.
 * Turn 2 must end normally: no MODEL_UNREACHABLE, no retry reported again. A missing real binary fails this test.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { startLiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";
import { runTrimScenario, TRIM_SCENARIO_SCRIPT } from "../../support/trim-scenario.js";

test("a named session's turn after a failed turn ends normally when grok trims its log mid-session: no MODEL_UNREACHABLE, no retry reported again", async (t) => {
  const rig = await startLiveRig(TRIM_SCENARIO_SCRIPT);
  if (!gotLive(t, rig)) return;
  t.after(() => rig.close());
  const run = await runTrimScenario(rig);
  t.diagnostic(
    `log ${run.logBytesBeforeTurn2} -> ${run.logBytesAfterTurn2} bytes ${run.trimAtMs} ms into turn 2 (${run.turn2Ms} ms); turn 2: ${run.turn2.stopReason ?? run.turn2.diagnostic?.code}`,
  );

  // Turn 1 really failed the way the audit saw it, and grok really trimmed while turn 2 ran.
  assert.equal(run.turn1.diagnostic?.code, "MODEL_UNREACHABLE", JSON.stringify(run.turn1));
  assert.equal(run.turn1Retries, 3);
  assert.ok(
    run.trimmedDuringTurn2,
    `grok trimmed the log in place during turn 2 (${run.logBytesBeforeTurn2} -> ${run.logBytesAfterTurn2} bytes)`,
  );
  assert.ok(run.trimAtMs! < 1_000, `grok trimmed as turn 2 arrived (${run.trimAtMs} ms after it was sent)`);
  assert.ok(run.logBytesAfterTurn2 < run.logBytesBeforeTurn2 / 2 + 64 * 1024);

  assert.equal(run.turn2.diagnostic, undefined, JSON.stringify(run.turn2.diagnostic));
  assert.equal(run.turn2.stopReason, "end_turn");
  assert.equal(run.turn2.text, "one two three four five six");
  assert.equal(run.turn2Retries, 0, "turn 1's retries were not reported again under turn 2");
  assert.ok(
    run.trimAtMs! + 500 < run.turn2Ms,
    `the follower polled after the trim (trim ${run.trimAtMs} ms, turn ${run.turn2Ms} ms)`,
  );
  assert.deepEqual(run.survivors, []);
});
