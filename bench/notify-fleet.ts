/*
 * P14, fleet case: from a job's state change in a `seat worker` to a loopback webhook receiver holding the signed,
 *   schema-valid notification, on a real redis-server.
 * Owns: benchFleetNotify(). Does not own: the receiver (test/support/notify-receiver.ts, which verifies signature
 *   and schema), the worker's notifier (src/fleet/notify.ts), P14's section (bench/notify.ts notifySection).
 * Method: one real `seat worker` process (the fleet rig; its agent fake-grok, a real ACP process) whose user config
 *   has one webhook target per job (h0…hN, all to the same receiver), so no two events share a target and the
 *   worker's coalescing window (one message per target per 10 s) holds nothing: the figure is the fleet's path —
 *   the end recorded in Redis (its compare-and-set), the claim (`SET NX PX`), the delivery. Jobs run one after
 *   another; each job's `done` has the fleet-wide id jobEventId(job, "done", "end"). The sample starts at the job
 *   record's `ended_at` (Date.now() in the worker just before the transition's EVAL) and ends at the receiver's
 *   `at` (Date.now() when it has read the whole body, in the bench process): two processes, one machine clock,
 *   1 ms resolution. One uncounted warm-up job (the worker's first notifier for a target loads Node's HTTP client).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectFleet } from "../src/fleet/index.js";
import { jobEventId } from "../src/fleet/notify.js";
import { redisMissing, startFleetRig } from "../test/support/fleet-rig.js";
import { startNotifyReceiver } from "../test/support/notify-receiver.js";
import { percentile } from "./report.js";

const SECRET = "p14-fleet-bench-secret-0123456789";

/** P14's fleet case. */
export interface FleetNotifyResult {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  samples: number[];
  /** Requests the receiver refused (signature or schema), and `done`s that never arrived: both must be 0. */
  refused: number;
  missing: number;
  skipped?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `events` jobs (plus one warm-up) through one worker and measures each `done` from its end to the receiver. */
export async function benchFleetNotify({ events = 100 }: { events?: number } = {}): Promise<FleetNotifyResult> {
  const none = { n: 0, p50: 0, p90: 0, p99: 0, max: 0, samples: [], refused: 0, missing: 0 };
  const missingRedis = redisMissing();
  if (missingRedis) return { ...none, skipped: missingRedis };
  const receiver = await startNotifyReceiver(SECRET);
  const rig = await startFleetRig();
  try {
    const config = join(rig.root, "xdg");
    mkdirSync(join(config, "grok-seat"), { recursive: true });
    const targets: Record<string, unknown> = {};
    for (let i = 0; i <= events; i += 1)
      targets[`h${i}`] = { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET, events: ["done"] };
    writeFileSync(join(config, "grok-seat", "config.json"), JSON.stringify({ notify: { targets } }));
    await rig.startWorker("p14", { env: { XDG_CONFIG_HOME: config } });
    const client = await connectFleet(rig.redis.url);
    const samples: number[] = [];
    let missing = 0;
    try {
      for (let i = 0; i <= events; i += 1) {
        const job = await client.enqueue({ prompt: `p14 fleet ${i}`, notify: [`h${i}`] });
        const result = await job.result();
        if (result.status !== "completed") throw new Error(`P14 fleet job ${i}: ${JSON.stringify(result)}`);
        const endedAt = (await job.state()).endedAt;
        const id = jobEventId(job.id, "done", "end");
        let at: number | undefined;
        for (let k = 0; k < 2_000 && at === undefined; k += 1) {
          at = receiver.requests.find((q) => q.refused === undefined && q.body.includes(`"id":"${id}"`))?.at;
          if (at === undefined) await sleep(5);
        }
        if (i === 0) continue;
        if (at === undefined || endedAt === undefined) missing += 1;
        else samples.push(at - endedAt);
      }
    } finally {
      await client.close();
    }
    return {
      n: samples.length,
      p50: percentile(samples, 50),
      p90: percentile(samples, 90),
      p99: percentile(samples, 99),
      max: Math.max(0, ...samples),
      samples,
      refused: receiver.requests.filter((q) => q.refused !== undefined).length,
      missing,
    };
  } finally {
    await rig.close();
    await receiver.close();
  }
}
