/*
 * The built `seat` run to its end synchronously (spawnSync), for tests that drive a visible seat step by step and
 *   read its last JSON line.
 */
import { spawnSync } from "node:child_process";
import { SEAT_HOOKED_MAIN, SEAT_MAIN } from "./cli.js";
import { jsonLines } from "./json-lines.js";

/** What a synchronous `seat` run printed and how it exited. */
export interface SeatSyncResult {
  code: number;
  stdout: string;
  stderr: string;
  /** The last non-empty stdout line as JSON, or null when it is not JSON (text output). */
  json: any;
  /** Every stdout line that starts with `{`, as JSON (read on use). */
  readonly lines: any[];
}

/** Options of seatSync. */
export interface SeatSyncOptions {
  /** Added to `env`; with GROK_SEAT_TEST_HOOKS set, the hooked entry runs (test/support/seat-hooked.ts). */
  extraEnv?: NodeJS.ProcessEnv;
  /** Written to stdin. */
  input?: string;
  /** The run is killed after this long (ms). Default 120 s. */
  timeoutMs?: number;
}

/** Runs `seat <args>` under `env` to its end. */
export function seatSync(env: NodeJS.ProcessEnv, args: string[], options: SeatSyncOptions = {}): SeatSyncResult {
  const { extraEnv = {}, input, timeoutMs = 120_000 } = options;
  const main = extraEnv.GROK_SEAT_TEST_HOOKS === undefined ? SEAT_MAIN : SEAT_HOOKED_MAIN;
  const r = spawnSync(process.execPath, [main, ...args], {
    env: { ...env, ...extraEnv },
    encoding: "utf8",
    timeout: timeoutMs,
    ...(input !== undefined ? { input } : {}),
  });
  const line = r.stdout.trim().split("\n").filter(Boolean).pop() ?? "";
  let json: any = null;
  try {
    json = JSON.parse(line);
  } catch {
    /* text output */
  }
  return {
    code: r.status ?? -1,
    stdout: r.stdout,
    stderr: r.stderr,
    json,
    get lines() {
      return jsonLines<any>(r.stdout);
    },
  };
}
