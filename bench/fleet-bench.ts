/*
 * P8 fleet: what the queue costs. Jobs/s through BullMQ + a real redis-server with 1, 2 and 3 `seat worker`
 *   processes against the same jobs run directly in one process (createSession + prompt + dispose, as many at
 *   a time as there are workers), and event latency from the agent's chunk to a watcher's events() iterator.
 * Owns: benchFleet() and its BENCHMARKS.md section. Does not own: the rig (test/support/fleet-rig.ts) or the
 *   report plumbing (run.ts, report.ts).
 * Method: the fake agent (normal scenario: one short turn) for throughput; every worker runs one job at a time
 *   (`--concurrency 1`), so k workers and k direct sessions at once have the same parallelism. Each k runs the
 *   direct batch, then the fleet batch (workers started and ready before the clock starts; the clock runs from
 *   the first enqueue to the last result). For latency, the fake agent's slow-stream scenario (10 chunks, 150 ms
 *   apart) with FAKE_GROK_CHUNK_LOG: the agent logs each chunk's wall time just before writing it; the watcher
 *   notes when the matching text event arrives (k-th chunk ↔ k-th text event). Same machine, same clock.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createSession } from "../src/runtime/index.js";
import { connectFleet } from "../src/fleet/index.js";
import { FAKE_GROK_JS } from "../test/support/fake-agent.js";
import { startFleetRig } from "../test/support/fleet-rig.js";
import { startSentinelSet } from "../src/fleet/sentinel-rig.js";
import { connect, parseRedisUrl } from "../src/redis/connection.js";
import { fmt, percentile, ratio, table } from "./report.js";

/** One parallelism level: the fleet's and the direct path's jobs/s. */
export interface FleetThroughput {
  workers: number;
  jobs: number;
  fleetJobsPerS: number;
  directJobsPerS: number;
  /** fleet ÷ direct (1 = the queue costs nothing). */
  ratio: number;
  fleetFailed: number;
  directFailed: number;
  /** Each worker's durability rule as its own log line states it at the end of the level ("replicated, WAIT 1"). */
  rules?: string[];
  /**
   * The worker's real path from its dispatch mark to the agent's first chunk, per job (ms): the record's
   * `dispatched_at` (taken just before the mark is written) to the fake agent's chunk log. Includes the mark, its
   * `WAIT` when replicated, the prompt's trip over ACP and the agent starting the turn.
   */
  markToChunkMs?: number[];
}

/** P8's result. */
export interface FleetBenchResult {
  throughput: FleetThroughput[];
  /**
   * The same throughput behind Sentinel with one replica (`WAIT 1` on every dispatch mark and submit), and what the
   * mark's confirmation adds: the time of `WAIT 1` after a mark-sized write, against the write alone.
   */
  replicated?: { throughput: FleetThroughput[]; markMs: Latency; waitMs: Latency };
  eventLatencyMs: { n: number; p50: number; p99: number; max: number };
  durationMs: number;
}

const now = () => performance.timeOrigin + performance.now();

