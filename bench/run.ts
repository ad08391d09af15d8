/*
 * `npm run bench`: runs P1–P17, prints one table per benchmark, writes bench/results/<name>.json and
 *   regenerates BENCHMARKS.md from every result file present.
 * Owns: the order of the benchmarks, their sizes (full and --quick), the goals and the markdown.
 * Does not own: any measurement (bench/stream.ts, live.ts, bridge.ts, fence.ts, scale.ts, seat.ts, sessions.ts,
 *   fleet-bench.ts).
 * Usage: node dist/bench/run.js [--quick] [--only=P1,P3] [--p5-grok=1,8] [--p5-fake=1,32]
 *   --quick runs small sizes and writes nothing (a smoke run); the full run rewrites results and BENCHMARKS.md.
 *   --p5-grok / --p5-fake set P5's wave sizes (an empty list skips that agent).
 *   The run moves itself into a loopback-only network namespace (`unshare -rn`) when the machine allows it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInLoopbackNamespace } from "../src/sandbox/index.js";
import { benchBridge } from "./bridge.js";
import { benchFence } from "./fence.js";
import { benchFleet, fleetBenchSection } from "./fleet-bench.js";
import { benchLive } from "./live.js";
import {
  fmt,
  machineInfo,
  machineLine,
  parseFlags,
  ratio,
  REPO_ROOT,
  RESULTS_DIR,
  stampLine,
  table,
  writeResult,
  type MachineInfo,
} from "./report.js";
import { benchScale } from "./scale.js";
import { benchStream } from "./stream.js";
import { benchSessions, sessionsSection } from "./sessions.js";
import { agentsSection, benchAgents } from "./agents.js";
import { benchWeight, weightSection } from "./weight.js";
import { benchTurnCost, turnCostSection } from "./turn-cost.js";
import { benchWorktrees, worktreesSection } from "./worktrees.js";
import { benchMcp, mcpSection } from "./mcp.js";
import { approvalsSection, benchApprovals } from "./approvals.js";
import { benchSpend, spendSection } from "./spend.js";
import { benchNotify, notifySection } from "./notify.js";
import { benchFleetNotify } from "./notify-fleet.js";
import { benchLinks, linksSection } from "./links.js";
import { benchRestore, restoreSection } from "./restore.js";

type Stored<T> = T & { machine: MachineInfo; ranAt?: RanAt };

/** When and on which commit one benchmark ran; stored in its result JSON and printed under its table. */
interface RanAt {
  commit: string;
  startedAt: string;
  finishedAt: string;
}

/** Runs one benchmark and stamps its result with the commit and its start and end times. */
async function stamped<T extends object>(commit: string, run: () => Promise<T>): Promise<T & { ranAt: RanAt }> {
  const startedAt = new Date().toISOString();
  const result = await run();
  return { ...result, ranAt: { commit, startedAt, finishedAt: new Date().toISOString() } };
}

/** The section with the line naming the commit and time its figures come from. */
function withStamp(section: Section, r: { ranAt?: RanAt; machine?: MachineInfo }): Section {
  const stamp = r.ranAt
    ? stampLine({ commit: r.ranAt.commit, date: r.ranAt.startedAt }, r.ranAt.finishedAt)
    : r.machine
      ? stampLine(r.machine)
      : "_Commit and time not recorded._";
  return { ...section, body: `${section.body}\n\n${stamp}` };
}

/** One benchmark's section: the table and whether each goal was met. */
interface Section {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
}

function readResult<T>(name: string): Stored<T> | undefined {
  const path = join(RESULTS_DIR, `${name}.json`);
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Stored<T>) : undefined;
}

function streamSection(r: Awaited<ReturnType<typeof benchStream>>): Section {
  const rows = r.clients.map((c) => [
    c.client,
    c.error ? "—" : fmt(c.updatesPerSecond),
    c.error ? "—" : ratio(c.ratioToBare),
    c.error ? "—" : c.samples.map((s) => fmt(s)).join(", "),
    c.error ?? "",
  ]);
  const seat = r.clients.find((c) => c.client === "grok-seat");
  const acpx = r.clients.find((c) => c.client === "acpx");
  const vsAcpx = seat && acpx && !acpx.error ? seat.ratioToBare / acpx.ratioToBare : undefined;
  return {
    title: `P1 stream throughput (${r.chunks} session/update chunks per turn, ${r.rounds} rounds)`,
    body: table(
      ["client", "updates/s (median)", "× bare SDK (median of per-round ratios)", "per-round updates/s", "note"],
      rows,
    ),
    goals: [
      {
        goal: "grok-seat ≥ 0.97× the bare SDK client",
        met: seat && !seat.error ? seat.ratioToBare >= 0.97 : undefined,
        measured: ratio(seat?.ratioToBare),
      },
      {
        goal: "grok-seat ≥ acpx/runtime 0.19.1",
        met: vsAcpx === undefined ? undefined : vsAcpx >= 1,
        measured: vsAcpx === undefined ? (acpx?.error ?? "—") : `${ratio(vsAcpx)} acpx`,
      },
    ],
  };
}

