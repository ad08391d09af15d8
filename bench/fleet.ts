/*
 * R6 fleet campaign: `seat worker` processes on a real redis-server (AOF on, appendfsync always) take a few
 *   hundred jobs while workers are `kill -9`ed (right after a dispatch, and at random points) and Redis is
 *   killed and restarted mid-run; then every job is checked against what the agents really received.
 * Owns: runFleetCampaign() and its figures (lost, sent twice, uncertain and whether each was really in doubt,
 *   misreports, cancel latency). Rendering is bench/fleet-render.ts; sizes and the report file are torture.ts.
 * Does not own: the fleet (src/fleet) or the rig (test/support/fleet-rig.ts, live-rig.ts).
 * Method: one router executable is every worker's GROK_BIN: a job whose cwd is the `fleet-fake` folder runs the fake
 *   agent (which appends each promptId it receives to one shared log), any other the real grok 1.0.41 against
 *   the loopback mock model (which logs each request's promptId). "Sent twice" is counted there, by promptId,
 *   never from the fleet's own records. Kills and the Redis restart are triggered by the number of prompts the
 *   agents have received, so they land mid-run on any machine speed. A job whose worker died before dispatch
 *   waits for BullMQ's stalled-job recovery (lock 10 s + check 5 s) and runs elsewhere.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectFleet, type FleetClient, type JobHandle, type JobRecord } from "../src/fleet/index.js";
import { readEvents, START } from "../src/fleet/events.js";
import { FAKE_GROK_JS } from "../test/support/fake-agent.js";
import { startFleetRig, type FleetRig, type WorkerProc } from "../test/support/fleet-rig.js";
import { startLiveRig, type LiveRig } from "../test/support/live-rig.js";
import { connect, parseRedisUrl } from "../src/redis/connection.js";
import { percentile } from "./report.js";
import { mulberry32 } from "./prng.js";

/** Sizes of one campaign. */
export interface FleetCampaignOptions {
  /** Plain fake-agent jobs (one short turn each). */
  fakeJobs: number;
  /** Fake jobs with a 1.5 s turn whose worker is killed right after their `dispatched` transition. */
  killAfterDispatch: number;
  /** Fake jobs that hang until cancelled: cancelled as soon as they are dispatched (cancel latency). */
  cancels: number;
  /** Jobs on the real grok (0: none). One more, on a slow reply, has its worker killed after dispatch when > 0. */
  grokJobs: number;
  /** Workers killed at random points (by the fraction of prompts received). */
  randomKills: number;
  redisRestarts: number;
  workers?: number;
  concurrency?: number;
  seed?: number;
  log?: (line: string) => void;
}

/** How one job ended and what the agents saw of it. */
export interface FleetJobCase {
  id: string;
  kind: "fake" | "kill-after-dispatch" | "cancel" | "grok" | "grok-kill-after-dispatch";
  status: string;
  /** Times the agent (fake log) or the model (mock log) received this job's promptId. */
  sent: number;
  problems: string[];
}

/** The R6 result. */
export interface FleetCampaignResult {
  jobs: number;
  byStatus: Record<string, number>;
  lost: number;
  sentTwice: number;
  uncertain: number;
  /** Uncertain jobs that were really in doubt: dispatched marker present, no completion recorded, their worker killed. */
  uncertainInDoubt: number;
  /** Of those, how many had in fact reached the agent (the rest died before the agent read the prompt). */
  uncertainReached: number;
  misreported: number;
  failures: number;
  workerKills: { afterDispatch: number; random: number };
  redisRestarts: number;
  cancelLatencyMs: { n: number; p50: number; p99: number; max: number };
  /** Cancels that took 1 s or more, and whether a Redis restart fell inside their window. */
  slowCancels: Array<{ id: string; ms: number; duringRedisRestart: boolean }>;
  grokJobs: number;
  durationMs: number;
  skipped: string | null;
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Stall recovery window: a job BullMQ would re-offer after a kill has been re-offered by then (lock 10 s + check 5 s). */
const STALL_WINDOW_MS = 16_000;

/** Retries `op` while Redis is restarting (its connections fail a command after a few reconnect attempts). */
export async function retry<T>(op: () => Promise<T>, tries = 40): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await op();
    } catch (error) {
      if (i >= tries) throw error;
      await sleep(250);
    }
  }
}

