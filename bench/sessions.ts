/*
 * P6 named sessions, no daemon: what continuing a session costs when every run spawns grok, resumes and
 *   prompts (seat run -s NAME), against a turn on a process kept alive, and against `grok -p` on the same prompt.
 * Owns: benchSessions() and its section for BENCHMARKS.md.
 * Does not own: the rig (test/support/live-rig.ts) or the report plumbing (run.ts, report.ts).
 * Method: the real grok 1.0.41 against the scripted loopback mock, one sandbox; per round, in rotating order:
 *   `seat run -s bench "…"` as a separate CLI process (wall time, process start to exit); the library's
 *   openSession + prompt + dispose (spawn + session/resume + prompt); one prompt on a session kept open
 *   across rounds; `grok -p "…"` as a process (wall time). Medians over rounds; ratios against `grok -p`.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { openSession } from "../src/sessions/index.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { fmt, median, ratio, table } from "./report.js";

const PROMPT = "reply with one line";
const SEAT_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));

/** Median wall times (ms) of one continued turn by each path. */
export interface SessionsBenchResult {
  rounds: number;
  cliContinuedMs?: number;
  libraryContinuedMs?: number;
  keptProcessMs?: number;
  grokPMs?: number;
  skipped?: string;
}

function timeProcess(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(performance.now() - t0)
        : reject(new Error(`${argv.slice(0, 3).join(" ")} exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
}

/** Runs P6 for `rounds` rounds (plus one warm-up of each path). */
export async function benchSessions({ rounds = 7 }: { rounds?: number } = {}): Promise<SessionsBenchResult> {
  const rig = await startLiveRig({ fallback: { text: "one line from the mock" } });
  if (typeof rig === "string") return { rounds: 0, skipped: rig };
  const home = mkdtempSync(join(tmpdir(), "gs-bench-sessions-"));
  const grokEnv = { ...rig.sessionOptions.env, ...rig.sessionOptions.agentEnv };
  const cliEnv = {
    ...rig.sessionOptions.env,
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: home,
  };
  const cwd = rig.sessionOptions.cwd;
  const kept = await openSession({ ...rig.sessionOptions, name: "kept", home, killGraceMs: 500 });
  const samples = { cli: [] as number[], lib: [] as number[], kept: [] as number[], grokP: [] as number[] };
  const paths: Array<[keyof typeof samples, () => Promise<number>]> = [
    ["cli", () => timeProcess([process.execPath, SEAT_MAIN, "run", "-s", "cli", PROMPT], cliEnv, cwd)],
    [
      "lib",
      async () => {
        const t0 = performance.now();
        const opened = await openSession({ ...rig.sessionOptions, name: "lib", home, killGraceMs: 500 });
        const result = await opened.session.prompt(PROMPT);
        await opened.session.dispose();
        if (result.stopReason !== "end_turn") throw new Error(`library turn: ${JSON.stringify(result)}`);
        return performance.now() - t0;
      },
    ],
    [
      "kept",
      async () => {
        const t0 = performance.now();
        const result = await kept.session.prompt(PROMPT);
        if (result.stopReason !== "end_turn") throw new Error(`kept turn: ${JSON.stringify(result)}`);
        return performance.now() - t0;
      },
    ],
    ["grokP", () => timeProcess([rig.binary, "--no-auto-update", "-p", PROMPT], grokEnv, cwd)],
  ];
  try {
    if (kept.session.state !== "ready")
      throw new Error(`kept session did not start: ${JSON.stringify(kept.session.diagnostics)}`);
    for (const [, run] of paths) await run(); // warm-up; also creates the "cli" and "lib" sessions, so rounds continue them
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < paths.length; i++) {
        const [key, run] = paths[(i + round) % paths.length]!;
        samples[key].push(await run());
      }
    }
  } finally {
    await kept.session.dispose();
    await rig.close();
    rmSync(home, { recursive: true, force: true });
  }
  return {
    rounds,
    cliContinuedMs: median(samples.cli),
    libraryContinuedMs: median(samples.lib),
    keptProcessMs: median(samples.kept),
    grokPMs: median(samples.grokP),
  };
}

/** The BENCHMARKS.md section of P6 (same shape as run.ts's sections). */
export function sessionsSection(r: SessionsBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title = "P6 named sessions, no daemon: a continued turn vs a kept process vs `grok -p`";
  if (r.skipped || r.grokPMs === undefined)
    return {
      title,
      body: `Skipped: ${r.skipped ?? "no data"}.`,
      goals: [{ goal: "seat run -s (continued) < grok -p", met: undefined, measured: "skipped" }],
    };
  const vs = (ms: number | undefined) => (ms === undefined ? "—" : ratio(ms / r.grokPMs!));
  return {
    title: `${title} (${r.rounds} rounds, medians)`,
    body: [
      table(
        ["path", "wall time (ms)", "× grok -p"],
        [
          [
            "`seat run -s NAME` continued (CLI process: node + spawn grok + session/resume + prompt + dispose)",
            fmt(r.cliContinuedMs),
            vs(r.cliContinuedMs),
          ],
          [
            "openSession + prompt + dispose, continued (library: spawn grok + session/resume + prompt)",
            fmt(r.libraryContinuedMs),
            vs(r.libraryContinuedMs),
          ],
          ["prompt on a session kept open (no spawn, no resume)", fmt(r.keptProcessMs), vs(r.keptProcessMs)],
          ["`grok -p` (a fresh grok process, one-shot)", fmt(r.grokPMs), "1.00×"],
        ],
      ),
      "",
      `Spawn + resume costs ${fmt((r.libraryContinuedMs ?? 0) - (r.keptProcessMs ?? 0))} ms per turn over a kept process; see docs/sessions.md for the choice this supports.`,
    ].join("\n"),
    goals: [
      {
        goal: "`seat run -s` continued turn faster than `grok -p` (ratio < 1)",
        met: r.cliContinuedMs !== undefined ? r.cliContinuedMs < r.grokPMs : undefined,
        measured: vs(r.cliContinuedMs),
      },
    ],
  };
}
