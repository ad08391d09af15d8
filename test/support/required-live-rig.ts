/*
 * Required live rig: a live rig (live-rig.ts) a CLI test cannot run without, and the grok processes it started.
 * Owns: failing the test in every mode when the real grok is missing (such a test is never skipped), counting it
 *   among the tests that ran on the real binary, and killing, after the test, every process whose environment
 *   names the rig's GROK_HOME before the rig is closed; the environment a `seat` process is given to run on it.
 * Does not own: starting the rig (live-rig.ts) or the required-mode policy (requirements.ts).
 */
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { MockScript } from "../../src/testing.js";
import { startLiveRig, type LiveRig } from "./live-rig.js";
import { alive } from "./processes.js";
import { needGrok, type TestLike } from "./requirements.js";

/** Live processes started for this rig: their environment names its GROK_HOME (the pid `except` is left out). */
export function grokProcesses(r: LiveRig, except?: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === except || !alive(Number(name))) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, "utf8").split("\0").includes(`GROK_HOME=${r.sandbox.grokHome}`))
        pids.push(Number(name));
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return pids;
}

/**
 * Starts a live rig on `script`, or fails the test when the real grok is unavailable. After the test, every grok
 * process of the rig is killed (SIGKILL) and the rig is closed.
 */
export async function startRequiredLiveRig(
  t: TestLike & { after(fn: () => Promise<void>): void },
  script: MockScript,
): Promise<LiveRig> {
  const started = await startLiveRig(script);
  if (typeof started === "string") assert.fail(`the real grok binary is required: ${started}`);
  needGrok(t, false); // counted among the tests that ran on the real binary
  t.after(async () => {
    for (const pid of grokProcesses(started)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // it ended between the scan and the kill
      }
    }
    await started.close();
  });
  return started;
}

/** The whole environment of a `seat` process run on `r`: PATH, the sandbox's HOME and GROK_HOME, its grok, a seat home. */
export function seatEnvFor(r: LiveRig, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: r.sandbox.home,
    GROK_HOME: r.sandbox.grokHome,
    GROK_BIN: r.binary,
    GROK_SEAT_HOME: join(r.sandbox.root, "seat-home"),
    ...extra,
  };
}
