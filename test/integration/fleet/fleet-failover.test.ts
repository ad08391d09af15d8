/*
 * The fleet across a Redis failover (issue 26 §1 §2): a primary, a replica and three redis-sentinel processes on
 * loopback (startSentinelSet), `seat worker` processes on the redis+sentinel:// URL, the fake agent's prompt log
 * as the count of what reached the model. Proven: a worker and a submitter follow a promotion without a restart;
 * a dispatch mark the replica did not acknowledge is never sent on (uncertain, replication-unconfirmed); a
 * Sentinel URL with no sentinel, or a master name the sentinels do not know, ends with its own code in seconds.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { connectFleet, type FleetClient } from "../../../src/fleet/index.js";
import { isSeatError } from "../../../src/errors.js";
import { startSentinelSet, type SentinelSetRig } from "../../../src/testing.js";
import { need, type TestLike } from "../../support/requirements.js";
import { jobEvents, redisMissing, startFleetRig, type FleetRig } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";

function sentinelMissing(): string | false {
  return (
    redisMissing() ||
    (spawnSync("redis-sentinel", ["--version"], { stdio: "ignore" }).status === 0
      ? false
      : "redis-sentinel (Debian package redis-sentinel, not on PATH)")
  );
}

async function withSentinelFleet(
  t: TestLike,
  downAfterMs: number,
  body: (set: SentinelSetRig, rig: FleetRig, client: FleetClient) => Promise<void>,
): Promise<void> {
  if (!need(t, sentinelMissing())) return;
  const set = await startSentinelSet({ downAfterMs });
  const rig = await startFleetRig().catch(async (error: unknown) => {
    await set.stop();
    throw error;
  });
  let client: FleetClient | undefined;
  try {
    client = await connectFleet(set.url);
    await body(set, rig, client);
  } finally {
    await client?.close();
    await rig.close();
    await set.stop();
  }
}

test("a worker and a submitter follow a Sentinel failover: after the primary is killed and the replica promoted, the next job completes on the same worker", async (t) => {
  await withSentinelFleet(t, 1_000, async (set, rig, client) => {
    const worker = await rig.startWorker("host-a", { redisUrl: set.url });
    assert.match(worker.stderr(), /durability rule: replicated .*WAIT 1/, worker.stderr());
    const before = await client.enqueue({ prompt: "before the failover" });
    assert.equal((await before.result()).status, "completed");
    const primary = await set.primary();
    await primary.kill();
    const promotedMs = await set.waitForPromotion(primary.port);
    const after = await client.enqueue({ prompt: "after the failover" });
    const result = await after.result();
    assert.equal(
      result.status,
      "completed",
      `after promotion (${promotedMs} ms): ${JSON.stringify(result)}\n${worker.stderr()}`,
    );
    assert.deepEqual(
      worker.prompts().filter((p) => p === `fleet-${after.id}`),
      [`fleet-${after.id}`],
      "sent exactly once",
    );
    assert.equal(worker.child.exitCode, null, "the worker was not restarted");
  });
});

test("a dispatch mark the replica does not acknowledge is not sent on: the job ends uncertain (replication-unconfirmed) and the agent never sees its prompt", async (t) => {
  // down-after far beyond the test: the sentinels still count the stopped replica as one they could promote.
  await withSentinelFleet(t, 60_000, async (set, rig, client) => {
    const worker = await rig.startWorker("host-a", { redisUrl: set.url, args: ["--replica-ack-timeout", "0.5"] });
    const warm = await client.enqueue({ prompt: "while the replica answers" });
    assert.equal((await warm.result()).status, "completed");
    const replica = set.servers.find((s) => s !== set.servers[0])!;
    set.pause(replica);
    try {
      // The submit itself is not confirmed either (the replica is stopped): it says so, and the job is queued.
      const submitted = await client.enqueue({ prompt: "never to be seen", jobId: "unacked-mark" }).then(
        () => "confirmed",
        (error: unknown) => (isSeatError(error) ? error.code : String(error)),
      );
      assert.equal(submitted, "FLEET_SUBMIT_UNCONFIRMED");
      const job = client.job("unacked-mark");
      const result = await job.result();
      assert.equal(result.status, "uncertain", JSON.stringify(result));
      assert.equal(result.code, "FLEET_REPLICATION_UNCONFIRMED");
      const events = await jobEvents(client, job.id);
      assert.ok(
        events.some((e) => e.status === "uncertain" && (e as { reason?: string }).reason === "replication-unconfirmed"),
        JSON.stringify(events),
      );
      assert.ok(
        events.some((e) => e.status === "dispatched"),
        "the mark was written (and not confirmed)",
      );
      assert.ok(!worker.prompts().includes(`fleet-${job.id}`), `the agent received ${worker.prompts().join(", ")}`);
      assert.match(worker.stderr(), /replication-unconfirmed/);
    } finally {
      set.resume(replica);
    }
    // The replica back: marks are confirmed again and jobs run.
    const next = await client.enqueue({ prompt: "after the replica came back" });
    assert.equal((await next.result()).status, "completed");
  });
});

test("a Sentinel URL with no sentinel listening, or a master name the sentinels do not know, ends with its own code in under 5 s and takes no job", async (t) => {
  if (!need(t, sentinelMissing())) return;
  const set = await startSentinelSet({ sentinels: 1, replicas: 0 });
  try {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: "/nonexistent-home",
      GROK_SEAT_HOME: "/nonexistent-home/.grok-seat",
    };
    const started = Date.now();
    // Port 9 (discard) on loopback: nothing listens there on a test machine.
    const none = await runSeat(["worker", "--redis", "redis+sentinel://127.0.0.1:9/seatmaster"], { env });
    const noneMs = Date.now() - started;
    assert.match(none.stderr + none.stdout, /FLEET_SENTINEL_UNREACHABLE/, none.stderr);
    assert.notEqual(none.code, 0);
    assert.ok(noneMs < 5_000, `took ${noneMs} ms`);
    const second = Date.now();
    const unknown = await runSeat(["worker", "--redis", set.url.replace(/\/seatmaster$/, "/nosuchmaster")], { env });
    const unknownMs = Date.now() - second;
    assert.match(unknown.stderr + unknown.stdout, /FLEET_SENTINEL_MASTER_UNKNOWN/, unknown.stderr);
    assert.notEqual(unknown.code, 0);
    assert.ok(unknownMs < 5_000, `took ${unknownMs} ms`);
    assert.doesNotMatch(none.stdout + unknown.stdout, /"type":"worker"/, "no worker started taking jobs");
  } finally {
    await set.stop();
  }
});
