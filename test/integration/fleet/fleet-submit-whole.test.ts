/*
 * R9's two failures (issue 26), each pinned on a real redis-server:
 * - a submit is whole or absent: its record, the job index and BullMQ's job are one MULTI, so a submit whose
 *   BullMQ write does not land (in R9 a failover between the writes; here, deterministically, an ACL that refuses
 *   BullMQ's keys) leaves no `waiting` record without a job behind it, and the same id then submits whole;
 * - a run's own end is not mistaken for its replay: a job a reader recorded `uncertain` (heartbeat-lost) while its
 *   worker was cut off by a failover gets the worker's own word (replication-unconfirmed: never sent) written over
 *   it, while a true replay of that end still changes nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Queue } from "bullmq";
import { connectFleet } from "../../../src/fleet/index.js";
import { bullConnection, connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { BULL_PREFIX, JOBS_INDEX, SHARED_QUEUE, jobKeys } from "../../../src/fleet/keys.js";
import { settleDerivedUncertain, transition } from "../../../src/fleet/state.js";
import { isSeatError } from "../../../src/errors.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig } from "../../support/fleet-rig.js";

test("a submit whose BullMQ write does not land leaves no waiting record without a job, and the same id then submits whole", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
  const queue = new Queue(SHARED_QUEUE, {
    connection: bullConnection(parseRedisUrl(rig.redis.url)),
    prefix: BULL_PREFIX,
  });
  try {
    // A login that may write the fleet's own keys but none of BullMQ's: the record can land, BullMQ's job cannot.
    assert.equal(await raw.call("ACL", "SETUSER", "half", "on", ">half-pw", "~grok-seat:*", "&*", "+@all"), "OK");
    const half = await connectFleet(rig.redis.url.replace("redis://", "redis://half:half-pw@"));
    const id = "r9-half-written";
    const request = { prompt: "submitted across a failover", jobId: id, cwd: rig.root };
    try {
      const refused = await half.enqueue(request).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(
        isSeatError(refused, "FLEET_REDIS_FORBIDDEN"),
        `the submit is refused, naming the refusal: ${String(refused)}`,
      );
    } finally {
      await half.close();
    }
    // Nothing of it is left: no record that would read `waiting` forever, no index entry, no BullMQ job.
    assert.deepEqual(await raw.hgetall(jobKeys(id).state), {}, "no record without its BullMQ job");
    assert.equal(await raw.zscore(JOBS_INDEX, id), null);
    assert.equal(await queue.getJob(id), undefined);
    // The same id, submitted again by a login that may write both, is taken whole (not "already exists").
    const client = await connectFleet(rig.redis.url);
    try {
      const handle = await client.enqueue(request);
      assert.equal((await handle.state()).status, "waiting");
      assert.equal(await queue.getJobState(id), "waiting", "BullMQ holds the job its record announces");
      // A second submit of the id by someone else is still refused, and leaves the first whole.
      const again = await client.enqueue(request).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isSeatError(again, "FLEET_JOB_INVALID"), String(again));
      assert.equal(await queue.getJobState(id), "waiting");
    } finally {
      await client.close();
    }
  } finally {
    await queue.close();
    raw.disconnect();
    await rig.close();
  }
});

test("a run's replication-unconfirmed end is written over a heartbeat-lost a reader recorded meanwhile; a replay of that end changes nothing", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
  try {
    const id = "r9-never-sent";
    const run = "run-1";
    const keys = jobKeys(id);
    assert.ok((await transition(raw, id, { from: [""], to: "waiting" })).moved);
    assert.ok((await transition(raw, id, { from: ["waiting"], to: "active", fields: { run } })).moved);
    assert.ok(
      (await transition(raw, id, { from: ["active"], to: "dispatched", run, fields: { prompt_id: `fleet-${id}` } }))
        .moved,
    );
    // The worker is cut off by a failover for longer than its heartbeat lives: a reader records heartbeat-lost.
    assert.equal(await settleDerivedUncertain(raw, id, "reader"), true);
    assert.equal(await raw.hget(keys.state, "uncertain_reason"), "heartbeat-lost");
    // The worker, back, records what it knows: its mark was never acknowledged, so the prompt was never sent.
    const end = () =>
      transition(raw, id, {
        from: ["dispatched", "uncertain"],
        to: "uncertain",
        run,
        fields: { code: "FLEET_REPLICATION_UNCONFIRMED", uncertain_reason: "replication-unconfirmed" },
        event: { reason: "replication-unconfirmed" },
      });
    assert.ok((await end()).moved);
    assert.equal(
      await raw.hget(keys.state, "uncertain_reason"),
      "replication-unconfirmed",
      "the run's own word stands, not the reader's guess",
    );
    assert.equal(await raw.hget(keys.state, "code"), "FLEET_REPLICATION_UNCONFIRMED");
    const events = async () =>
      (await raw.xrange(keys.events, "-", "+")).map(
        ([, f]) => JSON.parse(f[1]!) as { type: string; status?: string; reason?: string },
      );
    const before = await events();
    assert.equal(before.at(-1)?.reason, "replication-unconfirmed");
    // ioredis re-sends a command whose reply a dropped connection lost: that replay of the run's own end is a no-op.
    assert.ok((await end()).moved);
    assert.equal((await events()).length, before.length, "a replayed end appends nothing");
  } finally {
    raw.disconnect();
    await rig.close();
  }
});
