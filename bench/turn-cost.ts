/*
 * P17 a turn's cost: `seat run --json` against grok's own headless mode (`grok -p --output-format streaming-json`)
 *   on the same one-line turn against the same mock, in wall time and in CPU time, helpers included.
 * Owns: benchTurnCost() and its section for BENCHMARKS.md.
 * Does not own: the rig (test/support/live-rig.ts) or the report plumbing (run.ts, report.ts).
 * Method: the real grok against the scripted loopback mock, one sandbox; per round, in rotating order: `seat run
 *   --json`, `seat run -s NAME` (continued), `grok -p --output-format streaming-json` and `grok -p`, each a process
 *   started through `sh -c '"$@"; times'`: the shell's children time is the process's CPU plus that of every child
 *   it waited for (for seat: grok itself). The reaper outlives its owner by design (it reaps after the owner's exit),
 *   so nobody waits for it: a preloaded exit hook names the seat's live children at exit, and the bench reads each
 *   one's /proc/PID/schedstat (CPU ns) every 2 ms until it is gone; the last reading is added (it misses at most the
 *   last 2 ms of that process's life). A fifth path is the wall floor of any client that starts grok for its turn:
 *   the bare ACP SDK client (bare-client.ts), already loaded here, from spawn to the turn's end. Medians over
 *   rounds; ratios are medians of per-round ratios. The seat
 *   process's own CPU is split with whole fresh node processes measured the same way: `node -e ""`, one importing the
 *   bundle's run verb chunk, one importing the bundle's ACP SDK chunk; each row is its process minus the empty one,
 *   the turn the rest. `seat` is the bundle users run (dist/cli/seat.js, scripts/bundle-cli.mjs).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startLiveRig } from "../test/support/live-rig.js";
import { bareGrokTurn } from "./live.js";
import { fmt, median, ratio, table } from "./report.js";

const PROMPT = "reply with one line";
const SEAT_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));

/** One path's medians: wall and CPU (ms), and for seat the part of the CPU its helpers (the reaper) used. */
export interface TurnCostPath {
  wallMs: number;
  cpuMs: number;
  helperCpuMs?: number;
  /** seat only: its own node process's CPU (the shell's figure less what it waited for, from /proc/self/stat). */
  selfCpuMs?: number;
}

/** Where a `seat run --json` process's own CPU goes, each measured in a fresh node (median ms). */
export interface SeatCpuBreakdown {
  /** A whole `node -e ""` process: node's own start and exit. */
  nodeStartMs: number;
  /** Loading `seat run`'s code: the bundle's run verb chunk and the chunks it imports, the ACP SDK not included. */
  runModulesMs: number;
  /** Loading the bundle's ACP SDK chunk (and the zod schemas it builds). */
  acpSdkMs: number;
}

/** The P17 result. */
export interface TurnCostBenchResult {
  rounds: number;
  seatJson?: TurnCostPath;
  seatContinued?: TurnCostPath;
  grokStreaming?: TurnCostPath;
  grokPlain?: TurnCostPath;
  /** Medians of per-round ratios, seat run --json ÷ grok -p streaming-json. */
  cpuRatio?: number;
  wallRatio?: number;
  /** seat run -s (continued) ÷ grok -p, wall, median of per-round ratios (P6's comparison). */
  continuedRatio?: number;
  /**
   * The wall floor of any client that starts grok for the turn: the bare ACP SDK client, already loaded in this
   * process, from spawning `grok agent stdio` to the turn's end (no node start, no module load, no dispose).
   */
  bareTurnWallMs?: number;
  /** bareTurnWallMs ÷ grok -p --output-format streaming-json, wall, median of per-round ratios. */
  bareWallRatio?: number;
  breakdown?: SeatCpuBreakdown;
  skipped?: string;
}

/** CPU ns of a live process (/proc/PID/schedstat), or undefined once it is gone. */
function cpuNs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    return undefined;
  }
}

/** Follows each pid until it exits; resolves with the sum of their last CPU readings (ms). */
async function followToExit(pids: number[]): Promise<number> {
  const last = new Map<number, number>();
  let live = pids;
  while (live.length > 0) {
    live = live.filter((pid) => {
      const ns = cpuNs(pid);
      if (ns !== undefined) last.set(pid, ns);
      return ns !== undefined;
    });
    if (live.length > 0) await sleep(2);
  }
  return [...last.values()].reduce((a, b) => a + b, 0) / 1e6;
}

