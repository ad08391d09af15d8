/*
 * `npm run bench`: runs P1–P5, prints one table per benchmark, writes bench/results/<name>.json and
 *   regenerates BENCHMARKS.md from every result file present.
 * Owns: the order of the benchmarks, their sizes (full and --quick), the goals and the markdown.
 * Does not own: any measurement (bench/stream.ts, live.ts, bridge.ts, fence.ts, scale.ts, seat.ts).
 * Usage: node dist/bench/run.js [--quick] [--only=P1,P3]
 *   --quick runs small sizes and writes nothing (a smoke run); the full run rewrites results and BENCHMARKS.md.
 *   The run moves itself into a loopback-only network namespace (`unshare -rn`) when the machine allows it.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runInLoopbackNamespace } from "../src/sandbox/index.js";
import { benchBridge } from "./bridge.js";
import { benchFence } from "./fence.js";
import { benchLive } from "./live.js";
import { fmt, machineInfo, machineLine, parseFlags, ratio, REPO_ROOT, RESULTS_DIR, table, writeResult, type MachineInfo } from "./report.js";
import { benchScale } from "./scale.js";
import { benchStream } from "./stream.js";
import { benchSessions, sessionsSection } from "./sessions.js";

type Stored<T> = T & { machine: MachineInfo };

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
  const rows = r.clients.map((c) => [c.client, c.error ? "—" : fmt(c.updatesPerSecond), c.error ? "—" : ratio(c.ratioToBare), c.error ? "—" : c.samples.map((s) => fmt(s)).join(", "), c.error ?? ""]);
  const seat = r.clients.find((c) => c.client === "grok-seat");
  const acpx = r.clients.find((c) => c.client === "acpx");
  const vsAcpx = seat && acpx && !acpx.error ? seat.ratioToBare / acpx.ratioToBare : undefined;
  return {
    title: `P1 stream throughput (${r.chunks} session/update chunks per turn, ${r.rounds} rounds)`,
    body: table(["client", "updates/s (median)", "× bare SDK (median of per-round ratios)", "per-round updates/s", "note"], rows),
    goals: [
      { goal: "grok-seat ≥ 0.9× the bare SDK client", met: seat && !seat.error ? seat.ratioToBare >= 0.9 : undefined, measured: ratio(seat?.ratioToBare) },
      { goal: "grok-seat ≥ acpx/runtime 0.19.1", met: vsAcpx === undefined ? undefined : vsAcpx >= 1, measured: vsAcpx === undefined ? acpx?.error ?? "—" : `${ratio(vsAcpx)} acpx` },
    ],
  };
}

function liveSection(r: Awaited<ReturnType<typeof benchLive>>): Section {
  if (r.skipped || !r.harness || !r.bare) return { title: "P2 real grok 1.0.41 + mock model", body: `Skipped: ${r.skipped ?? "no data"}.`, goals: [{ goal: "harness ≤ 1.05× bare", met: undefined, measured: "skipped" }] };
  const row = (name: string, p: { readyMs: number; firstChunkMs: number; endMs: number }) => [name, fmt(p.readyMs), fmt(p.firstChunkMs), fmt(p.endMs)];
  return {
    title: `P2 real grok 1.0.41 + mock model: spawn → ready → first chunk → turn end (${r.rounds} paired rounds)`,
    body: [
      table(["path", "session ready (ms)", "first chunk (ms)", "turn end (ms)"], [row("grok-seat createSession + prompt", r.harness), row("bare SDK client", r.bare)]),
      "",
      `Ratio (median of per-round harness/bare turn-end time): **${ratio(r.ratio)}**. Both paths authenticate; the harness also resolves the binary, builds the env allow-list, drains stderr and runs every callback before resolving.`,
    ].join("\n"),
    goals: [{ goal: "harness ≤ 1.05× the bare client (spawn → turn end)", met: r.ratio !== undefined ? r.ratio <= 1.05 : undefined, measured: ratio(r.ratio) }],
  };
}

function bridgeSection(r: Awaited<ReturnType<typeof benchBridge>>): Section {
  return {
    title: `P3 host-tool round trip: bridge + MCP server process vs direct in-process call (${r.iterations} calls)`,
    body: [
      table(["path", "p50 (ms)", "p99 (ms)"], [["MCP client → MCP server process → loopback bridge → execute()", fmt(r.bridge.p50Ms), fmt(r.bridge.p99Ms)], ["execute() in-process", fmt(r.direct.p50Ms, 2), fmt(r.direct.p99Ms, 2)]]),
      "",
      `p50 ratio bridge/direct: ${fmt(r.ratio)}× (the direct call is a function call, so the ratio mostly measures the process hop; the absolute bridge times are what a tool call costs).`,
    ].join("\n"),
    goals: [
      { goal: "bridge p50 ≤ 2 ms", met: r.bridge.p50Ms <= 2, measured: `${fmt(r.bridge.p50Ms)} ms` },
      { goal: "bridge p99 ≤ 10 ms", met: r.bridge.p99Ms <= 10, measured: `${fmt(r.bridge.p99Ms)} ms` },
    ],
  };
}

function fenceSection(r: Awaited<ReturnType<typeof benchFence>>): Section {
  return {
    title: `P4 delivery-fence durable append (${r.iterations} appends each, same disk, interleaved)`,
    body: table(["path", "p50 (ms)", "p99 (ms)", "× bare (p50)", "× bare (p99)"], [
      ["Journal.fence() (WAL, synchronous=FULL, duplicate check, read-back)", fmt(r.fence.p50Ms), fmt(r.fence.p99Ms), ratio(r.ratioP50), ratio(r.ratioP99)],
      ["bare better-sqlite3 INSERT (WAL, synchronous=FULL)", fmt(r.bareInsert.p50Ms), fmt(r.bareInsert.p99Ms), "1.00×", "1.00×"],
    ]),
    goals: [{ goal: "fence cost reported against a bare durable insert (no numeric goal set)", met: undefined, measured: `${ratio(r.ratioP50)} p50, ${ratio(r.ratioP99)} p99` }],
  };
}

function scaleSection(r: Awaited<ReturnType<typeof benchScale>>): Section {
  const rows = r.waves.map((w) => [w.agent === "grok" ? "real grok 1.0.41" : "fake agent", String(w.sessions), fmt(w.wallMs), ratio(w.wallRatioToOne), fmt(w.rssPerSessionMiB), String(w.failures), String(w.survivors), w.errors.join("; ")]);
  const g32 = r.waves.find((w) => w.agent === "grok" && w.sessions === 32);
  const f256 = r.waves.find((w) => w.agent === "fake" && w.sessions === 256);
  return {
    title: "P5 scale: N concurrent sessions, each created, one turn, disposed",
    body: [
      table(["agent", "sessions", "wall (ms)", "wall × N=1", "harness RSS growth per session (MiB)", "failures", "surviving processes", "errors"], rows),
      ...(r.skipped ? ["", r.skipped] : []),
    ].join("\n"),
    goals: [
      { goal: "32 real grok sessions, 0 failures", met: g32 ? g32.failures === 0 && g32.survivors === 0 : undefined, measured: g32 ? `${g32.failures} failures` : "not run" },
      { goal: "≤ 3 MB harness RSS per session at 32", met: g32 ? g32.rssPerSessionMiB * 1.048576 <= 3 : undefined, measured: g32 ? `${fmt(g32.rssPerSessionMiB)} MiB` : "not run" },
      { goal: "256 fake-agent sessions, 0 failures", met: f256 ? f256.failures === 0 && f256.survivors === 0 : undefined, measured: f256 ? `${f256.failures} failures, ${fmt(f256.rssPerSessionMiB)} MiB each` : "not run" },
    ],
  };
}

interface SeatBench {
  iterations: number;
  seat: { p50Ms: number; p99Ms: number };
  bareLeader: { p50Ms: number; p99Ms: number };
  fenceAppendP50Ms: number;
}

/** Runs bench/seat.ts (benchSeat) when it is there. */
async function runSeatBench(quick: boolean): Promise<SeatBench | undefined> {
  const seatModule = "./seat.js";
  if (!existsSync(fileURLToPath(new URL(seatModule, import.meta.url)))) return undefined;
  const mod = (await import(seatModule)) as { benchSeat?: (o: { quick?: boolean }) => Promise<SeatBench> };
  if (typeof mod.benchSeat !== "function") return undefined;
  return mod.benchSeat({ quick });
}

