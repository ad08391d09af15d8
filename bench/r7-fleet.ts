/*
 * R7 fleet scenarios (issue 14's audit, repeated): a stale worker resumed after another worker took and
 *   dispatched its job, a cancel published while the worker's subscriber is disconnected, Redis restarted
 *   without its AOF in the middle of a turn — on a real redis-server with `seat worker` processes running the
 *   fake agent.
 * Owns: runR7Fleet() and its counts: doubleSends (a promptId received twice by the agents), lostCancels (a
 *   cancelled turn that did not end cancelled), falseUncertain (a job reported uncertain whose turn in fact ran
 *   on or finished), plus heartbeatGaps and notFound. Wiring it into `npm run torture` is torture.ts's.
 * Does not own: the fleet (src/fleet), the rig (test/support/fleet-rig.ts) or R6 (bench/fleet.ts, whose
 *   retry/waitDispatched it reuses).
 * Method: sends are counted at the fake agent's prompt log (by promptId), never from the fleet's records.
 */
import { connectFleet, type FleetClient, type JobHandle, type JobResult } from "../src/fleet/index.js";
import { connect, parseRedisUrl } from "../src/redis/connection.js";
import { CANCEL_CHANNEL, jobKeys } from "../src/fleet/keys.js";
import { isSeatError, messageOf } from "../src/errors.js";
import {
  FAST_STALL,
  slowStart,
  startFleetRig,
  until,
  type FleetRig,
  type WorkerProc,
} from "../test/support/fleet-rig.js";
import { retry, waitDispatched } from "./fleet.js";