/** Runs argv under `sh -c '"$@"; times'`: wall ms, and CPU ms of the process and the children it waited for. */
function timed(
  argv: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ wallMs: number; cpuMs: number; stdout: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn("/bin/sh", ["-c", '"$@" || exit $?; times >&2', "sh", ...argv], {
      env,
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const wallMs = performance.now() - t0;
      // `times` prints the shell's own user/system line, then its children's.
      const children = stderr.trim().split("\n").at(-1) ?? "";
      const parts = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => Number(m[1]) * 60_000 + Number(m[2]) * 1000);
      if (code !== 0 || parts.length !== 2)
        return reject(new Error(`${argv.slice(0, 4).join(" ")} exited ${code}: ${stderr.slice(-500)}`));
      resolve({ wallMs, cpuMs: parts[0]! + parts[1]!, stdout });
    });
  });
}

/** Runs P17 for `rounds` rounds (plus one warm-up of each path). */
export async function benchTurnCost({ rounds = 9 }: { rounds?: number } = {}): Promise<TurnCostBenchResult> {
  const rig = await startLiveRig({ fallback: { text: "one line from the mock" } });
  if (typeof rig === "string") return { rounds: 0, skipped: rig };
  const dir = mkdtempSync(join(tmpdir(), "gs-bench-turn-cost-"));
  const childLog = join(dir, "children.log");
  // At the seat's exit, its live children (the reaper) by pid, from /proc/self/task/*/children.
  writeFileSync(
    join(dir, "children-at-exit.mjs"),
    [
      'import { appendFileSync, readdirSync, readFileSync } from "node:fs";',
      'process.on("exit", () => {',
      "  // cutime + cstime: the CPU of the children this process waited for (grok), in clock ticks (100 per second).",
      '  const text = readFileSync("/proc/self/stat", "utf8");',
      '  const stat = text.slice(text.lastIndexOf(")") + 2).split(" ");',
      "  const waited = (Number(stat[13]) + Number(stat[14])) * 10;",
      '  const pids = readdirSync("/proc/self/task").flatMap((t) => readFileSync(`/proc/self/task/${t}/children`, "utf8").trim().split(" ").filter(Boolean));',
      '  appendFileSync(process.env.GS_BENCH_CHILD_LOG, `${waited}\\n${pids.join(" ")}\\n`);',
      "});",
    ].join("\n"),
  );
  const grokEnv = { ...rig.sessionOptions.env, ...rig.sessionOptions.agentEnv };
  const cliEnv = {
    ...rig.sessionOptions.env,
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: join(dir, "seat-home"),
    GS_BENCH_CHILD_LOG: childLog,
  };
  const cwd = rig.sessionOptions.cwd;
  const seat = async (args: string[]): Promise<TurnCostPath> => {
    writeFileSync(childLog, "");
    const r = await timed(
      [process.execPath, "--import", join(dir, "children-at-exit.mjs"), SEAT_MAIN, ...args],
      cliEnv,
      cwd,
    );
    const [waited, children] = readFileSync(childLog, "utf8").split("\n");
    const helperCpuMs = await followToExit((children ?? "").split(" ").filter(Boolean).map(Number));
    return { wallMs: r.wallMs, cpuMs: r.cpuMs + helperCpuMs, helperCpuMs, selfCpuMs: r.cpuMs - Number(waited) };
  };
  const grok = async (args: string[]): Promise<TurnCostPath> => {
    const r = await timed([rig.binary, "--no-auto-update", "-p", PROMPT, ...args], grokEnv, cwd);
    return { wallMs: r.wallMs, cpuMs: r.cpuMs };
  };
  const bare = async (): Promise<TurnCostPath> => ({
    wallMs: (await bareGrokTurn(rig, PROMPT)).end,
    cpuMs: Number.NaN,
  });
  const samples = {
    bareTurn: [] as TurnCostPath[],
    seatJson: [] as TurnCostPath[],
    seatContinued: [] as TurnCostPath[],
    grokStreaming: [] as TurnCostPath[],
    grokPlain: [] as TurnCostPath[],
  };
  const paths: Array<[keyof typeof samples, () => Promise<TurnCostPath>]> = [
    ["seatJson", () => seat(["run", "--json", PROMPT])],
    ["seatContinued", () => seat(["run", "-s", "bench", PROMPT])],
    ["grokStreaming", () => grok(["--output-format", "streaming-json"])],
    ["grokPlain", () => grok([])],
    ["bareTurn", bare],
  ];
  try {
    for (const [, run] of paths) await run(); // warm-up; also creates the "bench" session, so rounds continue it
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < paths.length; i++) {
        const [key, run] = paths[(i + round) % paths.length]!;
        samples[key].push(await run());
      }
    }
  } finally {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const summary = (s: TurnCostPath[]): TurnCostPath => ({
    wallMs: median(s.map((x) => x.wallMs)),
    cpuMs: median(s.map((x) => x.cpuMs)),
    ...(s[0]?.helperCpuMs !== undefined ? { helperCpuMs: median(s.map((x) => x.helperCpuMs ?? 0)) } : {}),
    ...(s[0]?.selfCpuMs !== undefined ? { selfCpuMs: median(s.map((x) => x.selfCpuMs ?? 0)) } : {}),
  });
  const perRound = (a: TurnCostPath[], b: TurnCostPath[], pick: (p: TurnCostPath) => number) =>
    median(a.map((x, i) => pick(x) / pick(b[i]!)));
  return {
    rounds,
    seatJson: summary(samples.seatJson),
    seatContinued: summary(samples.seatContinued),
    grokStreaming: summary(samples.grokStreaming),
    grokPlain: summary(samples.grokPlain),
    cpuRatio: perRound(samples.seatJson, samples.grokStreaming, (p) => p.cpuMs),
    wallRatio: perRound(samples.seatJson, samples.grokStreaming, (p) => p.wallMs),
    continuedRatio: perRound(samples.seatContinued, samples.grokPlain, (p) => p.wallMs),
    bareTurnWallMs: median(samples.bareTurn.map((x) => x.wallMs)),
    bareWallRatio: perRound(samples.bareTurn, samples.grokStreaming, (p) => p.wallMs),
    breakdown: await seatCpuBreakdown(rounds),
  };
}

