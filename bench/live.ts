/*
 * P2 real grok latency: the real grok 1.0.41 binary against the scripted loopback mock model, one turn from
 *   spawn to turn end, through grok-seat (createSession + prompt) and through the bare SDK client (baseline).
 * Owns: benchLive(): phase timestamps spawn → session ready → first chunk → turn end, paired per round.
 * Does not own: the rig (test/support/live-rig.ts) or reporting (run.ts).
 * Method: both paths use the same binary, sandbox and mock; the order alternates per round; the ratio is the
 *   median over rounds of harness total / bare total.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { buildAgentArgv } from "../src/grok/launch.js";
import { readProcStat } from "../src/grok/process-tree.js";
import { newReaperTag, REAPER_TAG_ENV, startReaper } from "../src/grok/reaper.js";
import { createSession, type SessionOptions } from "../src/runtime/index.js";
import { type LiveRig, startLiveRig } from "../test/support/live-rig.js";
import { type BareOptions, type BarePhases, bareTurnPhases } from "./bare-client.js";
import { median } from "./report.js";
import { alternateRounds } from "./rounds.js";

/** Median phase times in ms, measured from spawn (harness: from the createSession call). */
export interface LivePhases {
  readyMs: number;
  firstChunkMs: number;
  endMs: number;
}

/** The P2 result; `skipped` says why nothing ran. */
export interface LiveBenchResult {
  rounds: number;
  harness?: LivePhases;
  bare?: LivePhases;
  /** Median over rounds of harness end / bare end. */
  ratio?: number;
  /** The reaper's cost: the bare client with a reaper (what spawnAgent adds) against the bare client, paired. */
  reaper?: {
    withReaper: LivePhases;
    without: LivePhases;
    /** Median over rounds of (bare + reaper) end / bare end. */
    ratio: number;
    /** Median wall time the owner waits in startReaper (the fork; ms). */
    startWallMs: number;
    /** Median owner CPU spent in startReaper (ms, process.cpuUsage). */
    startCpuMs: number;
    /** CPU of one reaper's whole life (start, guarding one agent for 1 s, reap, exit), mean over 20 (ms, cutime + cstime). */
    reaperCpuMs: number;
  };
  skipped?: string;
}

const REPLY = "one two three four five six seven eight nine ten";

function phasesOf(runs: Array<{ ready: number; first: number; end: number }>): LivePhases {
  return {
    readyMs: median(runs.map((r) => r.ready)),
    firstChunkMs: median(runs.map((r) => r.first)),
    endMs: median(runs.map((r) => r.end)),
  };
}

/**
 * One timed turn through grok-seat (createSession → prompt "bench turn" → dispose): ms from the start to session
 * ready, first text chunk and turn end. Throws unless the session came up and the turn ended `end_turn` with text.
 */
export async function timeHarnessTurn(options: SessionOptions): Promise<{ ready: number; first: number; end: number }> {
  let first: number | undefined;
  const t0 = performance.now();
  const session = await createSession({ ...options, callbacks: { onText: () => void (first ??= performance.now()) } });
  try {
    const ready = performance.now();
    if (session.state !== "ready")
      throw new Error(`grok-seat session did not start: ${JSON.stringify(session.diagnostics)}`);
    const result = await session.prompt("bench turn");
    const end = performance.now();
    if (result.stopReason !== "end_turn" || first === undefined)
      throw new Error(`grok-seat turn: ${JSON.stringify(result)}`);
    return { ready: ready - t0, first: first - t0, end: end - t0 };
  } finally {
    await session.dispose();
  }
}

/** CPU time (utime + stime) of this process's waited-for children, in ms (/proc/self/stat fields 16 and 17). */
function childrenCpuMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3; cutime is field 16, cstime field 17; USER_HZ is 100 on Linux.
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100;
}

/**
 * Mean CPU of one reaper's whole life — node start, scans for 1 s of a `sleep` agent, release, reap (group and tag
 * scans), exit — over `n` lives, from the children CPU the kernel adds up for this process once each has exited.
 */