/** Runs the campaign; every process, server and temp dir it starts is gone when it resolves. */
export async function runFleetCampaign(options: FleetCampaignOptions): Promise<FleetCampaignResult> {
  const t0 = Date.now();
  const log = options.log ?? (() => undefined);
  const random = mulberry32(options.seed ?? 6); // a seed replays the same job order and kill points
  let live: LiveRig | undefined;
  let skipped: string | null = null;
  if (options.grokJobs > 0) {
    const slow = Array.from({ length: 60 }, (_, i) => `w${i}`).join(" ");
    const rig = await startLiveRig({
      rules: [{ match: "answer slowly", replies: [{ text: slow, chunkDelayMs: 150 }] }],
      fallback: { text: "fleet job done" },
    });
    if (typeof rig === "string") skipped = rig;
    else live = rig;
  }
  const rig = await startFleetRig();
  const promptLog = join(rig.root, "prompts.log");
  const router = join(rig.root, "grok-router");
  writeFileSync(
    router,
    [
      "#!/bin/sh",
      // Routed by the job's cwd, not a made-up model: grok-seat refuses a model the agent's catalogue lacks.
      `case "$(pwd -P)" in */fleet-fake) FAKE_GROK_PROMPT_LOG=${JSON.stringify(promptLog)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@";; esac`,
      `exec ${live ? JSON.stringify(live.binary) : "false"} "$@"`,
      "",
    ].join("\n"),
  );
  chmodSync(router, 0o755);
  const fakeCwd = join(rig.root, "fleet-fake");
  mkdirSync(fakeCwd, { recursive: true });
  const hostEnv: Record<string, string> = {
    GROK_BIN: router,
    ...(live
      ? {
          HOME: live.sandbox.home,
          GROK_HOME: live.sandbox.grokHome,
          GROK_DISABLE_AUTOUPDATER: "1",
          GROK_TELEMETRY_ENABLED: "0",
        }
      : {}),
  };
  const killed = new Set<string>();
  let serial = 0;
  const spawnWorker = () =>
    rig.startWorker(`w${++serial}`, { env: hostEnv, args: ["--concurrency", String(options.concurrency ?? 2)] });
  const live$ = new Set<WorkerProc>();
  const replacements: Promise<unknown>[] = [];
  const kill = (w: WorkerProc | undefined, why: string) => {
    if (!w || !live$.has(w)) return false;
    live$.delete(w);
    killed.add(w.name);
    w.child.kill("SIGKILL");
    log(`R6: kill -9 worker ${w.name} (${why})`);
    replacements.push(spawnWorker().then((n) => live$.add(n)));
    return true;
  };
  const fakeSeen = () => (existsSync(promptLog) ? readFileSync(promptLog, "utf8").split("\n").filter(Boolean) : []);
  const sentCount = (promptId: string, kind: FleetJobCase["kind"]) =>
    kind.startsWith("grok")
      ? live!.mock.requests.filter((r) => r.kind === "main" && r.reqId === promptId).length
      : fakeSeen().filter((p) => p === promptId).length;

  const client = await connectFleet(rig.redis.url);
  const problems: string[] = [];
  const cases: FleetJobCase[] = [];
  const latencies: number[] = [];
  const slowCancels: FleetCampaignResult["slowCancels"] = [];
  const restartWindows: Array<[number, number]> = [];
  let afterDispatchKills = 0;
  let randomKills = 0;
  let restarts = 0;
  try {
    for (let i = 0; i < (options.workers ?? 3); i++) live$.add(await spawnWorker());
    const kinds: FleetJobCase["kind"][] = [
      ...Array<FleetJobCase["kind"]>(options.fakeJobs).fill("fake"),
      ...Array<FleetJobCase["kind"]>(options.killAfterDispatch).fill("kill-after-dispatch"),
      ...Array<FleetJobCase["kind"]>(options.cancels).fill("cancel"),
      ...(live
        ? [...Array<FleetJobCase["kind"]>(options.grokJobs).fill("grok"), "grok-kill-after-dispatch" as const]
        : []),
    ];
    // Probes spread through the queue: a seeded shuffle.
    for (let i = kinds.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
    }
    const jobs: Array<{ kind: FleetJobCase["kind"]; handle: JobHandle }> = [];
    for (const [n, kind] of kinds.entries()) {
      const prompt =
        kind === "kill-after-dispatch"
          ? `job ${n} scenario:slow-stream`
          : kind === "cancel"
            ? `job ${n} scenario:hang-on-prompt`
            : kind === "grok-kill-after-dispatch"
              ? `job ${n}: answer slowly`
              : `job ${n}`;
      const handle = await client.enqueue({
        prompt,
        jobId: `r6-${n}`,
        ...(kind.startsWith("grok") ? { cwd: live!.sandbox.project } : { cwd: fakeCwd }),
      });
      jobs.push({ kind, handle });
    }
    log(`R6: ${jobs.length} jobs submitted to ${live$.size} workers`);
    const chaos = runChaos(
      rig,
      options,
      random,
      fakeSeen,
      () => [...live$],
      kill,
      (window) => (restarts++, restartWindows.push(window)),
      log,
    ).then((n) => (randomKills = n));
    const probes = jobs
      .filter((j) => j.kind !== "fake" && j.kind !== "grok")
      .map(async ({ kind, handle }) => {
        const dispatched = await waitDispatched(client, handle.id);
        if (!dispatched) return;
        if (kind === "cancel") {
          const asked = Date.now();
          await retry(() => handle.cancel());
          const ended = await retry(
            () =>
              handle
                .state()
                .then((s) =>
                  ["cancelled", "completed", "failed", "uncertain"].includes(s.status)
                    ? s
                    : Promise.reject(new Error("running")),
                ),
            80,
          );
          if (ended.status === "cancelled" && ended.endedAt) {
            const ms = ended.endedAt - asked;
            latencies.push(ms);
            if (ms >= 1_000) {
              const duringRedisRestart = restartWindows.some(([a, b]) => a <= ended.endedAt! && b >= asked);
              slowCancels.push({ id: handle.id, ms, duringRedisRestart });
              log(
                `R6: cancel of ${handle.id} took ${ms} ms${duringRedisRestart ? " (a Redis restart fell inside it)" : ""}`,
              );
            }
          }
        } else {
          const worker = [...live$].find((w) => w.name === dispatched);
          if (kill(worker, `right after ${handle.id} was dispatched`)) afterDispatchKills++;
        }
      });
    await Promise.all([...probes, chaos]);
    await Promise.all(replacements);
    const deadline = Date.now() + 180_000;
    const records = new Map<string, JobRecord | undefined>();
    for (const { handle } of jobs) {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), Math.max(1, deadline - Date.now()));
      await retry(() => handle.result({ signal: ctrl.signal })).catch(() => undefined);
      clearTimeout(timer);
    }
    // Give stalled-job recovery its window after the last kill: a re-run would show up as a second send.
    await sleep(STALL_WINDOW_MS);
    for (const { handle } of jobs) records.set(handle.id, await retry(() => handle.state()).catch(() => undefined));
    const raw = connect(parseRedisUrl(rig.redis.url), { name: "r6-check" });
    try {
      for (const { kind, handle } of jobs)
        cases.push(
          await judge(raw, kind, handle.id, records.get(handle.id), sentCount(`fleet-${handle.id}`, kind), killed),
        );
    } finally {
      raw.disconnect();
    }
    // What the workers said of a job the campaign finds wrong (their log lines about it), to trace its path.
    for (const c of cases) {
      if (c.problems.length === 0) continue;
      const said = rig.workers.flatMap((w) =>
        w
          .stderr()
          .split("\n")
          .filter((l) => l.includes(`job ${c.id}:`))
          .map((l) => `${w.name}: ${l.trim()}`),
      );
      c.problems.push(`worker log: ${said.join(" | ") || "nothing"}`);
    }
    // A worker nobody killed must still be running: one that died by itself (say, of a Redis restart) is a defect
    // of its own, and would make its jobs look uncertain for no reason the campaign caused.
    for (const w of rig.workers) {
      if (killed.has(w.name) || (w.child.exitCode === null && w.child.signalCode === null)) continue;
      problems.push(
        `worker ${w.name} exited by itself (code ${w.child.exitCode ?? "none"}, signal ${w.child.signalCode ?? "none"}): ${w.stderr().trim().split("\n").slice(-5).join(" | ")}`,
      );
    }
  } catch (error) {
    problems.push(`campaign aborted: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    await client.close();
    await rig.close();
    await live?.close();
  }
  return summarize(cases, problems, {
    afterDispatchKills,
    randomKills,
    restarts,
    latencies,
    slowCancels,
    durationMs: Date.now() - t0,
    skipped,
    grokJobs: cases.filter((c) => c.kind.startsWith("grok")).length,
  });
}

/** Follows job `id` until it is dispatched; resolves the host that dispatched it, or undefined when it ended first. */
export async function waitDispatched(client: FleetClient, id: string): Promise<string | undefined> {
  for await (const { event } of client.job(id).events()) {
    if (event.type !== "job") continue;
    if (event.status === "dispatched") return event.host;
    if (["completed", "failed", "cancelled", "uncertain"].includes(event.status)) return undefined;
  }
  return undefined;
}

/** Random worker kills and the Redis restarts, each at a seeded fraction of the fake prompts received. */
async function runChaos(
  rig: FleetRig,
  o: FleetCampaignOptions,
  random: () => number,
  seen: () => string[],
  workers: () => WorkerProc[],
  kill: (w: WorkerProc | undefined, why: string) => boolean,
  restarted: (window: [number, number]) => void,
  log: (l: string) => void,
): Promise<number> {
  const total = o.fakeJobs + o.killAfterDispatch + o.cancels;
  const events = [
    ...Array.from({ length: o.randomKills }, () => ({ at: 0.05 + random() * 0.8, what: "kill" as const })),
    ...Array.from({ length: o.redisRestarts }, (_, i) => ({
      at: (i + 1) / (o.redisRestarts + 1),
      what: "redis" as const,
    })),
  ].sort((a, b) => a.at - b.at);
  let kills = 0;
  for (const e of events) {
    const deadline = Date.now() + 120_000;
    while (seen().length < e.at * total * 0.9 && Date.now() < deadline) await sleep(50);
    if (e.what === "kill") {
      const pool = workers();
      if (kill(pool[Math.floor(random() * pool.length)], `random point, ${seen().length} prompts received`)) kills++;
    } else {
      log(`R6: kill -9 redis-server and restart it (AOF), ${seen().length} prompts received`);
      const down = Date.now();
      await rig.redis.restart();
      restarted([down, Date.now()]);
    }
  }
  return kills;
}

/** Checks one job against the agents' logs and its own stream. */
async function judge(
  raw: ReturnType<typeof connect>,
  kind: FleetJobCase["kind"],
  id: string,
  record: JobRecord | undefined,
  sent: number,
  killed: Set<string>,
): Promise<FleetJobCase> {
  const problems: string[] = [];
  const status = record?.status ?? "missing";
  const stream = (await readEvents(raw, id, START, 0, 100_000)).map((e) => e.event);
  const doneInStream = stream.some((e) => e.type === "done");
  const completedInStream = stream.some((e) => e.type === "job" && e.status === "completed");
  if (!record || !["completed", "cancelled", "uncertain", "failed"].includes(status)) problems.push(`lost: ${status}`);
  if (sent > 1) problems.push(`sent ${sent} times`);
  if (status === "completed" && sent !== 1) problems.push(`completed but the agent received it ${sent} times`);
  if (status === "failed") problems.push(`failed: ${record?.code ?? "?"} ${record?.message ?? ""}`.trim());
  if (status === "cancelled" && kind !== "cancel") problems.push("cancelled although nobody cancelled it");
  if (status === "uncertain") {
    if (!record?.dispatchedAt || !record.promptId) problems.push("uncertain without a dispatched marker");
    if (completedInStream || doneInStream) problems.push("uncertain although its completion was recorded");
    if (!record?.host || !killed.has(record.host)) {
      // Each job event with its host and clock (ms, last six digits, to line up with the campaign's own log), so
      // a false uncertain can be traced to its path.
      const judged = stream.flatMap((e) =>
        e.type === "job"
          ? [`${e.status}${e.reason ? `/${e.reason}` : ""}${e.host ? `@${e.host}` : ""} t${(e.atMs ?? 0) % 1_000_000}`]
          : [],
      );
      problems.push(
        `uncertain although its worker ${record?.host ?? "?"} was not killed (${judged.join(", ") || "no job event"}; ${record?.message ?? "no message"})`,
      );
    }
  }
  const expected = kind === "cancel" ? "cancelled" : "completed";
  if (status !== expected && status !== "uncertain" && problems.length === 0)
    problems.push(`ended ${status}, expected ${expected}`);
  return { id, kind, status, sent, problems };
}

function summarize(
  cases: FleetJobCase[],
  problems: string[],
  x: {
    afterDispatchKills: number;
    randomKills: number;
    restarts: number;
    latencies: number[];
    slowCancels: FleetCampaignResult["slowCancels"];
    durationMs: number;
    skipped: string | null;
    grokJobs: number;
  },
): FleetCampaignResult {
  const byStatus: Record<string, number> = {};
  for (const c of cases) byStatus[c.status] = (byStatus[c.status] ?? 0) + 1;
  const uncertain = cases.filter((c) => c.status === "uncertain");
  const inDoubt = uncertain.filter((c) => c.problems.length === 0);
  const lost = cases.filter((c) => c.problems.some((p) => p.startsWith("lost"))).length;
  const sentTwice = cases.filter((c) => c.sent > 1).length;
  const bad = cases.filter((c) => c.problems.length > 0);
  const misreported = bad.filter((c) => !c.problems.some((p) => p.startsWith("lost")) && c.sent <= 1).length;
  const all = [...problems, ...bad.map((c) => `${c.id} (${c.kind}): ${c.problems.join("; ")}`)];
  return {
    jobs: cases.length,
    byStatus,
    lost,
    sentTwice,
    uncertain: uncertain.length,
    uncertainInDoubt: inDoubt.length,
    uncertainReached: inDoubt.filter((c) => c.sent === 1).length,
    misreported,
    failures: bad.length + problems.length + (x.skipped ? 1 : 0),
    workerKills: { afterDispatch: x.afterDispatchKills, random: x.randomKills },
    redisRestarts: x.restarts,
    cancelLatencyMs: {
      n: x.latencies.length,
      p50: percentile(x.latencies, 50),
      p99: percentile(x.latencies, 99),
      max: Math.max(0, ...x.latencies),
    },
    slowCancels: x.slowCancels,
    grokJobs: x.grokJobs,
    durationMs: x.durationMs,
    skipped: x.skipped,
    problems: all,
  };
}
