/*
 * R7 health (issue 14 item 1): the audit's "a log trimmed mid-session with a named session's earlier failed turn",
 *   repeated on the real grok 1.0.41 and the mock model. Each run: a named session's turn 1 fails with HTTP 500s
 *   and fail-fast (3) ends it; the session is opened again, the shared log is pushed past grok's 5 MiB trim
 *   threshold, and turn 2 goes to a working model while grok trims the log in place (test/support/trim-scenario.ts).
 * Owns: runR7Health() and its counts. Does not own: the scenario (test/support/trim-scenario.ts), the campaign's
 *   sizes and report (bench/torture.ts, which the lead wires).
 * Counts (goal 0 of each): wrongTurnKills — a healthy turn 2 ended by fail-fast (MODEL_UNREACHABLE);
 *   reEmittedRetries — retry events reported under turn 2 (turn 1's, read again after the trim); plus
 *   turn2Failed (any other way turn 2 did not end end_turn with its text), noTrim (grok did not trim during turn 2:
 *   the run proved nothing, reported as a problem), turn1NotFailed, survivors.
 */
import { runTrimScenario, TRIM_SCENARIO_SCRIPT } from "../test/support/trim-scenario.js";
import { startLiveRig } from "../test/support/live-rig.js";

/** Runs of the scenario in a full and a --quick campaign. */
export const R7_HEALTH_RUNS = { quick: 2, full: 10 } as const;

/** Repeats the trimmed-log scenario; `tried` counts completed runs, `problems` says what went wrong in which run. */
export async function runR7Health(opts: {
  quick: boolean;
}): Promise<{ tried: number; counts: Record<string, number>; problems: string[] }> {
  const runs = opts.quick ? R7_HEALTH_RUNS.quick : R7_HEALTH_RUNS.full;
  const counts: Record<string, number> = {
    wrongTurnKills: 0,
    reEmittedRetries: 0,
    turn2Failed: 0,
    noTrim: 0,
    turn1NotFailed: 0,
    survivors: 0,
  };
  const problems: string[] = [];
  let tried = 0;
  for (let i = 1; i <= runs; i++) {
    const rig = await startLiveRig(TRIM_SCENARIO_SCRIPT);
    if (typeof rig === "string") {
      problems.push(`R7 health: ${rig}`);
      break;
    }
    try {
      const run = await runTrimScenario(rig, `r7-health-${i}`);
      tried += 1;
      const where = `R7 health run ${i}`;
      if (run.turn1.diagnostic?.code !== "MODEL_UNREACHABLE") {
        counts.turn1NotFailed! += 1;
        problems.push(
          `${where}: turn 1 ended ${run.turn1.stopReason ?? run.turn1.diagnostic?.code}, not MODEL_UNREACHABLE`,
        );
      }
      if (!run.trimmedDuringTurn2) {
        counts.noTrim! += 1;
        problems.push(
          `${where}: grok did not trim the log during turn 2 (${run.logBytesBeforeTurn2} -> ${run.logBytesAfterTurn2} bytes)`,
        );
      }
      if (run.turn2.diagnostic?.code === "MODEL_UNREACHABLE") {
        counts.wrongTurnKills! += 1;
        problems.push(
          `${where}: healthy turn 2 ended by fail-fast after ${run.turn2Ms} ms: ${run.turn2.diagnostic.message}`,
        );
      } else if (run.turn2.stopReason !== "end_turn" || run.turn2.diagnostic) {
        counts.turn2Failed! += 1;
        problems.push(`${where}: turn 2 ended ${run.turn2.stopReason ?? run.turn2.diagnostic?.code}`);
      }
      if (run.turn2Retries > 0) {
        counts.reEmittedRetries! += run.turn2Retries;
        problems.push(`${where}: ${run.turn2Retries} retry events reported under turn 2`);
      }
      if (run.survivors.length > 0) {
        counts.survivors! += run.survivors.length;
        problems.push(`${where}: processes survived dispose: ${run.survivors.join(", ")}`);
      }
    } catch (error) {
      problems.push(`R7 health run ${i}: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      await rig.close();
    }
  }
  return { tried, counts, problems };
}
