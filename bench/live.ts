/*
 * P2 real grok latency: the real grok 1.0.41 binary against the scripted loopback mock model, one turn from
 *   spawn to turn end, through grok-seat (createSession + prompt) and through the bare SDK client (baseline).
 * Owns: benchLive(): phase timestamps spawn → session ready → first chunk → turn end, paired per round.
 * Does not own: the rig (test/support/live-rig.ts) or reporting (run.ts).
 * Method: both paths use the same binary, sandbox and mock; the order alternates per round; the ratio is the
 *   median over rounds of harness total / bare total.
 */
import { performance } from "node:perf_hooks";
import { createSession, type SessionOptions } from "../src/runtime/index.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { runBareTurn } from "./bare-client.js";
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
  skipped?: string;
}

const REPLY = "one two three four five six seven eight nine ten";

function phasesOf(runs: Array<{ ready: number; first: number; end: number }>): LivePhases {
  return { readyMs: median(runs.map((r) => r.ready)), firstChunkMs: median(runs.map((r) => r.first)), endMs: median(runs.map((r) => r.end)) };
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
    if (session.state !== "ready") throw new Error(`grok-seat session did not start: ${JSON.stringify(session.diagnostics)}`);
    const result = await session.prompt("bench turn");
    const end = performance.now();
    if (result.stopReason !== "end_turn" || first === undefined) throw new Error(`grok-seat turn: ${JSON.stringify(result)}`);
    return { ready: ready - t0, first: first - t0, end: end - t0 };
  } finally {
    await session.dispose();
  }
}

/** Runs P2 for `rounds` paired rounds (plus one warm-up pair). */
export async function benchLive({ rounds = 5 }: { rounds?: number } = {}): Promise<LiveBenchResult> {
  const rig = await startLiveRig({ fallback: { text: REPLY } });
  if (typeof rig === "string") return { rounds: 0, skipped: rig };
  const harness: Array<{ ready: number; first: number; end: number }> = [];
  const bare: Array<{ ready: number; first: number; end: number }> = [];
  const runHarness = () => timeHarnessTurn({ ...rig.sessionOptions, killGraceMs: 500 });
  const runBare = async () => {
    const run = await runBareTurn({
      argv: [rig.binary, "--no-auto-update", "agent", "--no-leader", "stdio"],
      env: { ...rig.sessionOptions.env, ...rig.sessionOptions.agentEnv },
      cwd: rig.sessionOptions.cwd,
      prompt: "bench turn",
      authMethodId: "xai.api_key",
    });
    if (run.stopReason !== "end_turn" || run.firstChunkAt === undefined) throw new Error(`bare turn: ${JSON.stringify(run)}`);
    return { ready: run.readyAt - run.spawnedAt, first: run.firstChunkAt - run.spawnedAt, end: run.endAt - run.spawnedAt };
  };
  try {
    await alternateRounds(rounds, runHarness, runBare, harness, bare);
  } finally {
    await rig.close();
  }
  return { rounds, harness: phasesOf(harness), bare: phasesOf(bare), ratio: median(harness.map((h, i) => h.end / bare[i]!.end)) };
}