interface Latency {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

const latency = (samples: number[]): Latency => ({
  n: samples.length,
  p50: percentile(samples, 50),
  p99: percentile(samples, 99),
  max: Math.max(0, ...samples),
});

/** Throughput for 1..3 workers against `url` (workers started on the rig with `url`), as the plain run measures it. */
async function levels(
  rig: Awaited<ReturnType<typeof startFleetRig>>,
  url: string,
  agent: string,
  chunkLog: string,
  jobs: number,
  tag: string,
  serial: { n: number },
): Promise<FleetThroughput[]> {
  const client = await connectFleet(url);
  const out: FleetThroughput[] = [];
  const workers: Array<{ stderr(): string }> = [];
  try {
    for (let k = 1; k <= 3; k++) {
      workers.push(
        await rig.startWorker(`${tag}-${k}`, { env: { GROK_BIN: agent }, args: ["--concurrency", "1"], redisUrl: url }),
      );
      const direct = await timeDirect(agent, rig.root, jobs, k);
      const f0 = now();
      const handles = await Promise.all(
        Array.from({ length: jobs }, () => client.enqueue({ prompt: `p8 job ${++serial.n}` })),
      );
      const results = await Promise.all(handles.map((h) => h.result()));
      const fleetS = (now() - f0) / 1000;
      const fleetFailed = results.filter((r) => r.status !== "completed" || r.text !== "pong from fake").length;
      const markToChunkMs = await marksToFirstChunk(handles, chunkLog);
      out.push({
        workers: k,
        jobs,
        fleetJobsPerS: jobs / fleetS,
        directJobsPerS: jobs / direct.seconds,
        ratio: jobs / fleetS / (jobs / direct.seconds),
        fleetFailed,
        directFailed: direct.failed,
        rules: workers.map((w) => ruleOf(w.stderr())),
        markToChunkMs,
      });
    }
  } finally {
    await client.close();
  }
  return out;
}

/** Per job: its record's `dispatched_at` to the agent's first logged chunk of its prompt (jobs without both are left out). */
async function marksToFirstChunk(
  handles: Array<{ id: string; state(): Promise<{ dispatchedAt?: number }> }>,
  chunkLog: string,
): Promise<number[]> {
  const first = new Map<string, number>();
  for (const line of (existsSync(chunkLog) ? readFileSync(chunkLog, "utf8") : "").split("\n")) {
    const [promptId, at] = line.split("\t");
    if (promptId && at && !first.has(promptId)) first.set(promptId, Number(at));
  }
  const out: number[] = [];
  for (const h of handles) {
    const { dispatchedAt } = await h.state();
    const chunk = first.get(`fleet-${h.id}`);
    if (dispatchedAt !== undefined && chunk !== undefined) out.push(chunk - dispatchedAt);
  }
  return out;
}

/** A worker's durability rule now, from the last line it logged about it: "replicated, WAIT n" or "single-primary". */
export function ruleOf(stderr: string): string {
  const lines = stderr.split("\n").filter((l) => l.includes("durability rule: "));
  const last = lines[lines.length - 1];
  if (!last) return "not stated";
  if (last.includes("durability rule: single-primary")) return "single-primary";
  const wait = /durability rule: replicated — each dispatch mark waits for WAIT (\d+)/.exec(last);
  return wait ? `replicated, WAIT ${wait[1]}` : "not stated";
}

/** P8 behind Sentinel with one replica: throughput, and the added latency of WAIT 1 after a mark-sized write. */
async function benchReplicated(jobs: number, samples: number): Promise<NonNullable<FleetBenchResult["replicated"]>> {
  const set = await startSentinelSet({ replicas: 1 });
  const rig = await startFleetRig();
  // Its own agent script: the plain run's rig (and its script) is gone by now.
  const chunkLog = join(rig.root, "chunks.log");
  const agent = join(rig.root, "grok-chunks");
  writeFileSync(
    agent,
    `#!/bin/sh\nFAKE_GROK_CHUNK_LOG=${JSON.stringify(chunkLog)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(agent, 0o755);
  try {
    const throughput = await levels(rig, set.url, agent, chunkLog, jobs, "p8r", { n: 0 });
    const primary = await set.primary();
    const redis = connect(parseRedisUrl(`redis://127.0.0.1:${primary.port}`), { name: "p8-mark" });
    const mark: number[] = [];
    const wait: number[] = [];
    try {
      for (let i = 0; i < samples; i++) {
        const key = `grok-seat:job:{p8-mark-${i}}:state`;
        const t0 = now();
        await redis.hset(key, "status", "dispatched", "run", "p8", "dispatched_at", Date.now());
        const t1 = now();
        const acked = (await redis.call("WAIT", "1", "1000")) as number;
        const t2 = now();
        if (acked < 1) throw new Error(`WAIT 1 answered ${acked}`);
        mark.push(t1 - t0);
        wait.push(t2 - t1);
        await redis.del(key);
      }
    } finally {
      redis.disconnect();
    }
    return { throughput, markMs: latency(mark), waitMs: latency(wait) };
  } finally {
    await rig.close();
    await set.stop();
  }
}

/** Runs P8: `jobs` jobs per level for 1..3 workers, and `latencyJobs` slow-stream jobs for event latency. */
export async function benchFleet({
  jobs = 30,
  latencyJobs = 10,
  replica = true,
  markSamples = 500,
}: {
  jobs?: number;
  latencyJobs?: number;
  replica?: boolean;
  markSamples?: number;
} = {}): Promise<FleetBenchResult> {
  const t0 = Date.now();
  const rig = await startFleetRig();
  const chunkLog = join(rig.root, "chunks.log");
  const agent = join(rig.root, "grok-chunks");
  writeFileSync(
    agent,
    `#!/bin/sh\nFAKE_GROK_CHUNK_LOG=${JSON.stringify(chunkLog)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(agent, 0o755);
  const client = await connectFleet(rig.redis.url);
  let throughput: FleetThroughput[] = [];
  const samples: number[] = [];
  try {
    throughput = await levels(rig, rig.redis.url, agent, chunkLog, jobs, "p7", { n: 0 });
    // Event latency with one job at a time on a quiet fleet: the watcher is already blocked in XREAD.
    for (let i = 0; i < latencyJobs; i++) {
      const handle = await client.enqueue({ prompt: `p7 latency ${i} scenario:slow-stream` });
      const arrivals: number[] = [];
      for await (const { event } of handle.events({ pollMs: 5_000 })) if (event.type === "text") arrivals.push(now());
      const sent = (existsSync(chunkLog) ? readFileSync(chunkLog, "utf8") : "")
        .split("\n")
        .filter((l) => l.startsWith(`fleet-${handle.id}\t`))
        .map((l) => Number(l.split("\t")[1]));
      if (sent.length !== arrivals.length)
        throw new Error(`job ${handle.id}: ${sent.length} chunks sent, ${arrivals.length} text events watched`);
      sent.forEach((at, n) => samples.push(arrivals[n]! - at));
    }
  } finally {
    await client.close();
    await rig.close();
  }
  const replicated = replica ? await benchReplicated(jobs, markSamples) : undefined;
  return {
    throughput,
    ...(replicated ? { replicated } : {}),
    eventLatencyMs: {
      n: samples.length,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
      max: Math.max(0, ...samples),
    },
    durationMs: Date.now() - t0,
  };
}

/** The same jobs in this process: `jobs` sessions, `parallel` at a time, each one turn then disposed. */
async function timeDirect(
  agent: string,
  cwd: string,
  jobs: number,
  parallel: number,
): Promise<{ seconds: number; failed: number }> {
  let next = 0;
  let failed = 0;
  const t0 = now();
  const lane = async () => {
    while (next < jobs) {
      next++;
      const session = await createSession({
        grokCliBinaryPath: agent,
        cwd,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      });
      try {
        const result = await session.prompt(`p7 direct job ${next}`);
        if (result.text !== "pong from fake") failed++;
      } catch {
        failed++;
      } finally {
        await session.dispose();
      }
    }
  };
  await Promise.all(Array.from({ length: parallel }, lane));
  return { seconds: (now() - t0) / 1000, failed };
}

/** P8's section of BENCHMARKS.md. */
export function fleetBenchSection(r: FleetBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title = "P8 fleet: jobs/s through BullMQ + Redis vs the same jobs in one process, and event latency";
  const lat = r.eventLatencyMs;
  return {
    title: `${title} (${r.throughput[0]?.jobs ?? 0} fake-agent jobs per level)`,
    body: [
      table(
        [
          "workers (processes) / direct sessions at once",
          "fleet jobs/s",
          "direct jobs/s",
          "fleet ÷ direct",
          "failed (fleet / direct)",
        ],
        r.throughput.map((t) => [
          String(t.workers),
          fmt(t.fleetJobsPerS),
          fmt(t.directJobsPerS),
          ratio(t.ratio),
          `${t.fleetFailed} / ${t.directFailed}`,
        ]),
      ),
      "",
      table(
        ["event latency: agent chunk → watcher", "n", "p50 (ms)", "p99 (ms)", "max (ms)"],
        [["fake agent → worker → Redis stream → events()", String(lat.n), fmt(lat.p50), fmt(lat.p99), fmt(lat.max)]],
      ),
      "",
      "Each job spawns its agent, starts a session, runs one turn and disposes it, on both paths; the fleet adds the",
      `enqueue, BullMQ's hand-off, the guarded state transitions and one Redis stream write per event. Workers run one job at a time. Whole section: ${(r.durationMs / 1000).toFixed(0)} s.`,
      `Percentiles are nearest-rank over n samples${lat.n < 100 ? `; with n = ${lat.n} the p99 is the maximum` : ""}.`,
      ...(r.replicated ? replicatedRows(r.replicated, r.throughput) : []),
    ].join("\n"),
    goals: [
      {
        goal: "every fleet job completed",
        met: r.throughput.every((t) => t.fleetFailed === 0),
        measured: `${r.throughput.reduce((n, t) => n + t.fleetFailed, 0)} failed`,
      },
      {
        goal: "fleet throughput reported against direct runs at the same parallelism (no numeric goal set)",
        met: undefined,
        measured: r.throughput.map((t) => `${t.workers}: ${ratio(t.ratio)}`).join(", "),
      },
      {
        goal: "event latency agent chunk → watcher p99 reported (no numeric goal set)",
        met: undefined,
        measured: `p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms`,
      },
      ...(r.replicated ? replicatedGoals(r.replicated) : []),
    ],
  };
}

