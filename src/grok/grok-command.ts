/*
 * Grok command: run one short, non-interactive `grok` subcommand (`--version`, `models`) and capture it.
 * Owns: execFile with a timeout and no shell, and the GROK_PROBE_FAILED error shape for such runs.
 * Does not own: the long-lived ACP agent process (process.ts) or parsing output (version.ts, models.ts).
 * Invariant: never throws for a non-zero exit; reports exit code, signal and the stderr tail instead.
 */
import { execFile } from "node:child_process";
import { SeatError } from "../errors.js";
import { buildAgentEnv } from "./launch.js";

/** What one finished `grok` subcommand printed and how it ended. */
export interface GrokCommandResult {
  command: string[];
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  /** Set when the command could not be run at all, timed out or overflowed its buffer. */
  error?: SeatError;
}

/** Options for runGrokCommand; `env` defaults to the allow-listed process env, `timeoutMs` to 15 s. */
export interface GrokCommandOptions {
  binary: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const MAX_OUTPUT_BYTES = 1024 * 1024;
const STDERR_TAIL_CHARS = 4096;

/** Runs `binary args…` without a shell and resolves (never rejects) with its output and outcome. */
export function runGrokCommand(options: GrokCommandOptions): Promise<GrokCommandResult> {
  const command = [options.binary, ...options.args];
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve) => {
    execFile(
      options.binary,
      options.args,
      {
        env: options.env ?? buildAgentEnv(process.env),
        timeout: timeoutMs,
        maxBuffer: MAX_OUTPUT_BYTES,
        shell: false,
        encoding: "utf8",
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        const out = String(stdout ?? "");
        const errText = String(stderr ?? "");
        if (!err) {
          resolve({ command, stdout: out, stderr: errText, exitCode: 0, signal: null });
          return;
        }
        const e = err as NodeJS.ErrnoException & { code?: unknown; killed?: boolean; signal?: string | null };
        const exitCode = typeof e.code === "number" ? e.code : null;
        const signal = e.signal ?? null;
        const stderrTail = errText.slice(-STDERR_TAIL_CHARS);
        // A plain non-zero exit is an outcome, not a failure to run; callers decide what it means.
        if (exitCode !== null && !e.killed) {
          resolve({ command, stdout: out, stderr: errText, exitCode, signal });
          return;
        }
        const why = e.killed
          ? `was killed after ${timeoutMs} ms (signal ${signal ?? "unknown"})`
          : `could not be run (${typeof e.code === "string" ? e.code : e.message})`;
        const error = new SeatError(
          "GROK_PROBE_FAILED",
          `\`${command.join(" ")}\` ${why}. Check that the path is an executable grok binary, or raise the timeout.`,
          { context: { command, exitCode, signal, stderrTail, timeoutMs }, cause: err, retryable: Boolean(e.killed) },
        );
        resolve({ command, stdout: out, stderr: errText, exitCode, signal, error });
      },
    );
  });
}
