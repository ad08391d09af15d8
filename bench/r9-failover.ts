/*
 * R9 failover campaign (issue 26 §3): `seat worker` processes on a redis+sentinel:// URL — Debian's redis-server as
 *   primary and replica, three redis-sentinel processes, all on loopback — take a steady stream of jobs while the
 *   primary is killed (SIGKILL), stopped (SIGSTOP past the sentinels' down-after) or killed and restarted with an
 *   empty disk, at seeded random points and right after a job's dispatch mark; then every job is checked against
 *   what the agents really received.
 * Owns: runR9() and its figures (sent twice, lost, uncertain by reason and by whether the agent saw the prompt,
 *   time from each fault to the fleet taking new jobs), its RELIABILITY.md section and sizes.
 * Does not own: the fleet (src/fleet), the rigs (src/fleet/sentinel-rig.ts, test/support/fleet-rig.ts).
 * Method: "sent" is counted at the fake agent's prompt logs (by promptId), never from the fleet's records. After a
 *   fault the campaign waits for the sentinels to promote the replica, brings the old primary back (SIGCONT, or a
 *   restart — on its AOF, or on an empty disk), lets the sentinels make it a replica, and waits until it is in sync
 *   before the next fault. "Taking new jobs again" is the first `dispatched` transition of any job after the fault
 *   (the submitter keeps a job waiting at all times), on the workers' clock (same machine).
 */
import { connectFleet, type FleetClient, type JobHandle, type JobRecord } from "../src/fleet/index.js";
import { isSeatError } from "../src/errors.js";
import { readEvents, START } from "../src/fleet/events.js";
import { Queue } from "bullmq";
import { bullConnection, connect, parseRedisUrl } from "../src/redis/connection.js";
import { BULL_PREFIX, SHARED_QUEUE } from "../src/fleet/keys.js";
import { startSentinelSet, type SentinelSetRig } from "../src/fleet/sentinel-rig.js";
import type { RedisServer } from "../src/fleet/redis-server.js";
import { startFleetRig, type WorkerProc } from "../test/support/fleet-rig.js";
import { fmt, percentile, table } from "./report.js";
import { mulberry32 } from "./prng.js";
import { retry } from "./fleet.js";

/** Sizes of one R9 run. */
export interface R9Options {
  /** Failovers (each a fault of the current primary). */
  faults: number;
  /** Jobs submitted in all (a steady stream while the faults happen). */
  jobs: number;
  workers?: number;
  concurrency?: number;
  seed?: number;
  log?: (line: string) => void;
}

type FaultKind = "kill" | "stop" | "restart-empty";

/** One fault and how the fleet came through it. */
export interface R9Fault {
  kind: FaultKind;
  /** Triggered right after a job's dispatch mark (else at a random point of the stream). */
  atMark: boolean;
  /** ms from the fault to the sentinels' promotion. */
  promotedMs: number;
  /** ms from the fault to the first job dispatched after it (-1: none). */
  takingJobsMs: number;
}