/** What R7's fleet part found. */
export interface R7FleetResult {
  /** Scenario runs attempted. */
  tried: number;
  /** Outcomes that must never happen (goal 0 each): doubleSends, lostCancels, falseUncertain, heartbeatGaps, notFound,
   *  and scenarioErrors (a run that could not be carried out: it proves nothing, so it counts against the goal). */
  counts: Record<string, number>;
  /** Runs per scenario. */
  runs: Record<string, number>;
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A job's result, or undefined when it did not end within `ms`. */
async function resultWithin(handle: JobHandle, ms: number): Promise<JobResult | undefined> {
  const ctrl = new AbortController();
  const timer = setTimeout(() => ctrl.abort(), ms);
  try {
    const r = await handle.result({ signal: ctrl.signal });
    return ctrl.signal.aborted ? undefined : r;
  } finally {
    clearTimeout(timer);
  }
}

/** Times the agents of `workers` received job `id`'s prompt. */
const sends = (workers: WorkerProc[], id: string) =>
  workers.flatMap((w) => w.prompts()).filter((p) => p === `fleet-${id}`).length;

/** Runs the three scenarios (1 each when quick, 5 each otherwise); every process and temp dir is gone when it resolves. */
export async function runR7Fleet(opts: { quick: boolean }): Promise<R7FleetResult> {
  const n = opts.quick ? 1 : 5;
  const counts: Record<string, number> = {
    doubleSends: 0,
    lostCancels: 0,
    falseUncertain: 0,
    heartbeatGaps: 0,
    notFound: 0,
    scenarioErrors: 0,
  };
  const runs: Record<string, number> = { staleWorker: 0, droppedSubscriber: 0, volatileRestart: 0 };
  const problems: string[] = [];
  const scenario = async (
    name: string,
    redisOptions: Parameters<typeof startFleetRig>[0],
    body: (rig: FleetRig, client: FleetClient, i: number) => Promise<void>,
  ) => {
    const rig = await startFleetRig(redisOptions);
    const client = await connectFleet(rig.redis.url);
    try {
      for (let i = 0; i < n; i++) {
        runs[name]!++;
        try {
          await body(rig, client, i);
        } catch (error) {
          counts.scenarioErrors!++;
          problems.push(`${name} #${i + 1}: ${isSeatError(error) ? `${error.code}: ` : ""}${messageOf(error)}`);
        }
      }
    } finally {
      await client.close();
      await rig.close();
    }
  };

  await scenario("staleWorker", {}, async (rig, client, i) => {
    const slow = slowStart(rig.root, 1_500);
    const a = await rig.startWorker(`stale-a${i}`, { scenario: slow.scenario, args: [...slow.args, ...FAST_STALL] });
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt stale worker" });
    for await (const { event } of handle.events()) if (event.type === "job" && event.status === "active") break;
    a.child.kill("SIGSTOP");
    const b = await rig.startWorker(`stale-b${i}`, { args: FAST_STALL });
    try {
      if ((await waitDispatched(client, handle.id)) === undefined)
        throw new Error("the job ended before host B dispatched it");
      const raw = connect(parseRedisUrl(rig.redis.url), { name: "r7-probe" });
      let probing = true;
      let missing = 0;
      const probe = (async () => {
        while (probing) {
          if ((await raw.exists(jobKeys(handle.id).alive).catch(() => 1)) === 0) missing++;
          await sleep(20);
        }
      })();
      a.child.kill("SIGCONT");
      await until(
        () => (/not dispatched/.test(a.stderr()) ? true : undefined),
        20_000,
        "the stale worker to give up",
      ).catch(() => undefined);
      await sleep(3_000);
      probing = false;
      await probe;
      raw.disconnect();
      if (missing > 0) counts.heartbeatGaps!++;
      const state = await handle.state();
      if (state.status === "uncertain") {
        counts.falseUncertain!++;
        problems.push(`staleWorker #${i + 1}: reported uncertain while host B runs the turn`);
      }
      await retry(() => handle.cancel());
      const ended = await resultWithin(handle, 12_000);
      if (ended?.status !== "cancelled") {
        counts.lostCancels!++;
        problems.push(`staleWorker #${i + 1}: cancel did not end the turn (${ended?.status ?? "still running"})`);
      }
      if (sends([a, b], handle.id) > 1) counts.doubleSends!++;
    } finally {
      for (const w of [a, b]) w.child.kill("SIGKILL");
    }
  });

  await scenario("droppedSubscriber", {}, async (rig, client, i) => {
    const w =
      rig.workers.find((x) => x.child.exitCode === null && x.child.signalCode === null) ??
      (await rig.startWorker("sub-a"));
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt lost cancel" });
    if ((await waitDispatched(client, handle.id)) === undefined) throw new Error("the job ended before dispatch");
    const raw = connect(parseRedisUrl(rig.redis.url), { name: "r7-probe" });
    try {
      const replies = await raw
        .multi()
        .client("KILL", "TYPE", "pubsub")
        .set(jobKeys(handle.id).cancel, String(Date.now()), "EX", 3_600)
        .publish(CANCEL_CHANNEL, handle.id)
        .exec();
      if (Number(replies?.[2]?.[1]) !== 0)
        problems.push(
          `droppedSubscriber #${i + 1}: the cancel message still reached a subscriber (the scenario did not drop it)`,
        );
    } finally {
      raw.disconnect();
    }
    const ended = await resultWithin(handle, 12_000);
    if (ended?.status !== "cancelled") {
      counts.lostCancels!++;
      problems.push(`droppedSubscriber #${i + 1}: the cancel was lost (${ended?.status ?? "still running"})`);
      await retry(() => handle.cancel());
    }
    if (sends([w], handle.id) > 1) counts.doubleSends!++;
  });

  await scenario("volatileRestart", { appendOnly: false }, async (rig, client, i) => {
    const w =
      rig.workers.find((x) => x.child.exitCode === null && x.child.signalCode === null) ??
      (await rig.startWorker("volatile-a", { args: ["--allow-volatile-redis"] }));
    const handle = await client.enqueue({ prompt: `scenario:slow-stream volatile ${i}` });
    let restarted = false;
    let result: JobResult | undefined;
    try {
      let text = "";
      for await (const { event } of handle.events()) {
        if (event.type === "text") text += event.text;
        if (event.type === "text" && !restarted) {
          restarted = true;
          await rig.redis.restart(); // kill -9 without AOF: every key is gone
        }
      }
      result = await handle.result();
      if (result.status === "uncertain") {
        counts.falseUncertain!++;
        problems.push(
          `volatileRestart #${i + 1}: uncertain although the turn finished (${text.length} characters seen)`,
        );
      } else if (result.status !== "completed") problems.push(`volatileRestart #${i + 1}: ended ${result.status}`);
    } catch (error) {
      if (isSeatError(error) && error.code === "FLEET_JOB_NOT_FOUND") counts.notFound!++;
      throw error;
    }
    if (sends([w], handle.id) > 1) counts.doubleSends!++;
  });

  const tried = runs.staleWorker! + runs.droppedSubscriber! + runs.volatileRestart!;
  return { tried, counts, runs, problems };
}
