/*
 * CLI runner for integration tests: spawns the built `seat` as a user runs it: the bundle (node dist/cli/seat.js,
 *   the package's bin, made by scripts/bundle-cli.mjs), not the compiled tree it is made from.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Path of the `seat` users run (the package's bin). */
export const SEAT_MAIN = fileURLToPath(new URL("../../cli/seat.js", import.meta.url));

/** Path of the compiled entry the bundle is made from (for tests of which modules a verb loads). */
export const SEAT_COMPILED_MAIN = fileURLToPath(new URL("../../src/cli/main.js", import.meta.url));

/** Path of the test-only entry that installs the hooks GROK_SEAT_TEST_HOOKS names, then runs the real CLI. */
export const SEAT_HOOKED_MAIN = fileURLToPath(new URL("./seat-hooked.js", import.meta.url));

/** A line of a stack trace (a frame, or node's internals): never in what `seat` prints. */
export const STACK = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>)$|node:internal/m;

/** What a finished CLI run printed and how it exited. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `seat <args>`; `done` resolves when it exits. */
export function startSeat(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; main?: string },
): { child: ChildProcess; done: Promise<CliResult>; stdout(): string; stderr(): string } {
  const child = spawn(process.execPath, [options.main ?? SEAT_MAIN, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

/** Runs `seat <args>` to completion. */
export function runSeat(
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; main?: string },
): Promise<CliResult> {
  return startSeat(args, options).done;
}