function liveSection(r: Awaited<ReturnType<typeof benchLive>>): Section {
  if (r.skipped || !r.harness || !r.bare)
    return {
      title: "P2 real grok 1.0.41 + mock model",
      body: `Skipped: ${r.skipped ?? "no data"}.`,
      goals: [{ goal: "harness ≤ 1.05× bare", met: undefined, measured: "skipped" }],
    };
  const row = (name: string, p: { readyMs: number; firstChunkMs: number; endMs: number }) => [
    name,
    fmt(p.readyMs),
    fmt(p.firstChunkMs),
    fmt(p.endMs),
  ];
  return {
    title: `P2 real grok 1.0.41 + mock model: spawn → ready → first chunk → turn end (${r.rounds} paired rounds)`,
    body: [
      table(
        ["path", "session ready (ms)", "first chunk (ms)", "turn end (ms)"],
        [row("grok-seat createSession + prompt", r.harness), row("bare SDK client", r.bare)],
      ),
      "",
      `Ratio (median of per-round harness/bare turn-end time): **${ratio(r.ratio)}**. Both paths authenticate; the harness also resolves the binary, builds the env allow-list, drains stderr, starts the agent's reaper and runs every callback before resolving.`,
      ...(r.reaper
        ? [
            "",
            "The reaper's share, in the same run (the bare client with and without a reaper started right after the spawn, as spawnAgent does; paired rounds):",
            "",
            table(
              ["path", "session ready (ms)", "first chunk (ms)", "turn end (ms)"],
              [row("bare SDK client + reaper", r.reaper.withReaper), row("bare SDK client", r.reaper.without)],
            ),
            "",
            `Ratio (median of per-round with/without turn-end time): **${ratio(r.reaper.ratio)}**. The owner waits ${fmt(r.reaper.startWallMs, 2)} ms (median) in startReaper, ${fmt(r.reaper.startCpuMs, 2)} ms of it on CPU (the fork); the reaper process itself uses ${fmt(r.reaper.reaperCpuMs)} ms CPU over a whole life (node start, 1 s of scans, reap, exit; mean of 20), off the owner's thread.`,
          ]
        : []),
    ].join("\n"),
    goals: [
      {
        goal: "harness ≤ 1.05× the bare client (spawn → turn end)",
        met: r.ratio !== undefined ? r.ratio <= 1.05 : undefined,
        measured: ratio(r.ratio),
      },
      ...(r.reaper
        ? [
            {
              goal: "the reaper's added turn time reported (bare + reaper / bare; no numeric goal set)",
              met: undefined,
              measured: `${ratio(r.reaper.ratio)}, ${fmt(r.reaper.reaperCpuMs)} ms reaper CPU`,
            },
          ]
        : []),
    ],
  };
}

function bridgeSection(r: Awaited<ReturnType<typeof benchBridge>>): Section {
  return {
    title: `P3 host-tool round trip: bridge + MCP server process vs direct in-process call (${r.iterations} calls)`,
    body: [
      table(
        ["path", "p50 (ms)", "p99 (ms)"],
        [
          ["MCP client → MCP server process → loopback bridge → execute()", fmt(r.bridge.p50Ms), fmt(r.bridge.p99Ms)],
          ["execute() in-process", fmt(r.direct.p50Ms, 2), fmt(r.direct.p99Ms, 2)],
        ],
      ),
      "",
      `p50 ratio bridge/direct: ${fmt(r.ratio)}× (the direct call is a function call, so the ratio mostly measures the process hop; the absolute bridge times are what a tool call costs).`,
    ].join("\n"),
    goals: [
      { goal: "bridge p50 ≤ 1 ms", met: r.bridge.p50Ms <= 1, measured: `${fmt(r.bridge.p50Ms)} ms` },
      { goal: "bridge p99 ≤ 5 ms", met: r.bridge.p99Ms <= 5, measured: `${fmt(r.bridge.p99Ms)} ms` },
    ],
  };
}

