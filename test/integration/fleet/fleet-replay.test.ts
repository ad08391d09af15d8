/*
 * A compare-and-set replayed by the Redis client: when a connection drops after Redis ran a command but before
 * its reply arrived, ioredis sends the command again once it has reconnected. A run's own transition replayed
 * must count as done — a dispatch mark read as "someone else dispatched it" left a job never sent, its heartbeat
 * stopped, and a watcher then recorded it uncertain (seen in the R6 campaign under load). Real redis-server, a
 * `seat worker` with the fake agent, and a loopback proxy that drops the one reply.
 */
import { test } from "node:test";
import { targetDigest } from "../../../src/approvals/target.js";
import assert from "node:assert/strict";
import { connectFleet } from "../../../src/fleet/index.js";
import { budgetKey, parseFleetBudget, reserveBudget, settleBudget } from "../../../src/fleet/budget.js";
import { answerFleetApproval, publishApproval } from "../../../src/fleet/approvals.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { jobKeys } from "../../../src/fleet/keys.js";
import { isSeatError } from "../../../src/errors.js";
import { jobEvents, withFleet } from "../../support/fleet-rig.js";
import { dropOneReply } from "../../support/drop-reply-proxy.js";

test("a dispatch mark whose reply was lost is re-sent by the client and recognised as the run's own: the prompt is sent once and the job completes, never uncertain", async (t) => {
  await withFleet(t, async (rig, client) => {
    // The dispatch mark is the one transition that writes prompt_id.
    const proxy = await dropOneReply(rig.redis.port, (data) => data.includes('"prompt_id":"fleet-'));
    try {
      const w = await rig.startWorker("host-a", { redisUrl: proxy.url });
      const handle = await client.enqueue({ prompt: "a dispatch whose reply is lost" });
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), 30_000);
      const result = await handle.result({ signal: ctrl.signal });
      clearTimeout(timer);
      assert.equal(proxy.tripped(), 1, "the dispatch mark's reply was dropped");
      assert.equal(result.status, "completed", w.stderr());
      assert.deepEqual(w.prompts(), [`fleet-${handle.id}`], "sent once");
      const statuses = (await jobEvents(client, handle.id)).map((e) => e.status);
      assert.ok(!statuses.includes("uncertain") && !statuses.includes("failed"), JSON.stringify(statuses));
    } finally {
      await proxy.close();
    }
  });
});

test("a job creation whose reply was lost is re-sent by the client and recognised as this call's own: enqueue answers the job, which runs once", async (t) => {
  await withFleet(t, async (rig, client) => {
    const proxy = await dropOneReply(rig.redis.port, (data) => data.includes("submitted_at"));
    const viaProxy = await connectFleet(proxy.url);
    try {
      const handle = await viaProxy.enqueue({ prompt: "a creation whose reply is lost" });
      assert.equal(proxy.tripped(), 1, "the creation's reply was dropped");
      const w = await rig.startWorker("host-a");
      const result = await client.job(handle.id).result();
      assert.equal(result.status, "completed", w.stderr());
      assert.deepEqual(w.prompts(), [`fleet-${handle.id}`]);
    } finally {
      await viaProxy.close();
      await proxy.close();
    }
  });
});

test("a budget reservation and its settle whose replies were lost count once each", async (t) => {
  await withFleet(t, async (rig) => {
    const budget = parseFleetBudget("100tokens/day");
    const now = Date.now();
    const key = budgetKey("jobs", budget, now);
    const direct = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
    // The reservation is the script that checks `spent + amount`; the settle is the other INCRBYFLOAT.
    const reserveProxy = await dropOneReply(rig.redis.port, (data) => data.includes("spent + amount"));
    const settleProxy = await dropOneReply(
      rig.redis.port,
      (data) => /incrbyfloat/i.test(data) && !data.includes("spent + amount"),
    );
    const a = connect(parseRedisUrl(reserveProxy.url), { name: "reserver" });
    const b = connect(parseRedisUrl(settleProxy.url), { name: "settler" });
    try {
      const reserved = await reserveBudget(a, "jobs", budget, 30, now);
      assert.equal(reserveProxy.tripped(), 1, "the reservation's reply was dropped");
      assert.ok(reserved.ok);
      assert.equal(await direct.get(key), "30", "reserved once");
      await settleBudget(b, reserved.reservation, 12);
      assert.equal(settleProxy.tripped(), 1, "the settle's reply was dropped");
      assert.equal(await direct.get(key), "12", "settled once to what was used");
    } finally {
      for (const c of [a, b, direct]) c.disconnect();
      await reserveProxy.close();
      await settleProxy.close();
    }
  });
});

test("an approval answer whose reply was lost is re-sent by the client and answered, not refused as answered before", async (t) => {
  await withFleet(t, async (rig) => {
    const direct = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
    const proxy = await dropOneReply(rig.redis.port, (data) => data.includes("answered-before"));
    const answerer = connect(parseRedisUrl(proxy.url), { name: "answerer" });
    try {
      // A job whose run is dispatched and beating, holding one approval (as its worker writes them).
      const jobId = "replayed-answer";
      const run = "run-1";
      await direct.hset(jobKeys(jobId).state, { status: "dispatched", run });
      await direct.set(jobKeys(jobId).alive, run, "PX", 60_000);
      const now = Date.now();
      const view = {
        id: "ap_0123456789abcdef",
        category: "execute" as const,
        title: "touch x",
        target: { command: "touch x" },
        digest: targetDigest({ command: "touch x" }),
        owner: { kind: "job" as const, id: jobId },
        askedAt: new Date(now).toISOString(),
        deadline: new Date(now + 120_000).toISOString(),
      };
      assert.equal(await publishApproval(direct, jobId, run, view, 600), true);
      assert.deepEqual(await answerFleetApproval(answerer, view.id, { decision: "allow", by: "tester" }), {
        id: view.id,
        decision: "allow",
      });
      assert.equal(proxy.tripped(), 1, "the answer's reply was dropped");
      // A second, different answer still finds the first one standing.
      await assert.rejects(answerFleetApproval(direct, view.id, { decision: "deny", by: "other" }), (e: unknown) =>
        isSeatError(e, "APPROVAL_ALREADY_ANSWERED"),
      );
    } finally {
      answerer.disconnect();
      direct.disconnect();
      await proxy.close();
    }
  });
});

test("a streamed text event whose append reply was lost is written once: the job's text is exactly the agent's", async (t) => {
  await withFleet(t, async (rig, client) => {
    const prompt = "a chunk whose append reply is lost";
    const control = await rig.startWorker("host-control");
    const first = await client.enqueue({ prompt });
    const expected = await client.job(first.id).result();
    assert.equal(expected.status, "completed", control.stderr());
    assert.ok(expected.text.length > 0, "the fake agent streams text");
    control.child.kill("SIGKILL");
    await control.done;
    const proxy = await dropOneReply(rig.redis.port, (data) => data.includes('"type":"text"'));
    try {
      const w = await rig.startWorker("host-a", { redisUrl: proxy.url });
      const handle = await client.enqueue({ prompt });
      const result = await handle.result();
      assert.equal(proxy.tripped(), 1, "a text event's append reply was dropped");
      assert.equal(result.status, "completed", w.stderr());
      assert.equal(result.text, expected.text, "no chunk twice");
    } finally {
      await proxy.close();
    }
  });
});