/** CPU ms of a whole fresh node process (start, `body` as an ES module in the package root, exit). */
async function cpuOfFreshNode(body: string): Promise<number> {
  return (
    await timed(
      [process.execPath, "--input-type=module", "-e", body],
      { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      fileURLToPath(new URL("..", import.meta.url)),
    )
  ).cpuMs;
}

/**
 * The bundle's chunk named `name` (esbuild names a lazily loaded chunk after its entry file) that holds `marker`
 * (a path esbuild notes above each module it bundles); throws when there is not exactly one.
 */
function bundleChunk(name: string, marker: string): string {
  const dir = fileURLToPath(new URL("../cli/chunks/", import.meta.url));
  const found = readdirSync(dir).filter(
    (f) => f.startsWith(`${name}-`) && readFileSync(join(dir, f), "utf8").includes(marker),
  );
  if (found.length !== 1) throw new Error(`expected one chunk ${name}-*.js holding ${marker} in ${dir}: ${found}`);
  return JSON.stringify(pathToFileURL(join(dir, found[0]!)).href);
}

/** Medians over `rounds` fresh processes of: node's start, the bundle's run verb, the ACP SDK (in the bundle). */
async function seatCpuBreakdown(rounds: number): Promise<SeatCpuBreakdown> {
  // seat.js itself would run the CLI; the run verb's chunk imports the shared chunks main.js uses too.
  const runChunk = bundleChunk("run", "src/cli/commands/run.js");
  const sdkChunk = bundleChunk("acp", "node_modules/@agentclientprotocol/sdk/");
  const start: number[] = [];
  const run: number[] = [];
  const sdk: number[] = [];
  for (let round = 0; round < rounds; round++) {
    start.push(await cpuOfFreshNode(""));
    run.push(await cpuOfFreshNode(`await import(${runChunk});`));
    sdk.push(await cpuOfFreshNode(`await import(${sdkChunk});`));
  }
  const nodeStartMs = median(start);
  return { nodeStartMs, runModulesMs: median(run) - nodeStartMs, acpSdkMs: median(sdk) - nodeStartMs };
}

/** The BENCHMARKS.md section of P17 (same shape as run.ts's sections). */
export function turnCostSection(r: TurnCostBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title = "P17 a turn's cost: `seat run` vs `grok -p` on one one-line turn, wall and CPU (helpers included)";
  const goals = (met: (r: TurnCostBenchResult) => [boolean | undefined, boolean | undefined, boolean | undefined]) => {
    const [cpu, wall, continued] = met(r);
    return [
      {
        goal: "`seat run --json` CPU ≤ 1.5× `grok -p --output-format streaming-json` (grok and the reaper included)",
        met: cpu,
        measured: r.cpuRatio === undefined ? "skipped" : ratio(r.cpuRatio),
      },
      {
        goal: "`seat run --json` wall ≤ 0.5× `grok -p --output-format streaming-json`",
        met: wall,
        measured: r.wallRatio === undefined ? "skipped" : ratio(r.wallRatio),
      },
      {
        goal: "`seat run -s` continued wall < 1.0× `grok -p` (P6's goal, measured here beside CPU)",
        met: continued,
        measured: r.continuedRatio === undefined ? "skipped" : ratio(r.continuedRatio),
      },
    ];
  };
  if (r.skipped || !r.seatJson || !r.grokStreaming || !r.seatContinued || !r.grokPlain)
    return {
      title,
      body: `Skipped: ${r.skipped ?? "no data"}.`,
      goals: goals(() => [undefined, undefined, undefined]),
    };
  const row = (what: string, p: TurnCostPath) => [
    what,
    fmt(p.wallMs),
    fmt(p.cpuMs),
    p.helperCpuMs === undefined ? "—" : fmt(p.helperCpuMs),
  ];
  return {
    title: `${title} (${r.rounds} rounds, medians)`,
    body: [
      table(
        [
          "path",
          "wall (ms)",
          "CPU (ms): the process, what it waited for, its helpers",
          "of which helpers (the reaper)",
        ],
        [
          row("`seat run --json`", r.seatJson),
          row("`seat run -s NAME` continued", r.seatContinued),
          row("`grok -p --output-format streaming-json`", r.grokStreaming),
          row("`grok -p`", r.grokPlain),
        ],
      ),
      "",
      `Ratios (medians of per-round ratios): \`seat run --json\` ÷ \`grok -p --output-format streaming-json\`: CPU ${ratio(r.cpuRatio!)}, wall ${ratio(r.wallRatio!)}; \`seat run -s\` continued ÷ \`grok -p\`: wall ${ratio(r.continuedRatio!)}.`,
      ...(r.bareWallRatio === undefined
        ? []
        : [
            "",
            `Wall floor of a client that starts grok for its turn: the bare ACP SDK client, already loaded in a running process, from spawning \`grok agent stdio\` to the turn's end (no node start, no module load, no dispose): ${fmt(r.bareTurnWallMs!)} ms, ${ratio(r.bareWallRatio)} \`grok -p --output-format streaming-json\` (median of per-round ratios). A wall goal below this ratio needs an agent started before the turn.`,
          ]),
      ...(r.breakdown ? ["", ...breakdownLines(r.seatJson, r.breakdown, r.grokStreaming)] : []),
    ].join("\n"),
    goals: goals((x) => [x.cpuRatio! <= 1.5, x.wallRatio! <= 0.5, x.continuedRatio! < 1]),
  };
}

/** Where `seat run --json`'s CPU goes: grok, the reaper, and the seat process split into start, modules and turn. */
function breakdownLines(seat: TurnCostPath, b: SeatCpuBreakdown, grokP: TurnCostPath): string[] {
  const self = seat.selfCpuMs ?? 0;
  const helpers = seat.helperCpuMs ?? 0;
  const grok = seat.cpuMs - self - helpers;
  const turn = self - b.nodeStartMs - b.runModulesMs - b.acpSdkMs;
  return [
    "Where `seat run --json`'s CPU goes (medians; the module rows are measured in fresh node processes, the rest is what is left):",
    "",
    table(
      ["part", "CPU (ms)"],
      [
        ["grok (`grok agent stdio`, waited for by seat)", fmt(grok)],
        ["the reaper (a node process that outlives the seat to reap after it)", fmt(helpers)],
        ["the seat process, start to exit", fmt(self)],
        ['· node\'s own start and exit (a whole `node -e ""`)', fmt(b.nodeStartMs)],
        [
          "· loading `seat run`'s code: the bundle's run verb and its chunks (SQLite's binding not included)",
          fmt(b.runModulesMs),
        ],
        ["· loading the ACP SDK (its chunk of the bundle) and the zod schemas it builds at import", fmt(b.acpSdkMs)],
        [
          "· the rest: the turn (spawn, handshake, metering proxy, ledger with SQLite, control socket, dispose)",
          fmt(turn),
        ],
      ],
    ),
    "",
    // What no trimming of our own modules can remove while the seat is a node process with a node reaper and the
    // ACP SDK: grok, the reaper, node's start and the SDK.
    `Floor of this design: grok + the reaper + node's start + the ACP SDK = ${fmt(grok + helpers + b.nodeStartMs + b.acpSdkMs)} ms, ${ratio((grok + helpers + b.nodeStartMs + b.acpSdkMs) / grokP.cpuMs)} \`grok -p --output-format streaming-json\`'s CPU before any of our own code runs.`,
  ];
}