function fenceSection(r: Awaited<ReturnType<typeof benchFence>>): Section {
  return {
    title: `P4 delivery-fence durable append (${r.iterations} appends each, same disk, interleaved)`,
    body: table(
      ["path", "p50 (ms)", "p99 (ms)", "× bare (p50)", "× bare (p99)"],
      [
        [
          "Journal.fence() (WAL, synchronous=FULL, duplicate check, read-back)",
          fmt(r.fence.p50Ms),
          fmt(r.fence.p99Ms),
          ratio(r.ratioP50),
          ratio(r.ratioP99),
        ],
        [
          "bare better-sqlite3 INSERT (WAL, synchronous=FULL)",
          fmt(r.bareInsert.p50Ms),
          fmt(r.bareInsert.p99Ms),
          "1.00×",
          "1.00×",
        ],
      ],
    ),
    goals: [
      {
        goal: "fence cost reported against a bare durable insert (no numeric goal set)",
        met: undefined,
        measured: `${ratio(r.ratioP50)} p50, ${ratio(r.ratioP99)} p99`,
      },
    ],
  };
}

function scaleSection(r: Awaited<ReturnType<typeof benchScale>>): Section {
  if (r.waves.some((w) => w.rssBaselineBytes === undefined)) {
    const title = "P5 scale: N sessions alive at once";
    return {
      title,
      body: "The stored result predates the alive-at-once method (its per-session RSS was not measured per session); run `node dist/bench/run.js --only=P5`.",
      goals: [],
    };
  }
  const mib = (bytes: number) => fmt(bytes / 2 ** 20);
  const rows = r.waves.map((w) => [
    w.agent === "grok" ? "real grok 1.0.41" : "fake agent",
    String(w.sessions),
    fmt(w.wallMs),
    ratio(w.wallRatioToOne),
    mib(w.rssBaselineBytes),
    mib(w.rssAllAliveBytes),
    fmt(w.rssPerSessionMiB),
    mib(w.rssPeakBytes),
    mib(w.rssAfterDisposeBytes),
    `${w.agentProcessesAlive} / ${mib(w.agentRssBytes)}`,
    String(w.failures),
    `${w.survivors} / ${w.survivorsAfterExit}`,
    w.errors.join("; "),
  ]);
  const g32 = r.waves.find((w) => w.agent === "grok" && w.sessions === 32);
  const g128 = r.waves.find((w) => w.agent === "grok" && w.sessions === 128);
  const f256 = r.waves.find((w) => w.agent === "fake" && w.sessions === 256);
  const clean = (w: (typeof r.waves)[number]) => w.failures === 0 && w.survivors === 0 && w.survivorsAfterExit === 0;
  return {
    title: "P5 scale: N sessions alive at once (all created, one turn each, all disposed), one fresh process per wave",
    body: [
      table(
        [
          "agent",
          "sessions",
          "wall (ms)",
          "wall × N=1",
          "harness RSS baseline (MiB)",
          "harness RSS, all alive (MiB)",
          "harness RSS per session (MiB)",
          "harness peak (MiB)",
          "harness after dispose (MiB)",
          "agent processes / their RSS (MiB)",
          "failures",
          "survivors after dispose / after exit",
          "errors",
        ],
        rows,
      ),
      ...(r.childFailures?.length ? ["", `Waves that produced no result: ${r.childFailures.join("; ")}`] : []),
      ...(r.skipped ? ["", r.skipped] : []),
    ].join("\n"),
    goals: [
      {
        goal: "32 real grok sessions at once, 0 failures, 0 survivors",
        met: g32 ? clean(g32) : undefined,
        measured: g32 ? `${g32.failures} failures, ${g32.survivors + g32.survivorsAfterExit} survivors` : "not run",
      },
      {
        goal: "≤ 3 MB harness RSS per session at 32",
        met: g32 ? g32.rssPerSessionMiB * 1.048576 <= 3 : undefined,
        measured: g32 ? `${fmt(g32.rssPerSessionMiB)} MiB` : "not run",
      },
      {
        goal: "128 real grok sessions at once, 0 failures, 0 survivors",
        met: g128 ? clean(g128) : undefined,
        measured: g128 ? `${g128.failures} failures, ${g128.survivors + g128.survivorsAfterExit} survivors` : "not run",
      },
      {
        goal: "≤ 0.5 MiB harness RSS per session at 128",
        met: g128 ? g128.rssPerSessionMiB <= 0.5 : undefined,
        measured: g128 ? `${fmt(g128.rssPerSessionMiB)} MiB` : "not run",
      },
      {
        goal: "256 fake-agent sessions at once, 0 failures, 0 survivors",
        met: f256 ? clean(f256) : undefined,
        measured: f256
          ? `${f256.failures} failures, ${f256.survivors + f256.survivorsAfterExit} survivors, ${fmt(f256.rssPerSessionMiB)} MiB each`
          : "not run",
      },
    ],
  };
}