/** "replicated, WAIT 1 ×3" when all agree, else each worker's rule. */
function rulesCell(rules: string[] | undefined): string {
  if (!rules?.length) return "not recorded";
  return new Set(rules).size === 1 ? `${rules[0]} ×${rules.length}` : rules.join("; ");
}

/** The replicated run's goals: every job completed under the replicated rule; the ratio and WAIT's cost reported. */
function replicatedGoals(
  r: NonNullable<FleetBenchResult["replicated"]>,
): Array<{ goal: string; met: boolean | undefined; measured: string }> {
  // The last level runs every worker started (3): each one's rule as it logged it at the end.
  const rules = r.throughput[r.throughput.length - 1]?.rules ?? [];
  const all = r.throughput.flatMap((t) => t.rules ?? []);
  const replicated = all.length > 0 && all.every((x) => x.startsWith("replicated"));
  return [
    {
      goal: "with a replica: every fleet job completed, every worker under the replicated rule (WAIT n)",
      met: r.throughput.every((t) => t.fleetFailed === 0) && replicated,
      measured: `${r.throughput.reduce((n, t) => n + t.fleetFailed, 0)} failed; rules: ${rulesCell(rules)}`,
    },
    {
      goal: "with a replica: fleet throughput against direct runs reported (no numeric goal set)",
      met: undefined,
      measured: r.throughput.map((t) => `${t.workers}: ${ratio(t.ratio)}`).join(", "),
    },
    {
      goal: "with a replica: what `WAIT 1` adds to the dispatch mark reported (no numeric goal set)",
      met: undefined,
      measured: `p50 ${fmt(r.waitMs.p50)} ms, p99 ${fmt(r.waitMs.p99)} ms (the write itself: p50 ${fmt(r.markMs.p50)} ms)`,
    },
  ];
}

