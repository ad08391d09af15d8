/*
 * P9 weight: what loading grok-seat costs before any work (issue 15 §8).
 * Owns: benchWeight() and its section for BENCHMARKS.md.
 * Does not own: the rig (test/support/live-rig.ts) or the report plumbing (run.ts, report.ts).
 * Method: (a) cold import — a fresh `node` per round runs `await import("grok-seat")` (resolved through the package's
 *   own exports) and reports the import's duration from inside (performance.now around the import); the same
 *   process's wall time and an empty `node -e ""` are shown beside it. (b) CLI overhead — per round, `seat run --json
 *   PROMPT` as a process (wall time, start to exit) and the same turn through the library in this warm process
 *   (createSession + prompt + dispose), same binary, sandbox and mock; the figure is the median of the per-round
 *   differences. Rounds alternate the order of the two paths. CPU time (user + system, from process.cpuUsage) is
 *   recorded beside each wall time: on a shared, overloaded machine it is the steadier figure. The CLI's CPU is its own
 *   process's (a preloaded exit hook reports it), not grok's.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { startLiveRig } from "../test/support/live-rig.js";
import { timeHarnessTurn } from "./live.js";
import { fmt, median, REPO_ROOT, table } from "./report.js";
import { alternateRounds } from "./rounds.js";

/** The P9 result (medians in ms). */
export interface WeightBenchResult {
  rounds: number;
  /** `await import("grok-seat")` measured inside a fresh process. */
  importMs: number;
  /** CPU time (user + system) of that import, inside the process. */
  importCpuMs?: number;
  /** Wall time of that whole process (node start, import, exit). */
  importProcessMs: number;
  /** Wall time of `node -e ""`: what any node process costs here. */
  emptyNodeMs: number;
  cliRunMs?: number;
  /** CPU time of the whole `seat run --json` process (node start to exit; grok's own CPU not included). */
  cliCpuMs?: number;
  libraryTurnMs?: number;
  /** Median over rounds of (seat run --json wall) − (library turn in a warm process). */
  cliOverheadMs?: number;
  skipped?: string;
}

/** Where P9 finds grok-seat; defaults to this checkout (a `before` figure can point at another build). */
export interface WeightBenchOptions {
  rounds?: number;
  /** Directory whose package.json is grok-seat (the import resolves `grok-seat` from there). */
  packageRoot?: string;
  /** The built CLI entry. */
  seatMain?: string;
}

const PROMPT = "bench turn";

function run(argv: string[], env: NodeJS.ProcessEnv, cwd: string): Promise<{ ms: number; stdout: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve({ ms: performance.now() - t0, stdout })
        : reject(new Error(`${argv.slice(0, 4).join(" ")} exited ${code}: ${stderr.slice(-500)}`)),
    );
  });
}

