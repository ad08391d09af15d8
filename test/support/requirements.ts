/*
 * Test requirements: the one place a test decides that something it needs (the real grok binary, tmux,
 * /proc, a fixture) is missing — and whether that skips the test or fails it.
 * Owns: required mode (GROK_SEAT_REQUIRE_LIVE=1, set by `.ci/run` and by `npm test` on Linux x64), where a
 *   missing requirement is a failure naming it; the tally of tests that ran on the real grok binary and of
 *   skips, appended to a file in GROK_SEAT_TEST_TALLY_DIR for scripts/run-tests.mjs to total.
 * Does not own: finding the binary (grok/) or starting rigs (live-rig.ts).
 * Invariant: only a real Herdr server is optional in every mode (`optional`); everything else goes through
 *   `need`, which never skips in required mode.
 */
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

/** True when a missing requirement must fail the test instead of skipping it. */
export const REQUIRED = process.env.GROK_SEAT_REQUIRE_LIVE === "1";

/** The part of node:test's TestContext the helpers use. */
export interface TestLike {
  readonly name: string;
  skip(message?: string): void;
}

function tally(kind: "live" | "skip", name: string, why = ""): void {
  const dir = process.env.GROK_SEAT_TEST_TALLY_DIR;
  if (!dir) return;
  const clean = (s: string) => s.replace(/[\t\n]/g, " ");
  appendFileSync(join(dir, `${process.pid}.tsv`), `${kind}\t${clean(name)}\t${clean(why)}\n`);
}

/**
 * True when nothing is missing (`missing` is false or undefined). Otherwise, in required mode, throws an error
 * naming what is missing (the test fails); outside it, skips the test saying why and returns false.
 */
export function need(t: TestLike, missing: string | false | undefined): boolean {
  if (!missing) return true;
  if (REQUIRED)
    throw new Error(`missing requirement: ${missing} (GROK_SEAT_REQUIRE_LIVE=1 makes this a failure, not a skip)`);
  tally("skip", t.name, missing);
  t.skip(missing);
  return false;
}

/** Like `need`, for the real grok binary: also counts the test as one that ran on it. */
export function needGrok(t: TestLike, missing: string | false | undefined): boolean {
  if (!need(t, missing)) return false;
  tally("live", t.name);
  return true;
}

/** Skips in every mode when `missing`: only for a real Herdr server, which CI does not install. */
export function optional(t: TestLike, missing: string | false | undefined): boolean {
  if (!missing) return true;
  tally("skip", t.name, `optional: ${missing}`);
  t.skip(missing);
  return false;
}

let tmuxChecked: string | false | undefined;

/** Why tmux cannot be used here, or false when it can. */
export function tmuxMissing(): string | false {
  tmuxChecked ??= spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0 ? false : "tmux (not found on PATH)";
  return tmuxChecked;
}

/**
 * Narrows a rig-or-reason (what startLiveRig returns): true for a rig, counting the test as one that runs on
 * the real grok binary; for a reason, fails the test in required mode or skips it.
 */
export function gotLive<R extends object>(t: TestLike, value: R | string): value is R {
  if (typeof value === "string") {
    need(t, value);
    return false;
  }
  tally("live", t.name);
  return true;
}