/** The replicated run's rows (P8 behind Sentinel, WAIT 1). */
function replicatedRows(r: NonNullable<FleetBenchResult["replicated"]>, plain: FleetThroughput[]): string[] {
  const path = (levels: FleetThroughput[]) => latency(levels.flatMap((t) => t.markToChunkMs ?? []));
  const [withReplica, without] = [path(r.throughput), path(plain)];
  const pathRows =
    withReplica.n > 0 && without.n > 0
      ? [
          "",
          table(
            [
              "the worker's dispatch mark → the agent's first chunk (every job, all levels)",
              "n",
              "p50 (ms)",
              "p99 (ms)",
              "max (ms)",
            ],
            [
              ["without a replica", String(without.n), fmt(without.p50), fmt(without.p99), fmt(without.max)],
              [
                "with a replica (`WAIT 1` after the mark)",
                String(withReplica.n),
                fmt(withReplica.p50),
                fmt(withReplica.p99),
                fmt(withReplica.max),
              ],
            ],
          ),
          "",
          `The worker's own path, from the record's \`dispatched_at\` (taken just before the mark is written) to the fake agent's first chunk: the mark, its \`WAIT\` when replicated, the prompt over ACP and the agent starting the turn. The difference of the two rows (p50 ${fmt(withReplica.p50 - without.p50)} ms) is what the replica added on the real path, within the noise of two runs minutes apart; the rows above time the two commands alone.`,
        ]
      : [];
  return [
    "",
    "**With a replica and `WAIT 1`** (issue 26 §6): the same jobs behind `redis+sentinel://` — a primary, one replica and",
    "three sentinels on loopback, all Debian's Redis 7.0 with AOF and `appendfsync always` — so every submit and every",
    "dispatch mark waits for the replica's acknowledgement before it counts.",
    "",
    table(
      [
        "workers / direct at once",
        "fleet jobs/s (replicated)",
        "direct jobs/s",
        "fleet ÷ direct",
        "failed (fleet / direct)",
        "workers' rule (their log)",
      ],
      r.throughput.map((t) => [
        String(t.workers),
        fmt(t.fleetJobsPerS),
        fmt(t.directJobsPerS),
        ratio(t.ratio),
        `${t.fleetFailed} / ${t.directFailed}`,
        rulesCell(t.rules),
      ]),
    ),
    "",
    table(
      ["the dispatch mark on the primary", "n", "p50 (ms)", "p99 (ms)", "max (ms)"],
      [
        [
          "the mark's write (HSET, AOF fsync always)",
          String(r.markMs.n),
          fmt(r.markMs.p50),
          fmt(r.markMs.p99),
          fmt(r.markMs.max),
        ],
        [
          "added by `WAIT 1` after it (the replica's ack)",
          String(r.waitMs.n),
          fmt(r.waitMs.p50),
          fmt(r.waitMs.p99),
          fmt(r.waitMs.max),
        ],
      ],
    ),
    ...pathRows,
  ];
}
