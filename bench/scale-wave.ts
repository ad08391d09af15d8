/*
 * One P5 wave in a fresh process: N headless sessions alive at once through grok-seat — all created, then one
 *   turn each, then all disposed — with this process's RSS measured after gc() against a baseline taken the same
 *   way before any session existed, and surviving agent processes found by an independent /proc scan.
 * Owns: the child side of P5 (bench/scale.ts starts one per wave with `node --expose-gc`); measureWave().
 * Does not own: the agents, the mock model (it runs in the parent, so its memory is not the harness's) or reporting.
 * Protocol: the wave's options arrive as one JSON object on stdin (never argv: agentEnv may carry a key); the result
 *   is printed as one line `P5-WAVE <json>` on stdout.
 * Invariant: every figure is this process's own RSS (the Node process running grok-seat); the agents' RSS is
 *   read from /proc for the tagged agent processes and reported apart, never mixed in.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { createSession, type HeadlessSession, type SessionOptions } from "../src/runtime/index.js";
import { processesTagged } from "./cycles.js";

/** What the parent sends on stdin. */
export interface WaveRequest {
  agent: "grok" | "fake";
  sessions: number;
  timeoutMs: number;
  /** A unique value put in every agent's environment (inherited by its descendants) for the /proc scans. */
  tag: string;
  /** Options for createSession, shared by every session of the wave. */
  base: SessionOptions;
}

/** What the child prints: raw RSS figures in bytes and the derived per-session figure in MiB. */
export interface WaveMeasurement {
  agent: "grok" | "fake";
  sessions: number;
  /** RSS of this process after gc(), before any session was created. */
  rssBaselineBytes: number;
  /** RSS after gc() with all N sessions created, one turn done each, none disposed. */
  rssAllAliveBytes: number;
  /** Highest RSS sampled (every 25 ms) from the first create to the last dispose. */
  rssPeakBytes: number;
  /** RSS after gc() once every session was disposed. */
  rssAfterDisposeBytes: number;
  /** (rssAllAliveBytes − rssBaselineBytes) / N, in MiB. */
  rssPerSessionMiB: number;
  /** Agent processes (tagged, from /proc) alive while all sessions were, and their summed VmRSS in bytes. */
  agentProcessesAlive: number;
  agentRssBytes: number;
  /** Wall time from the first create to the last dispose, and per phase. */
  wallMs: number;
  createMs: number;
  turnMs: number;
  disposeMs: number;
  failures: number;
  /** Tagged processes still alive after every dispose resolved (independent /proc scan). */
  survivors: number;
  /** Survivor pids, killed by the wave after they were counted. */
  survivorPids: number[];
  errors: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** RSS after a full collection (twice, with a pause, so finalizers and freed pages settle). */
async function settledRss(): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("P5 waves must run with --expose-gc");
  gc();
  await sleep(50);
  gc();
  return process.memoryUsage().rss;
}

function vmRssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs one wave in this process. */
export async function measureWave(request: WaveRequest): Promise<WaveMeasurement> {
  const { agent, sessions: n, timeoutMs } = request;
  const tag = request.tag;
  const base: SessionOptions = {
    ...request.base,
    agentEnv: { ...request.base.agentEnv, GROK_SEAT_P5_TAG: tag },
    killGraceMs: 1_000,
    handshakeTimeoutMs: timeoutMs,
  };
  const errors: string[] = [];
  const rssBaselineBytes = await settledRss();
  let rssPeakBytes = process.memoryUsage().rss;
  const sampler = setInterval(() => (rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage().rss)), 25);
  const ok = Array.from({ length: n }, () => true);
  const fail = (i: number, why: string) => {
    ok[i] = false;
    errors.push(`#${i} ${why}`);
  };
  const t0 = performance.now();
  const created: Array<HeadlessSession | undefined> = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      createSession(base).catch((e: Error) => (fail(i, `threw: ${e.message}`), undefined)),
    ),
  );
  const t1 = performance.now();
  await Promise.all(
    created.map(async (session, i) => {
      if (!session) return;
      if (session.state !== "ready") return fail(i, `not ready: ${session.diagnostics.map((d) => d.code).join(",")}`);
      const result = await session.prompt(`scale turn ${i}`, { turnTimeoutMs: timeoutMs });
      if (result.stopReason !== "end_turn" || result.text.length === 0)
        fail(i, `turn: ${result.stopReason ?? result.diagnostic?.code}`);
    }),
  );
  const t2 = performance.now();
  const rssAllAliveBytes = await settledRss();
  const agents = processesTagged(tag);
  const agentRssBytes = agents.reduce((sum, pid) => sum + vmRssBytes(pid), 0);
  const t3 = performance.now();
  await Promise.all(
    created.map((session, i) => session?.dispose().catch((e: Error) => fail(i, `dispose threw: ${e.message}`))),
  );
  const t4 = performance.now();
  clearInterval(sampler);
  rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage().rss);
  let survivorPids = processesTagged(tag);
  for (let i = 0; i < 20 && survivorPids.length > 0; i++) {
    await sleep(50);
    survivorPids = processesTagged(tag);
  }
  for (const pid of survivorPids)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  created.length = 0;
  const rssAfterDisposeBytes = await settledRss();
  return {
    agent,
    sessions: n,
    rssBaselineBytes,
    rssAllAliveBytes,
    rssPeakBytes,
    rssAfterDisposeBytes,
    rssPerSessionMiB: (rssAllAliveBytes - rssBaselineBytes) / n / 2 ** 20,
    agentProcessesAlive: agents.length,
    agentRssBytes,
    wallMs: t4 - t0 - (t3 - t2),
    createMs: t1 - t0,
    turnMs: t2 - t1,
    disposeMs: t4 - t3,
    failures: ok.filter((x) => !x).length,
    survivors: survivorPids.length,
    survivorPids,
    errors: errors.slice(0, 5),
  };
}

async function main(): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as WaveRequest;
  const result = await measureWave(request);
  process.stdout.write(`P5-WAVE ${JSON.stringify(result)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
