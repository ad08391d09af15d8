/*
 * R7 (sessions part): the audit's named-session scenarios of issue 14 repeated on the real grok 1.0.41 and the
 *   scripted loopback mock, counting what the audit saw go wrong — goal 0 of each.
 * Owns: runR7Sessions() and what counts as each failure.
 * Does not own: the scenarios (test/support/session-audit.ts), the rig (test/support/live-rig.ts), wiring
 *   into `npm run torture` (bench/torture.ts).
 * Counts:
 *   stolenLeases            the holder's node binary was replaced mid-turn and a second run was not refused
 *                           SESSION_BUSY, or its prompt reached the model, or a second turn was recorded
 *   misreportedCorruption   with the journal write-locked by another process, some command or the holder said
 *                           JOURNAL_CORRUPT, INTERNAL or "database is locked", or the holder's turn stayed running
 *   falseIdentityMismatch   with a seat home past sun_path, `seat cancel -s` answered IDENTITY_MISMATCH
 *   otherFailures           anything else the scenario expected and did not see (each named in `problems`)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliResult } from "../test/support/cli.js";
import { startLiveRig } from "../test/support/live-rig.js";
import {
  AUDIT_SCRIPT,
  errorCode,
  exeReplacedScenario,
  journalLockedScenario,
  longHomeScenario,
} from "../test/support/session-audit.js";

/** What R7's session scenarios found. */
export interface R7SessionsResult {
  tried: number;
  counts: Record<string, number>;
  problems: string[];
}

const brief = (r: CliResult) => `exit ${r.code}${errorCode(r) ? ` ${errorCode(r)}` : ""}`;
const MISREPORT = /JOURNAL_CORRUPT|INTERNAL|database is locked/;

/** Runs each scenario 1–2 times (quick) or 5 times (full) on one rig; never throws for a scenario's failure. */
export async function runR7Sessions(opts: { quick: boolean }): Promise<R7SessionsResult> {
  const counts: Record<string, number> = {
    stolenLeases: 0,
    misreportedCorruption: 0,
    falseIdentityMismatch: 0,
    otherFailures: 0,
  };
  const problems: string[] = [];
  const rig = await startLiveRig(AUDIT_SCRIPT);
  if (typeof rig === "string") return { tried: 0, counts, problems: [`the real grok binary is unavailable: ${rig}`] };
  const scratch = mkdtempSync(join(tmpdir(), "gs-r7-sessions-"));
  const repeats = opts.quick ? { exe: 2, lock: 1, long: 2 } : { exe: 5, lock: 5, long: 5 };
  let tried = 0;
  const other = (what: string) => {
    counts.otherFailures! += 1;
    problems.push(what);
  };
  try {
    const seatHome = join(rig.sandbox.root, "seat-home");
    for (let i = 0; i < repeats.exe; i++) {
      tried += 1;
      const name = `upgraded-${i}`;
      try {
        const seen = await exeReplacedScenario(rig, { seatHome, name, scratch: join(scratch, "bin") });
        if (!seen.reachedModel || !seen.exeDeleted)
          other(`${name}: setup failed (reached model ${seen.reachedModel}, exe deleted ${seen.exeDeleted})`);
        else if (
          seen.second.code !== 75 ||
          errorCode(seen.second) !== "SESSION_BUSY" ||
          seen.secondSent > 0 ||
          seen.turns.length > 1
        ) {
          counts.stolenLeases! += 1;
          problems.push(
            `${name}: lease stolen (second run ${brief(seen.second)}, sent ${seen.secondSent}, turns ${seen.turns.map((x) => x.state).join(",")})`,
          );
        } else if (seen.cancel.code !== 0 || seen.holder.code !== 130)
          other(`${name}: cancel ${brief(seen.cancel)}, holder ${brief(seen.holder)}`);
      } catch (error) {
        other(`${name}: ${(error as Error).message}`);
      }
    }
    for (let i = 0; i < repeats.lock; i++) {
      tried += 1;
      const name = `locked-${i}`;
      try {
        const seen = await journalLockedScenario(rig, { seatHome, name });
        const outputs = [seen.list, seen.cancel, seen.other, seen.holder].map((r) => r.stdout + r.stderr).join("\n");
        if (!seen.reachedModel || !seen.lockHeldThroughout)
          other(`${name}: setup failed (reached model ${seen.reachedModel}, lock held ${seen.lockHeldThroughout})`);
        else if (MISREPORT.test(outputs) || seen.turns.some((x) => x.state === "running")) {
          counts.misreportedCorruption! += 1;
          problems.push(
            `${name}: list ${brief(seen.list)}, cancel ${brief(seen.cancel)}, other ${brief(seen.other)}, holder ${brief(seen.holder)}, turns ${seen.turns.map((x) => x.state).join(",")}`,
          );
        } else if (
          seen.list.code !== 0 ||
          seen.cancel.code !== 0 ||
          errorCode(seen.other) !== "JOURNAL_BUSY" ||
          seen.holder.code !== 130
        ) {
          other(
            `${name}: list ${brief(seen.list)}, cancel ${brief(seen.cancel)}, other ${brief(seen.other)}, holder ${brief(seen.holder)}`,
          );
        }
      } catch (error) {
        other(`${name}: ${(error as Error).message}`);
      }
    }
    for (let i = 0; i < repeats.long; i++) {
      tried += 1;
      const name = `long-${i}`;
      try {
        const seen = await longHomeScenario(rig, { root: rig.sandbox.root, name });
        if (!seen.reachedModel) other(`${name}: the holder's turn never reached the model`);
        else if (errorCode(seen.cancel) === "IDENTITY_MISMATCH") {
          counts.falseIdentityMismatch! += 1;
          problems.push(`${name}: cancel answered IDENTITY_MISMATCH for a ${seen.seatHomeBytes}-byte seat home`);
        } else if (seen.cancel.code !== 0 || seen.holder.code !== 130 || seen.leftovers.length > 0) {
          other(
            `${name}: cancel ${brief(seen.cancel)}, holder ${brief(seen.holder)}, left ${seen.leftovers.join(",") || "nothing"}`,
          );
        }
      } catch (error) {
        other(`${name}: ${(error as Error).message}`);
      }
    }
  } finally {
    await rig.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return { tried, counts, problems };
}
