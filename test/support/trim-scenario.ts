/*
 * The audit's trimmed-log scenario (issue 14 item 1), on the real grok 1.0.41 and the mock model: a named
 * session's turn 1 fails with HTTP 500s and fail-fast ends it; the session is opened again (grok resumes the same
 * agent session in a new process), the shared log is grown past grok's 5 MiB trim threshold, and turn 2 goes to a
 * working model. grok trims the log in place as turn 2 arrives, and the kept half still holds turn 1's retries of
 * the same session id. Used by test/live/health/health-trim.test.ts and bench/r7-health.ts.
 */
import { appendFileSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SeatEvent, TurnResult } from "../../src/acp/index.js";
import { openSession } from "../../src/sessions/index.js";
import type { MockScript } from "../../src/testing.js";
import { GROK_TRIM_THRESHOLD_BYTES } from "./grok-trim.js";
import type { LiveRig } from "./live-rig.js";

/** The mock model's script: turn 1 gets HTTP 500s; turn 2 streams six words over about 2 s. */
export const TRIM_SCENARIO_SCRIPT: MockScript = {
  rules: [
    { match: "fail please", replies: [{ errorStatus: 500 }] },
    { match: "slow please", replies: [{ text: "one two three four five six", chunkDelayMs: 300 }] },
  ],
};

/** How long the reopened session sits idle before turn 2: past grok's ~2 s between two size checks. */
const IDLE_BEFORE_TURN2_MS = 3_000;

/** What one run of the scenario saw. */
export interface TrimScenarioResult {
  turn1: TurnResult;
  turn2: TurnResult;
  /** Retry events of turn 1 and of turn 2 (by promptId). */
  turn1Retries: number;
  turn2Retries: number;
  /** Did grok trim the log in place (same inode, smaller) while turn 2 ran? */
  trimmedDuringTurn2: boolean;
  /** When grok trimmed, and when turn 2 ended, in ms after turn 2 was sent. */
  trimAtMs: number | undefined;
  turn2Ms: number;
  logBytesBeforeTurn2: number;
  logBytesAfterTurn2: number;
  survivors: number[];
}

/** grok-shaped lines of another process, stamped an hour ago, `bytes` in all. */
function filler(bytes: number, from: number): string {
  const ts = new Date(Date.now() - 3_600_000).toISOString();
  const lines: string[] = [];
  let size = 0;
  for (let n = from; size < bytes; n++) {
    const line = `${JSON.stringify({ ts, src: "shell", pid: 1, ver: "1.0.41", lvl: "info", msg: "other grok", ctx: { n, pad: "x".repeat(200) } })}\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join("");
}

/** Runs the scenario once in `rig` (whose mock model runs TRIM_SCENARIO_SCRIPT) with the named session `name`. */
export async function runTrimScenario(rig: LiveRig, name = "trimmed"): Promise<TrimScenarioResult> {
  const log = join(rig.sandbox.grokHome, "logs", "unified.jsonl");
  mkdirSync(join(rig.sandbox.grokHome, "logs"), { recursive: true });
  // Below the threshold, so grok does not trim when it starts or during turn 1.
  writeFileSync(log, filler(GROK_TRIM_THRESHOLD_BYTES - 768 * 1024, 0));
  const events: SeatEvent[] = [];
  const options = {
    ...rig.sessionOptions,
    name,
    home: join(rig.sandbox.root, "seat"),
    failFastAfterRetries: 3,
    callbacks: { onEvent: (e: SeatEvent) => void events.push(e) },
  };
  const survivors: number[] = [];

  const first = await openSession(options);
  const turn1 = await first.session.prompt("fail please");
  survivors.push(...(await first.session.dispose()).survivors);

  const second = await openSession(options);
  try {
    // grok checks its log's size on a write at most every ~2 s (docs/health.md#rotation): the holder sits idle
    // past that window, so grok trims as turn 2 arrives, like the audit saw.
    await new Promise((r) => setTimeout(r, IDLE_BEFORE_TURN2_MS));
    // Another grok sharing this GROK_HOME logs meanwhile: the file passes the threshold before turn 2.
    appendFileSync(log, filler(GROK_TRIM_THRESHOLD_BYTES + 256 * 1024 - statSync(log).size, 1_000_000));
    const before = statSync(log);
    let trimAtMs: number | undefined;
    const sentAt = Date.now();
    const watch = setInterval(() => {
      try {
        const now = statSync(log);
        if (now.ino === before.ino && now.size < before.size) trimAtMs ??= Date.now() - sentAt;
      } catch {
        // removed: not a trim
      }
    }, 2);
    const turn2 = await second.session.prompt("slow please");
    const turn2Ms = Date.now() - sentAt;
    clearInterval(watch);
    const retriesOf = (promptId: string) => events.filter((e) => e.type === "retry" && e.promptId === promptId).length;
    return {
      turn1,
      turn2,
      turn1Retries: retriesOf(turn1.promptId),
      turn2Retries: retriesOf(turn2.promptId),
      trimmedDuringTurn2: trimAtMs !== undefined,
      trimAtMs,
      turn2Ms,
      logBytesBeforeTurn2: before.size,
      logBytesAfterTurn2: statSync(log).size,
      survivors,
    };
  } finally {
    survivors.push(...(await second.session.dispose()).survivors);
  }
}