/** Runs P9 for `rounds` rounds (plus one warm-up of each path). */
export async function benchWeight(options: WeightBenchOptions = {}): Promise<WeightBenchResult> {
  const rounds = options.rounds ?? 9;
  const packageRoot = options.packageRoot ?? REPO_ROOT;
  const seatMain = options.seatMain ?? fileURLToPath(new URL("../cli/seat.js", import.meta.url));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const importScript =
    'const c = process.cpuUsage(); const t = performance.now(); await import("grok-seat"); const u = process.cpuUsage(c); process.stdout.write(`${performance.now() - t} ${(u.user + u.system) / 1000}`);';
  const imports: number[] = [];
  const importCpus: number[] = [];
  const importWalls: number[] = [];
  const empties: number[] = [];
  await run([process.execPath, "--input-type=module", "-e", importScript], env, packageRoot);
  for (let round = 0; round < rounds; round++) {
    const imported = await run([process.execPath, "--input-type=module", "-e", importScript], env, packageRoot);
    const [wall, cpu] = imported.stdout.split(" ").map(Number);
    imports.push(wall!);
    importCpus.push(cpu!);
    importWalls.push(imported.ms);
    empties.push((await run([process.execPath, "-e", ""], env, packageRoot)).ms);
  }
  const base = {
    rounds,
    importMs: median(imports),
    importCpuMs: median(importCpus),
    importProcessMs: median(importWalls),
    emptyNodeMs: median(empties),
  };

  const rig = await startLiveRig({ fallback: { text: "one line from the mock" } });
  if (typeof rig === "string") return { ...base, skipped: rig };
  const hookDir = mkdtempSync(join(tmpdir(), "gs-bench-weight-"));
  const cpuLog = join(hookDir, "cpu.log");
  writeFileSync(
    join(hookDir, "cpu-at-exit.mjs"),
    'import { appendFileSync } from "node:fs";\nprocess.on("exit", () => { const u = process.cpuUsage(); appendFileSync(process.env.GS_BENCH_CPU_LOG, `${(u.user + u.system) / 1000}\\n`); });\n',
  );
  const cliEnv = {
    ...rig.sessionOptions.env,
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GS_BENCH_CPU_LOG: cpuLog,
  };
  const cliCpus: number[] = [];
  const cli = async (): Promise<number> => {
    writeFileSync(cpuLog, "");
    const r = await run(
      [process.execPath, "--import", join(hookDir, "cpu-at-exit.mjs"), seatMain, "run", "--json", PROMPT],
      cliEnv,
      rig.sessionOptions.cwd,
    );
    if (!r.stdout.includes('"type":"done"'))
      throw new Error(`seat run --json ended without a done event: ${r.stdout.slice(-500)}`);
    cliCpus.push(Number(readFileSync(cpuLog, "utf8").trim()));
    return r.ms;
  };
  const library = async (): Promise<number> => (await timeHarnessTurn({ ...rig.sessionOptions, killGraceMs: 500 })).end;
  const cliRuns: number[] = [];
  const libraryRuns: number[] = [];
  try {
    await alternateRounds(rounds, cli, library, cliRuns, libraryRuns);
  } finally {
    await rig.close();
    rmSync(hookDir, { recursive: true, force: true });
  }
  cliCpus.shift(); // the warm-up run
  return {
    ...base,
    cliRunMs: median(cliRuns),
    cliCpuMs: median(cliCpus),
    libraryTurnMs: median(libraryRuns),
    cliOverheadMs: median(cliRuns.map((c, i) => c - libraryRuns[i]!)),
  };
}

/** The BENCHMARKS.md section of P9 (same shape as run.ts's sections). */
export function weightSection(r: WeightBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const ms = (v: number | undefined) => (v === undefined ? "—" : `${fmt(v / 1000)} s`);
  return {
    title: `P9 weight: cold \`import("grok-seat")\` and the CLI's cost around one turn (${r.rounds} rounds, medians)`,
    body: [
      table(
        ["what", "time"],
        [
          ['`await import("grok-seat")` in a fresh node (measured inside the process)', ms(r.importMs)],
          ["CPU time of that import (user + system)", ms(r.importCpuMs)],
          ["that whole process (node start + import + exit)", ms(r.importProcessMs)],
          ['`node -e ""` (any node process, for scale)', ms(r.emptyNodeMs)],
          ['`seat run --json "bench turn"` (process wall time)', ms(r.cliRunMs)],
          ["CPU time of that `seat` process, node start to exit (grok's own not included)", ms(r.cliCpuMs)],
          [
            "the same turn through the library in a warm process (createSession + prompt + dispose)",
            ms(r.libraryTurnMs),
          ],
          ["CLI overhead: median of per-round differences of the two rows above", ms(r.cliOverheadMs)],
        ],
      ),
      ...(r.skipped ? ["", `CLI rows skipped: ${r.skipped}.`] : []),
    ].join("\n"),
    goals: [
      { goal: 'cold `import("grok-seat")` ≤ 0.2 s', met: r.importMs <= 200, measured: ms(r.importMs) },
      {
        goal: "`seat run --json` wall − the same turn in a warm process ≤ 0.15 s",
        met: r.cliOverheadMs === undefined ? undefined : r.cliOverheadMs <= 150,
        measured: ms(r.cliOverheadMs),
      },
    ],
  };
}
