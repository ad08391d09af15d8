/*
 * P1 stream throughput: session/update notifications per second delivered to the caller's callback by
 *   grok-seat (createSession → SessionCore), by a bare `@agentclientprotocol/sdk` client (the baseline) and by
 *   acpx 0.19.1's `acpx/runtime`, all against the same fake agent flooding N text chunks without delay.
 * Owns: benchStream() and the flood scenario it writes to a temp file.
 * Does not own: the fake agent (test/fakes/fake-grok.ts) or reporting (run.ts).
 * Method: rate = (chunks − 1) / (last chunk − first chunk), so spawn, handshake and prompt latency (which
 *   differ in kind between the three) stay out of a throughput figure. Rounds rotate the order of the
 *   clients; the ratio is the median over rounds of the per-round ratio against the bare client.
 */
import { loadAcpxRuntime } from "./peers.js";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createSession } from "../src/runtime/index.js";
import { FAKE_GROK_JS, fakeGrokBinary } from "../test/support/fake-agent.js";
import { runBareTurn } from "./bare-client.js";
import { median } from "./report.js";

/** One client's figures: median rate over rounds and the per-round samples. */
export interface StreamClientResult {
  client: "grok-seat" | "bare-sdk" | "acpx";
  updatesPerSecond: number;
  samples: number[];
  /** Median over rounds of (this client's rate / the bare client's rate in the same round). */
  ratioToBare: number;
  /** Set when the client could not run here (acpx on an unsupported Node, for example). */
  error?: string;
}

/** The P1 result. */
export interface StreamBenchResult {
  chunks: number;
  rounds: number;
  clients: StreamClientResult[];
}

interface Sample {
  rate: number;
  chunks: number;
}

function rateOf(chunks: number, first: number | undefined, last: number | undefined): number {
  if (first === undefined || last === undefined || last <= first || chunks < 2) return 0;
  return ((chunks - 1) * 1000) / (last - first);
}

async function runSeat(binary: string, scenario: string, cwd: string): Promise<Sample> {
  let chunks = 0;
  let first: number | undefined;
  let last: number | undefined;
  const session = await createSession({
    cwd,
    grokCliBinaryPath: binary,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    agentEnv: { FAKE_GROK_SCENARIO: scenario },
    killGraceMs: 200,
    callbacks: {
      onText: () => {
        last = performance.now();
        first ??= last;
        chunks++;
      },
    },
  });
  try {
    if (session.state !== "ready")
      throw new Error(`grok-seat session did not start: ${JSON.stringify(session.diagnostics)}`);
    const result = await session.prompt("flood");
    if (result.stopReason !== "end_turn")
      throw new Error(`grok-seat turn ended ${result.stopReason ?? JSON.stringify(result.diagnostic)}`);
  } finally {
    await session.dispose();
  }
  return { rate: rateOf(chunks, first, last), chunks };
}

async function runBare(scenario: string, cwd: string): Promise<Sample> {
  const run = await runBareTurn({
    argv: [process.execPath, FAKE_GROK_JS, "--no-auto-update", "agent", "--no-leader", "stdio"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", FAKE_GROK_SCENARIO: scenario },
    cwd,
    prompt: "flood",
  });
  return { rate: rateOf(run.chunks, run.firstChunkAt, run.lastChunkAt), chunks: run.chunks };
}

type AcpxRunner = (scenario: string, cwd: string, round: number) => Promise<Sample>;

/** Loads acpx/runtime; a string explains why it cannot run here. */
async function loadAcpx(stateDir: string): Promise<AcpxRunner | string> {
  const mod = await loadAcpxRuntime();
  if (typeof mod === "string") return mod;
  return async (scenario, cwd, round) => {
    const registry = {
      resolve: () => [process.execPath, FAKE_GROK_JS, "--no-auto-update", "agent", "--no-leader", "stdio"],
      list: () => ["fake-grok"],
    };
    const runtime = mod.createAcpRuntime({
      cwd,
      sessionStore: mod.createFileSessionStore({ stateDir }),
      agentRegistry: registry,
      permissionMode: "deny-all",
      agentProcessEnv: { FAKE_GROK_SCENARIO: scenario },
    });
    let chunks = 0;
    let first: number | undefined;
    let last: number | undefined;
    try {
      const handle = await runtime.ensureSession({
        sessionKey: `bench-${round}-${process.pid}`,
        agent: "fake-grok",
        mode: "oneshot",
        cwd,
      });
      for await (const event of runtime.runTurn({
        handle,
        text: "flood",
        mode: "prompt",
        requestId: `bench-${round}`,
      })) {
        if (event.type === "text_delta" && event.stream !== "thought") {
          last = performance.now();
          first ??= last;
          chunks++;
        } else if (event.type === "error") {
          throw new Error(`acpx turn failed: ${event.message}`);
        }
      }
      await runtime.close({ handle, reason: "bench done" }).catch(() => undefined);
    } finally {
      await runtime.shutdown?.().catch(() => undefined);
    }
    return { rate: rateOf(chunks, first, last), chunks };
  };
}

/** Runs P1: `chunks` updates per turn, `rounds` rounds of each client. */
export async function benchStream({
  chunks = 20_000,
  rounds = 5,
}: {
  chunks?: number;
  rounds?: number;
} = {}): Promise<StreamBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-bench-stream-"));
  const scenario = join(dir, "flood.json");
  writeFileSync(
    scenario,
    JSON.stringify({
      name: "flood",
      description: `${chunks} text chunks, no delay`,
      prompt: { steps: [{ text: "w ".repeat(chunks) }] },
    }),
  );
  const binary = fakeGrokBinary();
  const cwd = mkdtempSync(join(dir, "cwd-"));
  const acpx = await loadAcpx(join(dir, "acpx-state"));
  const names: StreamClientResult["client"][] = ["grok-seat", "bare-sdk", "acpx"];
  const rates = new Map<string, number[]>(names.map((n) => [n, []]));
  const errors = new Map<string, string>();
  if (typeof acpx === "string") errors.set("acpx", acpx);
  const run = async (name: string, round: number): Promise<Sample> => {
    if (name === "grok-seat") return runSeat(binary.path, scenario, cwd);
    if (name === "bare-sdk") return runBare(scenario, cwd);
    return (acpx as AcpxRunner)(scenario, cwd, round);
  };
  try {
    // One untimed warm-up of each, so JIT and page cache favour nobody.
    for (const name of names)
      if (!errors.has(name)) await run(name, -1).catch((e: Error) => errors.set(name, e.message));
    for (let round = 0; round < rounds; round++) {
      const order = names.map((_, i) => names[(i + round) % names.length]!);
      for (const name of order) {
        if (errors.has(name)) continue;
        try {
          const sample = await run(name, round);
          if (sample.chunks !== chunks) throw new Error(`${name} delivered ${sample.chunks} of ${chunks} chunks`);
          rates.get(name)!.push(sample.rate);
        } catch (error) {
          errors.set(name, (error as Error).message);
        }
      }
    }
  } finally {
    binary.remove();
    rmSync(dir, { recursive: true, force: true });
  }
  const bare = rates.get("bare-sdk")!;
  return {
    chunks,
    rounds,
    clients: names.map((client) => {
      const samples = rates.get(client)!;
      const perRound = samples.map((r, i) => (bare[i] ? r / bare[i]! : NaN)).filter((x) => Number.isFinite(x));
      return {
        client,
        updatesPerSecond: median(samples),
        samples,
        ratioToBare: median(perRound),
        ...(errors.has(client) ? { error: errors.get(client)! } : {}),
      };
    }),
  };
}
