/*
 * Grok version: parse `grok --version`, compare versions, and probe a binary for presence.
 * Owns: the `grok X.Y.Z (sha) [channel]` format and binary readiness (`binaryReady`).
 * Does not own: authenticated ACP readiness (runtime/ reports that after a real handshake).
 * Invariant: the probe resolves, never rejects; `binaryReady` means "runs and prints a parsable version", nothing more.
 */
import { SeatError } from "../errors.js";
import { runGrokCommand } from "./grok-command.js";

/** A parsed `grok --version` line. */
export interface GrokVersion {
  version: string;
  sha: string;
  channel?: string;
}

// `grok 1.0.41 (4220f3b224a6)` optionally followed by ` [stable]`; pre-release tags like 1.1.0-rc.1 allowed.
const VERSION_LINE = /^grok (\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?) \(([0-9a-f]{7,40})\)(?: \[([a-z][a-z0-9_-]*)\])?$/;

/** Parses `grok --version` stdout into version, sha and optional channel; null for anything else. */
export function parseGrokVersion(stdout: string): GrokVersion | null {
  if (typeof stdout !== "string") return null;
  const line = stdout.replace(/\r?\n$/, "");
  const m = VERSION_LINE.exec(line);
  if (!m) return null;
  const parsed: GrokVersion = { version: m[1]!, sha: m[2]! };
  if (m[3] !== undefined) parsed.channel = m[3];
  return parsed;
}

/** Compares two `X.Y.Z[-pre]` versions: negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const split = (v: string): [number[], string | undefined] => {
    const dash = v.indexOf("-");
    const core = dash === -1 ? v : v.slice(0, dash);
    const pre = dash === -1 ? undefined : v.slice(dash + 1);
    return [core.split(".").map((n) => Number.parseInt(n, 10) || 0), pre];
  };
  const [ca, pa] = split(a);
  const [cb, pb] = split(b);
  for (let i = 0; i < Math.max(ca.length, cb.length); i++) {
    const d = (ca[i] ?? 0) - (cb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  // Semver: a pre-release sorts before its release.
  if (pa === pb) return 0;
  if (pa === undefined) return 1;
  if (pb === undefined) return -1;
  return pa < pb ? -1 : 1;
}

/** The outcome of probing a grok binary; `binaryReady` says nothing about authentication. */
export interface GrokProbe {
  binaryReady: boolean;
  path: string;
  version?: string;
  sha?: string;
  channel?: string;
  error?: SeatError;
}

/** Options for probeGrok; `env` should be an allow-listed env (see buildAgentEnv), `timeoutMs` defaults to 10 s. */
export interface ProbeGrokOptions {
  binary: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

/** Runs `grok --version` and reports whether the binary is present and prints a parsable version; never rejects. */
export async function probeGrok(options: ProbeGrokOptions): Promise<GrokProbe> {
  const result = await runGrokCommand({
    binary: options.binary,
    args: ["--version"],
    env: options.env,
    timeoutMs: options.timeoutMs ?? 10_000,
  });
  if (result.error) return { binaryReady: false, path: options.binary, error: result.error };
  const parsed = result.exitCode === 0 ? parseGrokVersion(result.stdout) : null;
  if (!parsed) {
    const error = new SeatError(
      "GROK_PROBE_FAILED",
      `\`${result.command.join(" ")}\` exited ${result.exitCode ?? result.signal} and printed ${JSON.stringify(result.stdout.slice(0, 200))}, not "grok X.Y.Z (sha)". Point grokCliBinaryPath or GROK_BIN at xAI's grok binary.`,
      {
        context: {
          command: result.command,
          exitCode: result.exitCode,
          signal: result.signal,
          stderrTail: result.stderr.slice(-4096),
        },
      },
    );
    return { binaryReady: false, path: options.binary, error };
  }
  return { binaryReady: true, path: options.binary, ...parsed };
}
