/*
 * P5 scale: N headless sessions alive at once through grok-seat — on the real grok binary with the mock model,
 *   and on the fake agent — each wave in a fresh Node process (bench/scale-wave.ts, `--expose-gc`).
 * Owns: benchScale(): one child per wave, the mock model and sandbox the real-grok waves share, wall-time ratios,
 *   and a second /proc scan for tagged processes after each child has exited.
 * Does not own: the measurement inside a wave (scale-wave.ts), the agents, or reporting (run.ts).
 * Method: harness RSS per session = (RSS with all N sessions alive after gc − RSS before any session after gc) / N,
 *   both in the same fresh process; the raw bytes are kept. The mock model runs here, not in the child, so its
 *   buffers are not counted as the harness's. The baseline for wall time is the N = 1 wave of the same agent.
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { SessionOptions } from "../src/runtime/index.js";
import { fakeGrokBinary } from "../test/support/fake-agent.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { processesTagged } from "./cycles.js";
import type { WaveMeasurement, WaveRequest } from "./scale-wave.js";

/** One wave of N sessions alive at once. */
export interface ScaleWave extends WaveMeasurement {
  /** wallMs / wallMs of the N = 1 wave of the same agent. */
  wallRatioToOne: number;
  /** Wall time of the whole child process (start, imports, wave, exit). */
  childWallMs: number;
  /** Tagged processes alive after the wave's process exited (a second, independent /proc scan; killed once counted). */
  survivorsAfterExit: number;
}

/** The P5 result. */
export interface ScaleBenchResult {
  waves: ScaleWave[];
  /** Waves whose child failed outright (crash, timeout, no result line). */
  childFailures: string[];
  skipped?: string;
}

const WAVE_JS = fileURLToPath(new URL("./scale-wave.js", import.meta.url));

/** Runs one wave in a fresh `node --expose-gc` child; the request travels on stdin. */
function runWave(request: WaveRequest): Promise<{ wave: WaveMeasurement; childWallMs: number } | string> {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ["--expose-gc", WAVE_JS], {
      stdio: ["pipe", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString("utf8")));
    child.stderr.on("data", (d: Buffer) => (err += d.toString("utf8")));
    const timer = setTimeout(() => child.kill("SIGKILL"), request.timeoutMs * 3 + 60_000);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const line = out.split("\n").find((l) => l.startsWith("P5-WAVE "));
      if (line)
        resolve({
          wave: JSON.parse(line.slice("P5-WAVE ".length)) as WaveMeasurement,
          childWallMs: Date.now() - started,
        });
      else
        resolve(
          `${request.agent} × ${request.sessions}: the wave process ended (${signal ?? code}) without a result: ${err.trim().split("\n").slice(-3).join(" | ").slice(0, 300)}`,
        );
    });
    child.stdin.end(JSON.stringify(request));
  });
}

function withRatios(waves: Array<Omit<ScaleWave, "wallRatioToOne">>): ScaleWave[] {
  return waves.map((w) => {
    const one = waves.find((o) => o.agent === w.agent && o.sessions === 1);
    return { ...w, wallRatioToOne: one ? w.wallMs / one.wallMs : NaN };
  });
}

/** Runs P5 with the given wave sizes for the real binary and the fake agent. */
export async function benchScale({
  grokSizes = [1, 8, 32],
  fakeSizes = [1, 256],
  timeoutMs = 120_000,
}: {
  grokSizes?: number[];
  fakeSizes?: number[];
  timeoutMs?: number;
} = {}): Promise<ScaleBenchResult> {
  const waves: Array<Omit<ScaleWave, "wallRatioToOne">> = [];
  const childFailures: string[] = [];
  const run = async (request: Omit<WaveRequest, "tag">) => {
    const tag = `grok-seat-p5-${randomUUID()}`;
    const outcome = await runWave({ ...request, tag });
    const left = processesTagged(tag);
    for (const pid of left)
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    if (typeof outcome === "string")
      childFailures.push(`${outcome}${left.length ? ` (${left.length} tagged processes left, killed)` : ""}`);
    else waves.push({ ...outcome.wave, childWallMs: outcome.childWallMs, survivorsAfterExit: left.length });
  };
  let skipped: string | undefined;
  if (grokSizes.length > 0) {
    const rig = await startLiveRig({ fallback: { text: "scaled pong" } });
    if (typeof rig === "string") skipped = rig;
    else {
      try {
        for (const n of grokSizes) await run({ agent: "grok", sessions: n, timeoutMs, base: rig.sessionOptions });
      } finally {
        await rig.close();
      }
    }
  }
  if (fakeSizes.length > 0) {
    const fake = fakeGrokBinary();
    try {
      const base: SessionOptions = {
        cwd: fake.dir,
        grokCliBinaryPath: fake.path,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        agentEnv: { FAKE_GROK_SCENARIO: "normal" },
      };
      for (const n of fakeSizes) await run({ agent: "fake", sessions: n, timeoutMs, base });
    } finally {
      fake.remove();
    }
  }
  return {
    waves: withRatios(waves),
    childFailures,
    ...(skipped ? { skipped: `real grok waves skipped: ${skipped}` } : {}),
  };
}