async function reaperLifeCpuMs(n: number): Promise<number> {
  const { spawn } = await import("node:child_process");
  const before = childrenCpuMs();
  for (let i = 0; i < n; i += 1) {
    const tag = newReaperTag();
    const agent = spawn("sleep", ["30"], { env: { [REAPER_TAG_ENV]: tag }, stdio: "ignore", detached: true });
    const agentExit = new Promise((resolve) => agent.once("exit", resolve));
    const reaper = await startReaper();
    reaper.guard(agent.pid!, readProcStat(agent.pid!)?.startTicks, tag);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    reaper.close();
    await agentExit;
    await reaper.exited;
    await new Promise((resolve) => setTimeout(resolve, 50)); // the exit was seen; the kernel has added its CPU
  }
  return (childrenCpuMs() - before) / n;
}

/** Runs P2 for `rounds` paired rounds (plus one warm-up pair). */
/**
 * One turn of the real grok through the bare SDK client (bare-client.ts) on `rig`'s binary, sandbox and mock: its
 * phases in ms from the spawn. Throws unless the turn ended `end_turn` with a chunk of answer.
 */
export async function bareGrokTurn(
  rig: LiveRig,
  prompt: string,
  extra: Pick<BareOptions, "extraEnv" | "afterSpawn"> = {},
): Promise<BarePhases> {
  return bareTurnPhases({
    argv: buildAgentArgv({ binary: rig.binary }),
    env: { ...rig.sessionOptions.env, ...rig.sessionOptions.agentEnv },
    cwd: rig.sessionOptions.cwd,
    prompt,
    authMethodId: "xai.api_key",
    ...extra,
  });
}

export async function benchLive({ rounds = 5 }: { rounds?: number } = {}): Promise<LiveBenchResult> {
  const rig = await startLiveRig({ fallback: { text: REPLY } });
  if (typeof rig === "string") return { rounds: 0, skipped: rig };
  const harness: Array<{ ready: number; first: number; end: number }> = [];
  const bare: Array<{ ready: number; first: number; end: number }> = [];
  const runHarness = () => timeHarnessTurn({ ...rig.sessionOptions, killGraceMs: 500 });
  const runBare = () => bareGrokTurn(rig, "bench turn");
  // The reaper path: the same bare turn with a reaper started right after the spawn, as spawnAgent does.
  const startWall: number[] = [];
  const startCpu: number[] = [];
  const runBareReaper = async () => {
    const tag = newReaperTag();
    return bareGrokTurn(rig, "bench turn", {
      extraEnv: { [REAPER_TAG_ENV]: tag },
      afterSpawn: async (pid) => {
        const t0 = performance.now();
        const cpu0 = process.cpuUsage();
        // A fresh reaper per turn: what a one-turn owner (`seat run`) pays; later agents of one owner share it.
        const reaper = await startReaper();
        reaper.guard(pid, readProcStat(pid)?.startTicks, tag);
        const cpu = process.cpuUsage(cpu0);
        startWall.push(performance.now() - t0);
        startCpu.push((cpu.user + cpu.system) / 1000);
        return () => {
          reaper.close();
        };
      },
    });
  };
  let reaperCpuMs = Number.NaN;
  const withReaper: Array<{ ready: number; first: number; end: number }> = [];
  const without: Array<{ ready: number; first: number; end: number }> = [];
  try {
    await alternateRounds(rounds, runHarness, runBare, harness, bare);
    await alternateRounds(rounds, runBareReaper, runBare, withReaper, without);
    reaperCpuMs = await reaperLifeCpuMs(20);
  } finally {
    await rig.close();
  }
  return {
    rounds,
    harness: phasesOf(harness),
    bare: phasesOf(bare),
    ratio: median(harness.map((h, i) => h.end / bare[i]!.end)),
    reaper: {
      withReaper: phasesOf(withReaper),
      without: phasesOf(without),
      ratio: median(withReaper.map((w, i) => w.end / without[i]!.end)),
      startWallMs: median(startWall),
      startCpuMs: median(startCpu),
      reaperCpuMs,
    },
  };
}