interface SeatBench {
  iterations: number;
  seat: { n?: number; p50Ms: number; p90Ms?: number; p99Ms: number };
  bareLeader: { n?: number; p50Ms: number; p90Ms?: number; p99Ms: number };
  fenceAppendP50Ms: number;
  fenceSamples?: number;
  dispatchProofs?: { seal: number; full: number };
}

/** P4b's deliveries per path: p99 of nearest rank needs ≥ 200 samples before it stops being the maximum. */
const SEAT_ITERATIONS = { quick: 50, full: 200 };

/** Runs bench/seat.ts (benchSeat) when it is there. */
async function runSeatBench(quick: boolean): Promise<SeatBench | undefined> {
  const seatModule = "./seat.js";
  if (!existsSync(fileURLToPath(new URL(seatModule, import.meta.url)))) return undefined;
  const mod = (await import(seatModule)) as { benchSeat?: (o: { iterations?: number }) => Promise<SeatBench> };
  if (typeof mod.benchSeat !== "function") return undefined;
  return mod.benchSeat({ iterations: quick ? SEAT_ITERATIONS.quick : SEAT_ITERATIONS.full });
}

function seatSection(r: SeatBench): Section {
  // Older results carry no n: it was `iterations` for both paths.
  const n = (x: SeatBench["seat"]) => String(x.n ?? r.iterations);
  const rows = [
    [
      "through the visible seat (fence + dispatch + queue ack)",
      n(r.seat),
      fmt(r.seat.p50Ms),
      fmt(r.seat.p90Ms),
      fmt(r.seat.p99Ms),
      ratio(r.seat.p50Ms / r.bareLeader.p50Ms),
    ],
    [
      "bare leader client (same socket, no fence)",
      n(r.bareLeader),
      fmt(r.bareLeader.p50Ms),
      fmt(r.bareLeader.p90Ms),
      fmt(r.bareLeader.p99Ms),
      ratio(1),
    ],
  ];
  const fewest = Math.min(r.seat.n ?? r.iterations, r.bareLeader.n ?? r.iterations);
  return {
    title: `P4b visible seat: prompt → consumed (${r.iterations} deliveries per path, fake TUI + leader)`,
    body: [
      table(["path", "n", "p50 (ms)", "p90 (ms)", "p99 (ms)", "p50 × bare"], rows),
      "",
      `Percentiles are nearest-rank over n samples${fewest < 100 ? `; with n = ${fewest} the p99 is the maximum, not a 99th percentile` : ""}. Fence append p50 inside the seat: ${fmt(r.fenceAppendP50Ms)} ms (n = ${r.fenceSamples ?? Math.max(50, r.iterations)}).`,
      ...(r.dispatchProofs
        ? [
            "",
            `Leader re-proofs before dispatch: ${r.dispatchProofs.seal} from the seal, ${r.dispatchProofs.full} full (src/identity/seal.ts).`,
          ]
        : []),
    ].join("\n"),
    goals: [
      {
        goal: "visible seat ≤ 2.5× the bare leader client at p50",
        met: r.seat.p50Ms / r.bareLeader.p50Ms <= 2.5,
        measured: ratio(r.seat.p50Ms / r.bareLeader.p50Ms),
      },
    ],
  };
}

const mark = (met: boolean | undefined) => (met === undefined ? "n/a" : met ? "met" : "**missed**");

