/*
 * The fleet's heartbeat and cancel under the faults the audit of issue 14 found, on a real redis-server with
 * `seat worker` processes running the fake agent: a stale worker resumed after another took its job, a cancel
 * published while the worker's subscriber is disconnected, Redis down while the agent starts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { JobEvent } from "../../../src/fleet/index.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { CANCEL_CHANNEL, jobKeys } from "../../../src/fleet/keys.js";
import { transition } from "../../../src/fleet/state.js";
import { FAST_STALL, jobEvents, gatedStart, until, waitForEvent, withFleet } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });

test("a worker stopped before dispatch and resumed after another worker took and dispatched its job leaves that run's heartbeat alone: no false uncertain, and cancel still reaches the turn", async (t) => {
  await withFleet(t, async (rig, client) => {
    // host-a's agent becomes ready only when the gate opens (after host-a is resumed): host-a is surely stopped
    // with its job active and not dispatched, however loaded the machine.
    const gated = gatedStart(rig.root);
    const a = await rig.startWorker("host-a", { scenario: gated.scenario, args: [...gated.args, ...FAST_STALL] });
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt stale worker" });
    await waitForEvent(client, handle.id, (e) => e.type === "job" && e.status === "active");
    a.child.kill("SIGSTOP");
    const b = await rig.startWorker("host-b", { args: FAST_STALL });
    const dispatched = await waitForEvent(client, handle.id, (e) => e.type === "job" && e.status === "dispatched");
    assert.equal((dispatched.event as JobEvent).host, "host-b");
    // Watch the heartbeat key the whole time host-a comes back to life and gives up its stale run.
    const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
    let missing = 0;
    let probing = true;
    const probe = (async () => {
      while (probing) {
        if ((await raw.exists(jobKeys(handle.id).alive)) === 0) missing++;
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const follower = handle.result();
    a.child.kill("SIGCONT");
    gated.open();
    await until(
      () => (/not dispatched/.test(a.stderr()) ? true : undefined),
      15_000,
      "host-a to give up its stale run",
    );
    await new Promise((r) => setTimeout(r, 3_000)); // host-a's cleanup, and more than one heartbeat period of host-b
    probing = false;
    await probe;
    raw.disconnect();
    assert.equal(missing, 0, "host-b's heartbeat was never missing");
    assert.equal((await handle.state()).status, "dispatched", "not reported uncertain while host-b runs the turn");
    const cancel = await runSeat(["jobs", "cancel", handle.id, "--redis", rig.redis.url], { env: env() });
    assert.equal(cancel.code, 0, cancel.stdout + cancel.stderr);
    assert.match(cancel.stdout, /cancel acknowledged by worker host-b\//);
    const result = await follower;
    assert.equal(result.status, "cancelled");
    assert.deepEqual(a.prompts(), [], "the stale worker sent nothing");
    assert.deepEqual(b.prompts(), [`fleet-${handle.id}`]);
    assert.ok(!(await jobEvents(client, handle.id)).some((e) => e.status === "uncertain" || e.status === "failed"));
  });
});

test("a cancel published while the worker's subscriber is disconnected still cancels the turn: the worker re-reads the cancel key on its heartbeat", async (t) => {
  await withFleet(t, async (rig, client) => {
    const w = await rig.startWorker("host-a");
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt lost cancel" });
    await waitForEvent(client, handle.id, (e) => e.type === "job" && e.status === "dispatched");
    const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
    try {
      // The worker's subscriber is there to be dropped (if it were away already the test would prove less).
      const listed = await until(
        async () => {
          const list = String(await raw.call("CLIENT", "LIST", "TYPE", "pubsub"));
          return /name=grok-seat-cancel /.test(list) ? list : undefined;
        },
        10_000,
        "the worker's cancel subscriber to be connected",
      );
      // One atomic step: drop every subscriber, then request the cancel and publish it — to nobody.
      const replies = await raw
        .multi()
        .client("KILL", "TYPE", "pubsub")
        .set(jobKeys(handle.id).cancel, String(Date.now()), "EX", 3_600)
        .publish(CANCEL_CHANNEL, handle.id)
        .exec();
      assert.ok(
        Number(replies?.[0]?.[1]) >= 1,
        `a subscriber was dropped (replies ${JSON.stringify(replies)}; listed just before: ${listed.trim()}; worker: ${w.stderr()})`,
      );
      assert.equal(replies?.[2]?.[1], 0, "the cancel message reached no subscriber");
    } finally {
      raw.disconnect();
    }
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 12_000);
    const result = await handle.result({ signal: ctrl.signal });
    clearTimeout(timer);
    assert.equal(result.status, "cancelled", "the turn was cancelled although the message was lost");
    const record = await handle.state();
    assert.match(record.cancelAckedBy ?? "", /^host-a\//, "the worker acknowledged the cancel");
    assert.deepEqual(w.prompts(), [`fleet-${handle.id}`]);
  });
});

test("Redis down while the agent starts: the job is handed back, runs once Redis is back and completes — never failed", async (t) => {
  await withFleet(t, async (rig, client) => {
    // The agent's session becomes ready only when the test opens its gate: Redis is surely down when the worker
    // goes on to write its dispatch mark (a timed start raced the restart on a loaded machine).
    const gated = gatedStart(rig.root);
    const w = await rig.startWorker("host-a", { scenario: gated.scenario, args: gated.args });
    const handle = await client.enqueue({ prompt: "outage before dispatch" });
    await waitForEvent(client, handle.id, (e) => e.type === "job" && e.status === "active");
    // The worker starts its agent only once its take has landed: Redis goes down while the agent starts,
    // not while the take's reply is on its way (that hand-back is `redis-error-at-take`, a case of its own).
    await until(() => (w.agentRunning() ? true : undefined), 20_000, "the worker's agent to start");
    await rig.redis.kill();
    gated.open();
    // A command queued while Redis is down fails after three reconnect attempts (at most ~1 s apart): 8 s is
    // twice that, so the worker has met the outage before Redis comes back.
    await new Promise((r) => setTimeout(r, 8_000));
    await rig.redis.restart();
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 40_000);
    const result = await handle.result({ signal: ctrl.signal });
    clearTimeout(timer);
    assert.equal(result.status, "completed", w.stderr());
    const statuses = (await jobEvents(client, handle.id)).map((e) => [e.status, e.reason]);
    assert.ok(!statuses.some(([s]) => s === "failed" || s === "uncertain"), JSON.stringify(statuses));
    assert.ok(
      statuses.some(([s, r]) => s === "waiting" && r === "redis-error-before-dispatch"),
      JSON.stringify(statuses),
    );
    assert.deepEqual(w.prompts(), [`fleet-${handle.id}`], "sent once");
  });
});

test("a job recorded uncertain while its run still beats is re-judged: watchers keep following it, it is recorded dispatched again, and cancel still reaches it", async (t) => {
  await withFleet(t, async (rig, client) => {
    const w = await rig.startWorker("host-a");
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt judged too early" });
    await waitForEvent(client, handle.id, (e) => e.type === "job" && e.status === "dispatched");
    const follower = handle.result();
    // What a watcher records when it finds no heartbeat for a moment (here: recorded while the run beats on).
    const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
    try {
      const judged = await transition(raw, handle.id, {
        from: ["dispatched"],
        to: "uncertain",
        fields: { code: "FLEET_JOB_UNCERTAIN", message: "judged too early", uncertain_reason: "heartbeat-lost" },
        event: { code: "FLEET_JOB_UNCERTAIN", reason: "heartbeat-lost" },
      });
      assert.equal(judged.moved, true);
    } finally {
      raw.disconnect();
    }
    assert.equal((await handle.state()).status, "dispatched", "a reader sees the run still beating");
    await waitForEvent(
      client,
      handle.id,
      (e) => e.type === "job" && e.status === "dispatched" && e.reason === "rejudged",
    );
    const cancel = await runSeat(["jobs", "cancel", handle.id, "--redis", rig.redis.url], { env: env() });
    assert.equal(cancel.code, 0, cancel.stdout + cancel.stderr);
    assert.match(cancel.stdout, /cancel acknowledged/);
    const result = await follower;
    assert.equal(result.status, "cancelled", "the watcher followed past the early uncertain to the real end");
    assert.deepEqual(w.prompts(), [`fleet-${handle.id}`]);
  });
});