function seatSection(r: SeatBench): Section {
  const rows = [
    ["through the visible seat (fence + dispatch + queue ack)", fmt(r.seat.p50Ms), fmt(r.seat.p99Ms), ratio(r.seat.p50Ms / r.bareLeader.p50Ms)],
    ["bare leader client (same socket, no fence)", fmt(r.bareLeader.p50Ms), fmt(r.bareLeader.p99Ms), ratio(1)],
  ];
  return {
    title: `P4b visible seat: prompt → consumed (${r.iterations} deliveries, fake TUI + leader)`,
    body: [table(["path", "p50 (ms)", "p99 (ms)", "p50 × bare"], rows), "", `Fence append p50 inside the seat: ${fmt(r.fenceAppendP50Ms)} ms.`].join("\n"),
    goals: [],
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
    "Reproduce: `npm run bench` (everything, ~5 min), `node dist/bench/run.js --only=P1,P3` (some), `--quick` (smoke, writes nothing).",
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
    "- P3: `bench/bridge.ts` (`benchBridge`): an MCP SDK client calls the host-tools MCP server process, which calls the loopback bridge.",
    "- P5: harness RSS growth is this process's peak RSS during the wave minus its RSS before it, divided by N; the agents' own",
    "  memory is not the harness's and is not counted. The fake agent is a Node process, so 256 of them load the machine more",
    "  than the harness does.",
    "- The visible-seat benchmark (`bench/seat.ts`, `benchSeat`) is included when that file exists; when absent it is not measured.",
    "",
  ].join("\n");
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const status = runInLoopbackNamespace([process.execPath, "--expose-gc", fileURLToPath(import.meta.url), ...args]);
  if (status !== undefined) process.exit(status);
  const flags = parseFlags(args);
  const quick = flags.has("quick");
  const only = typeof flags.get("only") === "string" ? new Set(String(flags.get("only")).toUpperCase().split(",")) : undefined;
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

  if (wanted("P1")) {
    const r = await benchStream(quick ? { chunks: 3_000, rounds: 2 } : { chunks: 20_000, rounds: 7 });
    save("p1-stream", r);
    show("P1", streamSection(r));
  }
  if (wanted("P2")) {
    const r = await benchLive({ rounds: quick ? 2 : 9 });
    save("p2-live", r);
    show("P2", liveSection(r));
  }
  if (wanted("P3")) {
    const r = await benchBridge({ iterations: quick ? 100 : 1_000 });
    save("p3-bridge", r);
    show("P3", bridgeSection(r));
  }
  if (wanted("P4")) {
    const r = await benchFence({ iterations: quick ? 100 : 1_000 });
    save("p4-fence", r);
    show("P4", fenceSection(r));
    const seat = await runSeatBench(quick);
    if (seat) {
      save("p4b-seat", seat);
      show("P4b", seatSection(seat));
    } else console.log("P4b: bench/seat.ts (benchSeat) is not there yet; the visible seat is not measured.");
  }
  if (wanted("P5")) {
    const r = await benchScale(quick ? { grokSizes: [1, 8], fakeSizes: [1, 32] } : { grokSizes: [1, 8, 32], fakeSizes: [1, 256] });
    save("p5-scale", r);
    show("P5", scaleSection(r));
  }
  if (wanted("P6")) {
    const r = await benchSessions({ rounds: quick ? 2 : 9 });
    save("p6-sessions", r);
    show("P6", sessionsSection(r));
  }
  if (quick) return;
  // BENCHMARKS.md is rebuilt from every stored result, so a partial run (--only) keeps the others' tables.
  const sections: Section[] = [];
  const stored = <T>(id: string, name: string, render: (r: T) => Section) => {
    const section = fresh.get(id) ?? (readResult<T>(name) ? render(readResult<T>(name)!) : undefined);
    if (section) sections.push(section);
  };
  stored("P1", "p1-stream", streamSection);
  stored("P2", "p2-live", liveSection);
  stored("P3", "p3-bridge", bridgeSection);
  stored("P4", "p4-fence", fenceSection);
  stored("P4b", "p4b-seat", seatSection);
  stored("P5", "p5-scale", scaleSection);
  stored("P6", "p6-sessions", sessionsSection);
  writeFileSync(join(REPO_ROOT, "BENCHMARKS.md"), renderBenchmarks(sections, machine));
  const verdicts = sections.flatMap((s) => s.goals).filter((g) => g.met !== undefined);
  console.log(`\nbench: wrote BENCHMARKS.md and bench/results/*.json`);
  console.log(`bench: goals met ${verdicts.filter((g) => g.met).length}, missed ${verdicts.filter((g) => !g.met).length}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