/** The R9 result. */
export interface R9Result {
  jobs: number;
  byStatus: Record<string, number>;
  sentTwice: number;
  lost: number;
  /** uncertain jobs by reason, and how many of them the agent had received. */
  uncertain: Record<string, { n: number; reached: number }>;
  /** uncertain jobs whose prompt never reached the agent, other than replication-unconfirmed (documented). */
  falseUncertain: number;
  /** Submits that answered FLEET_SUBMIT_UNCONFIRMED (their submitter was told). */
  submitUnconfirmed: number;
  faults: R9Fault[];
  takingJobsMs: { p50: number; p99: number; max: number };
  failures: number;
  durationMs: number;
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** R9 sizes: a few minutes on 2 cores. */
export function r9Sizes(quick: boolean): R9Options {
  return quick
    ? { faults: 3, jobs: 60, workers: 2, concurrency: 2 }
    : { faults: 9, jobs: 240, workers: 3, concurrency: 2 };
}

/** Runs the campaign; every process, server and temp dir it starts is gone when it resolves. */
export async function runR9(options: R9Options): Promise<R9Result> {
  const t0 = Date.now();
  const log = options.log ?? (() => undefined);
  const random = mulberry32(options.seed ?? 9);
  const problems: string[] = [];
  const faults: R9Fault[] = [];
  const set = await startSentinelSet({ downAfterMs: 1_000, failoverTimeoutMs: 3_000 });
  const rig = await startFleetRig().catch(async (error: unknown) => {
    await set.stop();
    throw error;
  });
  const workers: WorkerProc[] = [];
  const handles: JobHandle[] = [];
  const records = new Map<string, JobRecord | undefined>();
  const client = await connectFleet(set.url);
  const ended = new Set<string>();
  /** Jobs whose submit said FLEET_SUBMIT_UNCONFIRMED: the submitter was told they may be lost. */
  const unconfirmed = new Set<string>();
  let submitting = true;
  try {
    for (let i = 0; i < (options.workers ?? 3); i++)
      workers.push(
        await rig.startWorker(`r9-w${i + 1}`, {
          redisUrl: set.url,
          args: ["--concurrency", String(options.concurrency ?? 2)],
        }),
      );
    // The stream: a job every ~120 ms; one in four has a 1.5 s turn, so faults land mid-turn too.
    const submitter: Promise<void> = (async () => {
      // At least `jobs`, and on until the last fault is over: every fault has jobs waiting behind it.
      for (let n = 0; n < options.jobs || submitting; n++) {
        // A bounded backlog: the stream never runs far ahead of what the workers take.
        while (handles.length - ended.size > 8) {
          await sleep(100);
          // Ended, or gone (a lost job must not stall the stream: it is counted at the end).
          for (const h of handles.slice(-30))
            if (
              !ended.has(h.id) &&
              !["waiting", "active", "dispatched"].includes((await h.state().catch(() => undefined))?.status ?? "gone")
            )
              ended.add(h.id);
          for (const h of handles) if (!ended.has(h.id) && handles.indexOf(h) < handles.length - 30) ended.add(h.id);
        }
        const prompt = n % 4 === 3 ? `r9 job ${n} scenario:slow-stream` : `r9 job ${n}`;
        handles.push(await submit(client, { prompt, jobId: `r9-${n}`, cwd: rig.root }, unconfirmed));
        await sleep(120);
      }
    })().catch((error: unknown) => {
      problems.push(`submitter stopped: ${error instanceof Error ? error.message : String(error)}`);
    });
    const plan = Array.from({ length: options.faults }, (_, i) => ({
      kind: (["kill", "stop", "restart-empty"] as const)[i % 3]!,
      atMark: random() < 0.5,
    }));
    for (const [i, step] of plan.entries()) {
      await sleep(1_500 + random() * 2_500);
      const primary = await set.primary();
      if (step.atMark) await markSeen(handles);
      const at = Date.now();
      if (step.kind === "stop") set.pause(primary);
      else await primary.kill();
      log(
        `R9: fault ${i + 1}/${plan.length}: ${step.kind} primary :${primary.port}${step.atMark ? " right after a dispatch mark" : ""}`,
      );
      const promotedMs = await set.waitForPromotion(primary.port, 30_000).catch((error: unknown) => {
        problems.push(`fault ${i + 1}: ${error instanceof Error ? error.message : String(error)}`);
        return -1;
      });
      await bringBack(set, primary, step.kind);
      faults.push({ kind: step.kind, atMark: step.atMark, promotedMs, takingJobsMs: -1, at } as R9Fault);
      await inSync(set).catch((error: unknown) =>
        problems.push(`after fault ${i + 1}: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    submitting = false;
    await submitter;
    log(`R9: ${handles.length} jobs submitted; waiting for them to end`);
    const deadline = Date.now() + 120_000;
    for (const handle of handles) {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), Math.max(1, deadline - Date.now()));
      await retry(() => handle.result({ signal: ctrl.signal })).catch(() => undefined);
      clearTimeout(timer);
    }
    // One stalled-job recovery window: a re-run would show as a second send.
    await sleep(16_000);
    for (const handle of handles) records.set(handle.id, await retry(() => handle.state()).catch(() => undefined));
    // Time to taking jobs again: the first dispatch of any job after each fault.
    const raw = connect(parseRedisUrl(set.url), { name: "r9-check" });
    const dispatchTimes: number[] = [];
    const streams = new Map<string, Awaited<ReturnType<typeof readEvents>>>();
    try {
      for (const handle of handles) {
        const stream = await retry(() => readEvents(raw, handle.id, START, 0, 100_000));
        streams.set(handle.id, stream);
        for (const { event } of stream)
          if (event.type === "job" && event.status === "dispatched" && event.atMs) dispatchTimes.push(event.atMs);
      }
    } finally {
      raw.disconnect();
    }
    dispatchTimes.sort((a, b) => a - b);
    for (const f of faults as Array<R9Fault & { at?: number }>) {
      const next = dispatchTimes.find((t) => t > f.at!);
      f.takingJobsMs = next === undefined ? -1 : next - f.at!;
      delete f.at;
    }
    // What the workers said of the jobs they could not confirm, to trace why.
    for (const line of workers
      .flatMap((w) =>
        w
          .stderr()
          .split("\n")
          .filter((l) => /replication-unconfirmed|durability rule/.test(l))
          .map((l) => `${w.name}: ${l}`),
      )
      .slice(0, 12))
      log(`R9: ${line}`);
    // Where BullMQ has a job the campaign finds not ended, and what the workers said of it.
    const queue = new Queue(SHARED_QUEUE, { connection: bullConnection(parseRedisUrl(set.url)), prefix: BULL_PREFIX });
    try {
      for (const handle of handles) {
        const status = records.get(handle.id)?.status ?? "missing";
        if (["completed", "failed", "cancelled", "uncertain"].includes(status)) continue;
        const state = await queue.getJobState(handle.id).catch((error: unknown) => `unknown (${String(error)})`);
        const said = workers.flatMap((w) =>
          w
            .stderr()
            .split("\n")
            .filter((l) => l.includes(`job ${handle.id}:`))
            .map((l) => `${w.name}: ${l.trim()}`),
        );
        const events = (streams.get(handle.id) ?? []).flatMap(({ event }) =>
          event.type === "job"
            ? [
                `${event.status}${event.reason ? `/${event.reason}` : ""}@${event.host ?? "?"} t${(event.atMs ?? 0) % 1_000_000}`,
              ]
            : [],
        );
        log(
          `R9: ${handle.id} is ${status}; BullMQ: ${state}; events: ${events.join(", ")}; ${said.join(" | ") || "no worker line"}`,
        );
      }
    } finally {
      await queue.close();
    }
    for (const w of workers) {
      if (w.child.exitCode !== null || w.child.signalCode !== null)
        problems.push(`worker ${w.name} exited by itself: ${w.stderr().trim().split("\n").slice(-3).join(" | ")}`);
    }
    return summarize(unconfirmed, handles, records, streams, workers, faults, problems, Date.now() - t0);
  } catch (error) {
    problems.push(`campaign aborted: ${error instanceof Error ? error.message : String(error)}`);
    return summarize(unconfirmed, handles, records, new Map(), workers, faults, problems, Date.now() - t0);
  } finally {
    submitting = false;
    await client.close().catch(() => undefined);
    await rig.close();
    await set.stop();
  }
}

/**
 * Submits through a failover: an enqueue that failed may still have landed (its reply lost), so before trying again
 * the job is looked up; one that exists is taken as submitted. FLEET_SUBMIT_UNCONFIRMED is noted, not retried.
 */
async function submit(
  client: FleetClient,
  request: { prompt: string; jobId: string; cwd: string },
  unconfirmed: Set<string>,
): Promise<JobHandle> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await client.enqueue(request);
    } catch (error) {
      if (isSeatError(error, "FLEET_SUBMIT_UNCONFIRMED")) {
        unconfirmed.add(request.jobId);
        return client.job(request.jobId);
      }
      if (attempt > 200) throw error;
      const exists = await client
        .job(request.jobId)
        .state()
        .then(
          () => true,
          () => false,
        );
      if (exists) return client.job(request.jobId);
      await sleep(250);
    }
  }
}

/** Resolves once some job records its dispatch mark (watched from the submitter's side), or after 5 s. */
async function markSeen(handles: JobHandle[]): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline) {
    for (const h of handles.slice(-6)) {
      const s = await h.state().catch(() => undefined);
      if (s?.status === "dispatched" && s.dispatchedAt && Date.now() - s.dispatchedAt < 200) return;
    }
    await sleep(5);
  }
}

/** Brings a faulted primary back the way its fault allows; the sentinels make it a replica of the new primary. */
async function bringBack(set: SentinelSetRig, server: RedisServer, kind: FaultKind): Promise<void> {
  if (kind === "stop") set.resume(server);
  // A host that lost its disk comes back as a replica of the primary now (as an operator re-adds one): an empty
  // instance that comes back as a master right after a promotion ended, in R9's first full run, with the new
  // primary emptied too.
  else if (kind === "restart-empty") await server.restart({ empty: true, replicaOf: (await set.primary()).port });
  else await server.restart();
}

/** Waits until the primary reports every other server connected and in sync. */
async function inSync(set: SentinelSetRig): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const primary = await set.primary().catch(() => undefined);
    if (primary) {
      const r = connect(parseRedisUrl(`redis://127.0.0.1:${primary.port}`), { name: "r9-sync" });
      try {
        const info = await r.info("replication");
        const online = (info.match(/state=online/g) ?? []).length;
        if (/role:master/.test(info) && online >= set.servers.length - 1) return;
      } catch {
        // not there yet
      } finally {
        r.disconnect();
      }
    }
    if (Date.now() > deadline) throw new Error("the set did not get back in sync within 30 s");
    await sleep(200);
  }
}

function summarize(
  unconfirmed: Set<string>,
  handles: JobHandle[],
  records: Map<string, JobRecord | undefined>,
  streams: Map<string, Awaited<ReturnType<typeof readEvents>>>,
  workers: WorkerProc[],
  faults: R9Fault[],
  problems: string[],
  durationMs: number,
): R9Result {
  const seen = new Map<string, number>();
  for (const w of workers) for (const p of w.prompts()) seen.set(p, (seen.get(p) ?? 0) + 1);
  const byStatus: Record<string, number> = {};
  const uncertain: R9Result["uncertain"] = {};
  let sentTwice = 0;
  let lost = 0;
  let falseUncertain = 0;
  for (const handle of handles) {
    const record = records.get(handle.id);
    const status = record?.status ?? "missing";
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const sent = seen.get(`fleet-${handle.id}`) ?? 0;
    if (sent > 1) {
      sentTwice++;
      problems.push(`${handle.id}: the agent received its prompt ${sent} times`);
    }
    if (!record && unconfirmed.has(handle.id)) {
      // Its submitter was told FLEET_SUBMIT_UNCONFIRMED: not lost without a trace.
      byStatus["submit-unconfirmed, gone"] = (byStatus["submit-unconfirmed, gone"] ?? 0) + 1;
    } else if (!record || !["completed", "failed", "cancelled", "uncertain"].includes(status)) {
      lost++;
      problems.push(`${handle.id}: lost (${status})`);
    }
    if (status === "completed" && sent !== 1) problems.push(`${handle.id}: completed but received ${sent} times`);
    if (status === "failed") problems.push(`${handle.id}: failed ${record?.code ?? ""} ${record?.message ?? ""}`);
    if (status === "uncertain") {
      const stream = streams.get(handle.id) ?? [];
      const reason = [...stream]
        .reverse()
        .map((e) => e.event)
        .find((e) => e.type === "job" && e.status === "uncertain") as { reason?: string } | undefined;
      const why = reason?.reason ?? (record?.derived ? "heartbeat-lost (derived)" : "unknown");
      const entry = (uncertain[why] ??= { n: 0, reached: 0 });
      entry.n++;
      if (sent > 0) entry.reached++;
      if (sent === 0 && why !== "replication-unconfirmed") {
        falseUncertain++;
        problems.push(`${handle.id}: uncertain (${why}) although the agent never received it`);
      }
    }
  }
  const taking = faults.map((f) => f.takingJobsMs).filter((ms) => ms >= 0);
  const failures = problems.length;
  return {
    jobs: handles.length,
    byStatus,
    sentTwice,
    lost,
    uncertain,
    falseUncertain,
    submitUnconfirmed: unconfirmed.size,
    faults,
    takingJobsMs: { p50: percentile(taking, 50), p99: percentile(taking, 99), max: Math.max(0, ...taking) },
    failures,
    durationMs,
    problems,
  };
}

/** One line of figures. */
export function r9FigureLine(r: R9Result): string {
  const u =
    Object.entries(r.uncertain)
      .map(([why, x]) => `${why} ×${x.n} (${x.reached} reached the agent)`)
      .join(", ") || "none";
  return `R9 failover: ${r.jobs} jobs through ${r.faults.length} failovers (${r.faults.filter((f) => f.atMark).length} right after a dispatch mark): ${r.sentTwice} sent twice, ${r.lost} lost, ${r.falseUncertain} false uncertain; uncertain: ${u}; taking jobs again p50 ${fmt(r.takingJobsMs.p50)} ms p99 ${fmt(r.takingJobsMs.p99)} ms; ${r.failures} failures; took ${(r.durationMs / 1000).toFixed(0)} s`;
}

/** R9's RELIABILITY.md section. */
export function renderR9Section(r: R9Result, commit: string): string {
  const statuses = Object.entries(r.byStatus)
    .map(([s, n]) => `${s} ×${n}`)
    .join(", ");
  return [
    "## R9 failover: the primary killed, stopped or emptied under a Sentinel",
    "",
    `Commit ${commit}. ${r.jobs} fake-agent jobs (one in four with a 1.5 s turn), submitted every ~120 ms through a`,
    "redis+sentinel:// URL to 3 `seat worker` processes (`--concurrency 2`); Debian's redis-server 7.0 as primary and replica",
    "(AOF, appendfsync always) and three redis-sentinel processes (down-after 1 s, failover-timeout 3 s), all on loopback.",
    `${r.faults.length} faults of the current primary, in turn SIGKILL, SIGSTOP (resumed after the promotion, past down-after) and`,
    "SIGKILL with its data dir emptied before it restarts; about half are triggered right after a job's dispatch mark is",
    "seen. The old primary comes back and the sentinels make it a replica; the next fault waits until it is in sync.",
    '"Sent" is counted at the fake agent\'s prompt logs by promptId.',
    "",
    table(
      [
        "jobs",
        "ended",
        "sent twice",
        "lost",
        "false uncertain",
        "taking jobs again p50 / p99 / max (ms)",
        "failures",
        "wall time",
      ],
      [
        [
          String(r.jobs),
          statuses,
          String(r.sentTwice),
          String(r.lost),
          String(r.falseUncertain),
          `${fmt(r.takingJobsMs.p50)} / ${fmt(r.takingJobsMs.p99)} / ${fmt(r.takingJobsMs.max)}`,
          String(r.failures),
          `${(r.durationMs / 1000).toFixed(0)} s`,
        ],
      ],
    ),
    "",
    `Submits answered \`FLEET_SUBMIT_UNCONFIRMED\`: ${r.submitUnconfirmed}.`,
    `Uncertain by reason: ${
      Object.entries(r.uncertain)
        .map(([why, x]) => `${why} ×${x.n} (${x.reached} had reached the agent)`)
        .join(", ") || "none"
    }.`,
    "A `replication-unconfirmed` job was never sent (its mark was not acknowledged by the replica in time); it stays",
    'uncertain by design (docs/fleet.md, "A fence that survives promotion").',
    "",
    table(
      ["fault", "kind", "at a mark", "promoted after (ms)", "taking jobs after (ms)"],
      r.faults.map((f, i) => [
        String(i + 1),
        f.kind,
        f.atMark ? "yes" : "no",
        String(f.promotedMs),
        String(f.takingJobsMs),
      ]),
    ),
    r.problems.length
      ? `\nProblems:\n\n${r.problems
          .slice(0, 20)
          .map((p) => `- ${p}`)
          .join("\n")}`
      : "",
    "",
  ].join("\n");
}
