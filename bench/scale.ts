/*
 * P5 scale: N concurrent headless sessions, each created, given one turn and disposed, all at once, through
 *   grok-seat in this one process — on the real grok binary with the mock model, and on the fake agent.
 * Owns: benchScale(): wall time, harness RSS growth per session, failures and surviving processes.
 * Does not own: the agents (real grok, test/fakes/fake-grok.ts) or reporting (run.ts).
 * Method: harness RSS per session = (peak RSS of this process during the wave − RSS before it) / N, sampled
 *   every 25 ms; the baseline for wall time is the N = 1 wave of the same agent in the same run.
 */
import { performance } from "node:perf_hooks";
import { createSession, type SessionOptions } from "../src/runtime/index.js";
import { fakeGrokBinary } from "../test/support/fake-agent.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { rssMiB, sampleRss } from "./report.js";

/** One wave of N concurrent sessions. */
export interface ScaleWave {
  agent: "grok" | "fake";
  sessions: number;
  wallMs: number;
  /** wallMs / wallMs of the N = 1 wave of the same agent. */
  wallRatioToOne: number;
  rssBeforeMiB: number;
  rssPeakMiB: number;
  rssPerSessionMiB: number;
  failures: number;
  survivors: number;
  /** First few failure reasons. */
  errors: string[];
}

/** The P5 result. */
export interface ScaleBenchResult {
  waves: ScaleWave[];
  skipped?: string;
}

async function wave(agent: ScaleWave["agent"], n: number, base: SessionOptions, timeoutMs: number): Promise<Omit<ScaleWave, "wallRatioToOne">> {
  (globalThis as { gc?: () => void }).gc?.();
  const rssBeforeMiB = rssMiB();
  const sampler = sampleRss(25);
  const errors: string[] = [];
  let survivors = 0;
  const start = performance.now();
  const one = async (i: number): Promise<boolean> => {
    const session = await createSession({ ...base, killGraceMs: 1_000, handshakeTimeoutMs: timeoutMs });
    try {
      if (session.state !== "ready") {
        errors.push(`#${i} not ready: ${session.diagnostics.map((d) => d.code).join(",")}`);
        return false;
      }
      const result = await session.prompt(`scale turn ${i}`, { turnTimeoutMs: timeoutMs });
      if (result.stopReason !== "end_turn" || result.text.length === 0) {
        errors.push(`#${i} turn: ${result.stopReason ?? result.diagnostic?.code}`);
        return false;
      }
      return true;
    } finally {
      survivors += (await session.dispose()).survivors.length;
    }
  };
  const results = await Promise.all(Array.from({ length: n }, (_, i) => one(i).catch((e: Error) => (errors.push(`#${i} threw: ${e.message}`), false))));
  const wallMs = performance.now() - start;
  const rssPeakMiB = sampler.stop();
  return {
    agent,
    sessions: n,
    wallMs,
    rssBeforeMiB,
    rssPeakMiB,
    rssPerSessionMiB: (rssPeakMiB - rssBeforeMiB) / n,
    failures: results.filter((ok) => !ok).length,
    survivors,
    errors: errors.slice(0, 5),
  };
}

function withRatios(waves: Array<Omit<ScaleWave, "wallRatioToOne">>): ScaleWave[] {
  return waves.map((w) => {
    const one = waves.find((o) => o.agent === w.agent && o.sessions === 1);
    return { ...w, wallRatioToOne: one ? w.wallMs / one.wallMs : NaN };
  });
}

/** Runs P5 with the given wave sizes for the real binary and the fake agent. */
export async function benchScale({ grokSizes = [1, 8, 32], fakeSizes = [1, 256] }: { grokSizes?: number[]; fakeSizes?: number[] } = {}): Promise<ScaleBenchResult> {
  const waves: Array<Omit<ScaleWave, "wallRatioToOne">> = [];
  let skipped: string | undefined;
  const rig = await startLiveRig({ fallback: { text: "scaled pong" } });
  if (typeof rig === "string") skipped = rig;
  else {
    try {
      for (const n of grokSizes) waves.push(await wave("grok", n, rig.sessionOptions, 120_000));
    } finally {
      await rig.close();
    }
  }
  const fake = fakeGrokBinary();
  try {
    const base: SessionOptions = { cwd: fake.dir, grokCliBinaryPath: fake.path, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, agentEnv: { FAKE_GROK_SCENARIO: "normal" } };
    for (const n of fakeSizes) waves.push(await wave("fake", n, base, 120_000));
  } finally {
    fake.remove();
  }
  return { waves: withRatios(waves), ...(skipped ? { skipped: `real grok waves skipped: ${skipped}` } : {}) };
}