function renderBenchmarks(sections: Section[], machine: MachineInfo): string {
  const goals = sections.flatMap((s) => s.goals.map((g) => [s.title.split(" ")[0]!, g.goal, g.measured, mark(g.met)]));
  return [
    "# Benchmarks",
    "",
    "Generated by `npm run bench` (`node dist/bench/run.js` after the build); do not edit by hand. Raw figures are in",
    "[bench/results/](bench/results/). Every comparison is a ratio against a baseline measured **in the same run**; the",
    "machines are shared and noisy, so absolute times are context only.",
    "",
    `Machine: ${machineLine(machine)}`,
    "",
    "Each table names the commit and the time its figures were measured on (a partial run keeps the older tables, with",
    "their own stamps; `+dirty` means the work tree had uncommitted changes).",
    "",
    "Reproduce: `npm run bench` (everything; about 7 min on 2 cores, most of it P1 and P5's 256 fake agents and 128 real",
    "grok sessions, each wave holding ~12–16 GiB of summed agent RSS at once), `node dist/bench/run.js --only=P1,P3` (some; `P4B` alone is the visible seat,",
    "`P7` the other agents, `P8` the fleet, `P9` import and CLI weight, `P14` notifications (~1 min), `P15` restoring 8 visible seats (~30 s, 8 real grok",
    "TUIs at once), `P16` approval by link (~1 min), `P17` a turn's wall and CPU against `grok -p` (~1 min)), `--p5-grok=1,8 --p5-fake=1,32` (P5 wave sizes), `--quick` (smoke, writes nothing).",
    "The run re-executes itself inside `unshare -rn` (loopback only) where the machine allows it.",
    "",
    "## Goals",
    "",
    table(["", "goal", "measured", "verdict"], goals),
    "",
    ...sections.flatMap((s) => [`## ${s.title}`, "", s.body, ""]),
    "## Method and gaps",
    "",
    "- P1: the fake agent (`test/fakes/fake-grok.ts`) plays one turn of N text chunks with no delay; every client is timed from",
    "  its first to its last delivered chunk, so spawn and handshake stay out. Rounds rotate the client order.",
    "- P2: the same real binary, sandbox and loopback mock model for both paths; the bare client sends",
    "  initialize → authenticate → session/new → session/prompt with the official SDK and nothing else.",
    "  The reaper's share: a second set of paired rounds, the bare client with a fresh reaper process forked right after",
    "  the spawn and guarding the agent (what a one-turn owner such as `seat run` pays; later agents of one owner share",
    "  it) against the bare client alone; the reaper's whole-life CPU is the children CPU (`cutime + cstime`) of 20 lives.",
    "- P3: `bench/bridge.ts` (`benchBridge`): an MCP SDK client calls the host-tools MCP server process, which calls the loopback bridge.",
    "- P5: each wave runs in a fresh `node --expose-gc` process (`bench/scale-wave.ts`): baseline RSS after `gc()` before any",
    "  session exists; N sessions created at once, one turn each; RSS after `gc()` with all N still alive; then all disposed.",
    "  Harness RSS per session = (all alive − baseline) / N, raw bytes in the JSON. The harness is the Node process running",
    "  grok-seat; the agents' own RSS (grok's, or the fake agent's) is summed from /proc apart and not counted as the",
    "  harness's. The mock model runs in the parent so its buffers are not counted either. Survivors: every agent carries a",
    "  unique tag in its environment; /proc is scanned for it after every dispose resolved, and again after the wave's process",
    "  exited (the R1 method).",
    "- P8: `bench/fleet-bench.ts` (`benchFleet`): a real redis-server (AOF, `appendfsync always`) and `seat worker` processes",
    "  on the fake agent, one job at a time each; the direct path runs the same jobs with `createSession` in one process, as",
    "  many at a time as there are workers. Event latency: the fake agent logs each chunk's wall time just before writing",
    "  it (FAKE_GROK_CHUNK_LOG); the watcher notes when the matching text event comes out of `events()`. Then the same",
    "  levels behind `redis+sentinel://` (a primary, one replica, three sentinels; `src/fleet/sentinel-rig.ts`): each",
    "  worker's durability rule is read from its own log line, and 500 mark-sized writes on the primary time the write",
    "  and the `WAIT 1` after it on the same connection.",
    "- P9: `bench/weight.ts` (`benchWeight`): a fresh `node` per round imports `grok-seat` through the package's own exports",
    "  and reports the import's duration from inside; `seat run --json` (process wall time) against the same turn through",
    "  the library in the warm bench process, same binary, sandbox and mock; the overhead is the median of per-round differences.",
    "- P10: `bench/approvals.ts` (`benchApprovals`): the fake agent's permission scenario logs the wall time just before",
    "  `session/request_permission` and when its answer arrives (FAKE_GROK_PERMISSION_LOG); the round trip is the difference.",
    "  One warm answering process (`bench/approval-answerer.ts`) polls `listApprovals()` and answers each new id with",
    "  `answerApproval(allow)`, the calls behind `seat approvals` / `seat approve` (a `seat approve` process's own start is",
    "  P9's CLI overhead, not counted). Local: one `seat run --json` per round, answered over its control socket. Fleet: one",
    "  `seat worker` on a real redis-server, one job at a time, answered through Redis from a process with another HOME.",
    "- P11: `bench/mcp.ts` (`benchMcp`): the official MCP Client, connected once to `seat mcp` over stdio, times `run` from call",
    "  to result (the server starts grok, runs the turn and disposes it before answering) against createSession + prompt +",
    "  dispose in the bench process on the same prompt, binary, sandbox and mock; alternating order, one warm-up of each.",
    "- P12: `bench/worktrees.ts` (`benchWorktrees`): a 10k-file repository; a bare `git worktree add` against `createWorktree`,",
    "  alternating order per round, each worktree removed untimed; one warm-up round of each not counted.",
    "- P13: `bench/spend.ts` (`benchSpend`): P2's real grok turn in paired rounds, alternating order, plain against the same",
    "  turn plus what `seat run` adds for the ledger (`ledgerEntriesOf` + `recordUsage` into a journal whose migrations ran",
    "  before the first timed write); the ratio is the median of per-round ratios. The budget check is `createTurnMeter().add`",
    "  with a per-call report as grok sends it, a fresh meter every 1,000 reports, median of three runs after a warm-up,",
    "  beside a loop that adds the same tokens by hand (the floor any check pays).",
    "- P14: `bench/notify.ts` (`benchNotify`): a loopback webhook receiver (test/support/notify-receiver.ts) verifies every request's",
    "  X-Seat-Signature and schema. Library: one real grok session against the mock, 100 turns each holding one shell command for",
    "  a local approver (allows after 20 ms), so each turn gives `waiting` and `done`; the clock starts when grok-seat emits the",
    "  SeatEvent (`approval_asked`, the `state` idle after the turn) to onEvent and stops when the receiver has the whole body;",
    "  coalescing is off (it is a deliberate hold). CLI: one `seat run --notify hook --json` per round, from the `since` of the",
    "  printed `state` idle event to the receiver. One uncounted warm-up turn or round each. Fleet (`bench/notify-fleet.ts`):",
    "  one `seat worker` on a real redis-server (agent fake-grok), 100 jobs one after another, each naming its own webhook",
    "  target (so coalescing holds nothing), from the job record's `ended_at` to the receiver; one uncounted warm-up job.",
    "- P15: `bench/restore.ts` (`benchRestore`): 8 `seat hire --visible` at once on the real grok TUI in a private tmux server, each",
    "  seat's first turn (a controller `send` with wait `completed`) as soon as its hire is back; then the tmux server is killed and",
    "  every seat process SIGKILLed, `seat ps` must show 8 lost, one `seat restore --all`, and each seat's first turn as soon as",
    "  its restored line arrives. The restored turns' model requests must carry the first turns' answers (the conversation continued).",
    "- P16: `bench/links.ts` (`benchLinks`): the approved command is `date +%s%N >> p16.log`, so the tool's start is the shell's",
    "  own clock; the sample starts just before the confirm POST of the Approve link (opening the link is the person's time, not",
    "  counted). Library: one real grok session holding its approvals in-process, a board in the same process serving the seat",
    "  home's links. CLI: a `seat board` process and one `seat run --notify hook --json` per round; the link is the one in the",
    "  signed webhook, and the board answers the run over its control socket. One uncounted warm-up turn or round each.",
    "- P17: `bench/turn-cost.ts` (`benchTurnCost`): per round, in rotating order, `seat run --json`, `seat run -s NAME`",
    "  (continued), `grok -p --output-format streaming-json` and `grok -p`, each through `sh -c '\"$@\"; times'` (CPU = the",
    "  process + every child it waited for, so seat's includes grok's). The reaper outlives the seat by design: a preloaded",
    "  exit hook names the seat's live children and their /proc/PID/schedstat is read every 2 ms until they are gone; the",
    "  last reading is added. The split of the seat process's own CPU is measured in fresh node processes (node's start,",
    "  importing the bundle's run verb chunk, importing its ACP SDK chunk; each minus the empty one); the turn is what is left.",
    "  `seat` is the bundle users run (`dist/cli/seat.js`). A fifth path in the rotation, the bare ACP SDK client already",
    "  loaded in the bench process (`bench/bare-client.ts`), times spawning `grok agent stdio` to the turn's end: the wall",
    "  floor of any client that starts grok for its turn.",
    "  The shell's `times` counts in clock ticks (10 ms), so single figures step by 10 ms; the medians and ratios carry the weight.",
    "- The visible-seat benchmark (`bench/seat.ts`, `benchSeat`) is included when that file exists; when absent it is not measured.",
    "  Its seat path holds one fsync per brief (the dispatch mark; the fence and the consumed evidence ride on it, see",
    "  `Journal.relaxed`) and re-proves the leader from its seal; on a disk whose fsync is slow the ratio follows the fsync.",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const status = runInLoopbackNamespace([process.execPath, "--expose-gc", fileURLToPath(import.meta.url), ...args]);
  if (status !== undefined) process.exit(status);
  const flags = parseFlags(args);
  const quick = flags.has("quick");
  const only =
    typeof flags.get("only") === "string" ? new Set(String(flags.get("only")).toUpperCase().split(",")) : undefined;
  const wanted = (id: string) => !only || only.has(id);
  const machine = machineInfo();
  console.log(`bench: ${machineLine(machine)}${quick ? " (quick: nothing is written)" : ""}`);
  const save = (name: string, data: object) => {
    if (!quick) writeResult(name, data, machine);
  };
  const fresh = new Map<string, Section>();
  const show = (id: string, section: Section) => {
    fresh.set(id, section);
    console.log(`\n## ${section.title}\n\n${section.body}\n`);
    for (const g of section.goals) console.log(`goal: ${g.goal}: ${g.measured} → ${mark(g.met)}`);
  };

  const commit = machine.commit;
  if (wanted("P1")) {
    const r = await stamped(commit, () =>
      benchStream(quick ? { chunks: 3_000, rounds: 2 } : { chunks: 20_000, rounds: 15 }),
    );
    save("p1-stream", r);
    show("P1", withStamp(streamSection(r), r));
  }
  if (wanted("P2")) {
    const r = await stamped(commit, () => benchLive({ rounds: quick ? 2 : 9 }));
    save("p2-live", r);
    show("P2", withStamp(liveSection(r), r));
  }
  if (wanted("P3")) {
    const r = await stamped(commit, () => benchBridge({ iterations: quick ? 100 : 1_000 }));
    save("p3-bridge", r);
    show("P3", withStamp(bridgeSection(r), r));
  }
  if (wanted("P4")) {
    const r = await stamped(commit, () => benchFence({ iterations: quick ? 100 : 1_000 }));
    save("p4-fence", r);
    show("P4", withStamp(fenceSection(r), r));
  }
  if (wanted("P4") || wanted("P4B")) {
    const seat = await stamped(commit, async () => (await runSeatBench(quick)) ?? { missing: true as const });
    if (!("missing" in seat)) {
      save("p4b-seat", seat);
      show("P4b", withStamp(seatSection(seat), seat));
    } else console.log("P4b: bench/seat.ts (benchSeat) is not there yet; the visible seat is not measured.");
  }
  if (wanted("P5")) {
    const sizes = (name: string, fallback: number[]) =>
      typeof flags.get(name) === "string" ? String(flags.get(name)).split(",").filter(Boolean).map(Number) : fallback;
    const r = await stamped(commit, () =>
      benchScale({
        grokSizes: sizes("p5-grok", quick ? [1, 8] : [1, 8, 32, 128]),
        fakeSizes: sizes("p5-fake", quick ? [1, 32] : [1, 256]),
      }),
    );
    save("p5-scale", r);
    show("P5", withStamp(scaleSection(r), r));
  }
  if (wanted("P6")) {
    const r = await stamped(commit, () => benchSessions({ rounds: quick ? 2 : 9 }));
    save("p6-sessions", r);
    show("P6", withStamp(sessionsSection(r), r));
  }
  if (wanted("P7")) {
    const r = await stamped(commit, () => benchAgents({ rounds: quick ? 2 : 7 }));
    save("p7-agents", r);
    show("P7", withStamp(agentsSection(r), r));
  }
  if (wanted("P8")) {
    const r = await stamped(commit, () =>
      benchFleet(
        quick ? { jobs: 6, latencyJobs: 2, markSamples: 50 } : { jobs: 30, latencyJobs: 20, markSamples: 500 },
      ),
    );
    save("p8-fleet", r);
    show("P8", withStamp(fleetBenchSection(r), r));
    console.log(`P8: took ${(r.durationMs / 1000).toFixed(1)} s`);
  }
  if (wanted("P9")) {
    const r = await stamped(commit, () => benchWeight({ rounds: quick ? 2 : 9 }));
    save("p9-weight", r);
    show("P9", withStamp(weightSection(r), r));
  }
  if (wanted("P10")) {
    const r = await stamped(commit, () => benchApprovals({ rounds: quick ? 3 : 100 }));
    save("p10-approvals", r);
    show("P10", withStamp(approvalsSection(r), r));
  }
  if (wanted("P11")) {
    const r = await stamped(commit, () => benchMcp({ rounds: quick ? 2 : 9 }));
    save("p11-mcp", r);
    show("P11", withStamp(mcpSection(r), r));
  }
  if (wanted("P12")) {
    const r = await stamped(commit, () => benchWorktrees(quick ? { files: 1_000, rounds: 2 } : {}));
    save("p12-worktrees", r);
    show("P12", withStamp(worktreesSection(r), r));
  }
  if (wanted("P13")) {
    const r = await stamped(commit, () => benchSpend(quick ? { rounds: 2, reports: 100_000 } : {}));
    save("p13-spend", r);
    show("P13", withStamp(spendSection(r), r));
  }
  if (wanted("P14")) {
    const r = await stamped(commit, async () => ({
      ...(await benchNotify(quick ? { turns: 10, cliRounds: 2 } : { turns: 100, cliRounds: 20 })),
      fleet: await benchFleetNotify(quick ? { events: 5 } : { events: 100 }),
    }));
    save("p14-notify", r);
    show("P14", withStamp(notifySection(r), r));
  }
  if (wanted("P16")) {
    const r = await stamped(commit, () =>
      benchLinks(quick ? { turns: 5, cliRounds: 2 } : { turns: 100, cliRounds: 20 }),
    );
    save("p16-links", r);
    show("P16", withStamp(linksSection(r), r));
  }
  if (wanted("P15")) {
    const r = await stamped(commit, () => benchRestore({ seats: quick ? 2 : 8 }));
    save("p15-restore", r);
    show("P15", withStamp(restoreSection(r), r));
  }
  if (wanted("P17")) {
    const r = await stamped(commit, () => benchTurnCost({ rounds: quick ? 2 : 9 }));
    save("p17-turn-cost", r);
    show("P17", withStamp(turnCostSection(r), r));
  }
  if (quick) return;
  // BENCHMARKS.md is rebuilt from every stored result, so a partial run (--only) keeps the others' tables.
  const sections: Section[] = [];
  const stored = <T>(id: string, name: string, render: (r: T) => Section) => {
    const prior = fresh.has(id) ? undefined : readResult<T>(name);
    const section = fresh.get(id) ?? (prior ? withStamp(render(prior), prior) : undefined);
    if (section) sections.push(section);
  };
  stored("P1", "p1-stream", streamSection);
  stored("P2", "p2-live", liveSection);
  stored("P3", "p3-bridge", bridgeSection);
  stored("P4", "p4-fence", fenceSection);
  stored("P4b", "p4b-seat", seatSection);
  stored("P5", "p5-scale", scaleSection);
  stored("P6", "p6-sessions", sessionsSection);
  stored("P7", "p7-agents", agentsSection);
  stored("P8", "p8-fleet", fleetBenchSection);
  stored("P9", "p9-weight", weightSection);
  stored("P10", "p10-approvals", approvalsSection);
  stored("P11", "p11-mcp", mcpSection);
  stored("P12", "p12-worktrees", worktreesSection);
  stored("P13", "p13-spend", spendSection);
  stored("P14", "p14-notify", notifySection);
  stored("P15", "p15-restore", restoreSection);
  stored("P16", "p16-links", linksSection);
  stored("P17", "p17-turn-cost", turnCostSection);
  writeFileSync(join(REPO_ROOT, "BENCHMARKS.md"), renderBenchmarks(sections, machine));
  const verdicts = sections.flatMap((s) => s.goals).filter((g) => g.met !== undefined);
  console.log(`\nbench: wrote BENCHMARKS.md and bench/results/*.json`);
  console.log(
    `bench: goals met ${verdicts.filter((g) => g.met).length}, missed ${verdicts.filter((g) => !g.met).length}`,
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
