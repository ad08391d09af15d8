/*
 * The fleet's job transitions that the audit of issue 14 suspected from reading, each proven on a real
 * redis-server with `seat worker` processes: only the run that owns a job may end or hand it back, a take that
 * Redis refuses leaves the job to be run, a busy named session queues the next job behind its turn, a named
 * session is bound to a host only once it opened there (and not forever), `seat jobs show` records the
 * uncertain it reports, the job index is pruned, and `seat jobs cancel` says when no worker acknowledged.
 * Faults are injected in Redis itself (a record's run token rewritten, an ACL that refuses one job's keys).
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import { connectFleet, type CursorEvent, type FleetClient, type JobEvent } from "../../../src/fleet/index.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { BULL_PREFIX, JOBS_INDEX, SHARED_QUEUE, jobKeys, sessionHostKey } from "../../../src/fleet/keys.js";
import { need } from "../../support/requirements.js";
import {
  gatedStart,
  redisMissing,
  startFleetRig,
  until,
  waitForEvent,
  type FleetRig,
} from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";
import type { Redis } from "ioredis";

async function withFleet(
  t: TestContext,
  body: (rig: FleetRig, client: FleetClient, raw: Redis) => Promise<void>,
): Promise<void> {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const client = await connectFleet(rig.redis.url);
  const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
  try {
    await body(rig, client, raw);
  } finally {
    raw.disconnect();
    await client.close();
    await rig.close();
  }
}

async function streamJobEvents(raw: Redis, id: string): Promise<JobEvent[]> {
  const entries = await raw.xrange(jobKeys(id).events, "-", "+");
  return entries.map(([, f]) => JSON.parse(f[1]!) as { type: string }).filter((e): e is JobEvent => e.type === "job");
}

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });
const active = (e: CursorEvent["event"]) => e.type === "job" && e.status === "active";

/** A GROK_BIN that takes `ms` to fail: the session never opens. */
function failingAgent(root: string, ms: number): string {
  const path = join(root, `failing-agent-${ms}`);
  writeFileSync(path, `#!/bin/sh\nsleep ${ms / 1000}\necho "no agent here" >&2\nexit 3\n`);
  chmodSync(path, 0o755);
  return path;
}

test("a run that no longer owns its job cannot end it before dispatch, nor hand it back to the queue", async (t) => {
  await withFleet(t, async (rig, client, raw) => {
    // Failing before dispatch: the record names another run by the time the session's failure is recorded.
    const a = await rig.startWorker("host-a", { env: { GROK_BIN: failingAgent(rig.root, 1_500) } });
    const failing = await client.enqueue({ prompt: "fail me" });
    await waitForEvent(client, failing.id, active);
    await raw.hset(jobKeys(failing.id).state, "run", "another-run");
    // host-a gives up on the session after ~1.5 s and tries to record `failed`.
    await until(
      async () =>
        (await raw.hget(jobKeys(failing.id).state, "status")) !== "active" || /not recorded failed/.test(a.stderr())
          ? true
          : undefined,
      15_000,
      "host-a to try to record its end",
    );
    assert.equal(await raw.hget(jobKeys(failing.id).state, "status"), "active", "the other run's job was not failed");
    assert.ok(!(await streamJobEvents(raw, failing.id)).some((e) => e.status === "failed"));
    a.child.kill("SIGKILL");
    // Handing back on shutdown: the record names another run, so BullMQ's job is left where it is.
    // host-b's agent becomes ready only once host-b was told to stop: the job is surely active, not dispatched.
    const gated = gatedStart(rig.root);
    const b = await rig.startWorker("host-b", { scenario: gated.scenario, args: gated.args });
    const starting = await client.enqueue({ prompt: "hand me back" });
    await waitForEvent(client, starting.id, active);
    await raw.hset(jobKeys(starting.id).state, "run", "another-run");
    b.child.kill("SIGTERM");
    gated.open();
    assert.equal((await b.done).code, 0, b.stderr());
    const queue = new Queue(SHARED_QUEUE, { connection: parseRedisUrl(rig.redis.url).options, prefix: BULL_PREFIX });
    try {
      assert.notEqual(
        await (await queue.getJob(starting.id))!.getState(),
        "waiting",
        "not re-queued by a run that does not own it",
      );
    } finally {
      await queue.close();
    }
    assert.equal(await raw.hget(jobKeys(starting.id).state, "status"), "active");
    assert.deepEqual(b.prompts(), []);
  });
});

test("a take that Redis refuses leaves the job to be run (never failed in BullMQ, never stuck waiting): it completes once Redis accepts it", async (t) => {
  await withFleet(t, async (rig, client, raw) => {
    // The worker's user may touch every key but those of jobs named "refused-*" (until the ACL is widened).
    await raw.call(
      "ACL",
      "SETUSER",
      "worker",
      "on",
      ">worker-pass",
      "~{grok-seat}*",
      "~grok-seat:jobs",
      "~grok-seat:session:*",
      "~grok-seat:job:{ok*",
      "&*",
      "+@all",
    );
    const url = rig.redis.url.replace("redis://", "redis://worker:worker-pass@");
    const w = await rig.startWorker("host-a", { args: ["--redis", url] });
    const handle = await client.enqueue({ prompt: "take me", jobId: "refused-1" });
    const queue = new Queue(SHARED_QUEUE, { connection: parseRedisUrl(rig.redis.url).options, prefix: BULL_PREFIX });
    try {
      await until(
        async () => ((await (await queue.getJob("refused-1"))?.getState()) !== "waiting" ? true : undefined),
        10_000,
        "the worker to take the job",
      );
      await new Promise((r) => setTimeout(r, 1_000));
      assert.notEqual(
        await (await queue.getJob("refused-1"))?.getState(),
        "failed",
        `BullMQ did not fail the job: ${w.stderr()}`,
      );
      assert.equal(await raw.hget(jobKeys("refused-1").state, "status"), "waiting");
    } finally {
      await queue.close();
    }
    await raw.call("ACL", "SETUSER", "worker", "allkeys");
    const ctrl = new AbortController();
    const timer = setTimeout(() => ctrl.abort(), 45_000);
    const result = await handle.result({ signal: ctrl.signal });
    clearTimeout(timer);
    assert.equal(result.status, "completed", w.stderr());
    assert.deepEqual(w.prompts(), ["fleet-refused-1"]);
  });
});

test("a second job for a named session whose turn is running queues behind that turn instead of failing, then runs; the name's host binding expires", async (t) => {
  await withFleet(t, async (rig, client, raw) => {
    const w = await rig.startWorker("host-a", { args: ["--concurrency", "2"] });
    const first = await client.enqueue({
      prompt: "scenario:hang-on-prompt hold the session",
      session: "shared",
      cwd: w.home,
    });
    await waitForEvent(client, first.id, (e) => e.type === "job" && e.status === "dispatched");
    const ttl = await raw.ttl(sessionHostKey(w.home, "shared"));
    assert.ok(ttl > 86_400 && ttl <= 30 * 86_400, `the binding lives 30 days after its last use (ttl ${ttl})`);
    const second = await client.enqueue({ prompt: "after you", session: "shared", cwd: w.home });
    await waitForEvent(
      client,
      second.id,
      (e) => e.type === "job" && e.status === "waiting" && e.reason === "session-busy",
    );
    await first.cancel();
    assert.equal((await first.result()).status, "cancelled");
    const result = await second.result();
    assert.equal(result.status, "completed");
    assert.ok(!(await streamJobEvents(raw, second.id)).some((e) => e.status === "failed"));
    assert.deepEqual(w.prompts(), [`fleet-${first.id}`, `fleet-${second.id}`]);
  });
});

test("a named session whose first open fails is not bound to that host: the name's next job runs on another host", async (t) => {
  await withFleet(t, async (rig, client, raw) => {
    const a = await rig.startWorker("host-a", { env: { GROK_BIN: failingAgent(rig.root, 200) } });
    const failed = await client.enqueue({ prompt: "open me", session: "fresh", cwd: "/tmp" });
    assert.equal((await failed.result()).status, "failed");
    assert.equal(await raw.exists(sessionHostKey("/tmp", "fresh")), 0, "no host owns the name");
    a.child.kill("SIGKILL");
    const b = await rig.startWorker("host-b");
    const next = await client.enqueue({ prompt: "open me again", session: "fresh", cwd: "/tmp" });
    assert.equal((await next.result()).status, "completed");
    assert.equal(await raw.get(sessionHostKey("/tmp", "fresh")), "host-b");
    assert.deepEqual(b.prompts(), [`fleet-${next.id}`]);
  });
});

test("seat jobs show records the uncertain it reports; the job index drops expired jobs; seat jobs cancel says when no worker acknowledged", async (t) => {
  await withFleet(t, async (rig, client, raw) => {
    // A job dispatched by a worker that is gone (no heartbeat).
    await raw.hset(jobKeys("orphan").state, {
      status: "dispatched",
      run: "r1",
      prompt: "x",
      dispatched_at: Date.now(),
      prompt_id: "fleet-orphan",
    });
    await raw.zadd(JOBS_INDEX, Date.now(), "orphan");
    const show = await runSeat(["jobs", "show", "orphan", "--redis", rig.redis.url], { env: env() });
    assert.equal(show.code, 76, show.stderr);
    assert.equal(await raw.hget(jobKeys("orphan").state, "status"), "uncertain", "recorded, not only reported");
    // A job dispatched by a run that beats but whose worker never answers a cancel.
    await raw.hset(jobKeys("deaf").state, { status: "dispatched", run: "r2", prompt: "x" });
    await raw.set(jobKeys("deaf").alive, "r2", "PX", 30_000);
    const cancel = await runSeat(["jobs", "cancel", "deaf", "--ack-timeout", "1", "--redis", rig.redis.url], {
      env: env(),
    });
    assert.equal(cancel.code, 1, cancel.stdout + cancel.stderr);
    assert.match(cancel.stdout, /no worker acknowledged it within 1 s/);
    // Index entries of jobs long expired are pruned by the next submit.
    const old = Date.now() - 3 * 86_400_000;
    await raw.zadd(JOBS_INDEX, old, "expired-1", old + 1, "expired-2");
    await client.enqueue({ prompt: "prune" });
    assert.deepEqual(
      [await raw.zscore(JOBS_INDEX, "expired-1"), await raw.zscore(JOBS_INDEX, "expired-2")],
      [null, null],
    );
    assert.notEqual(await raw.zscore(JOBS_INDEX, "orphan"), null, "a job whose record lives is kept");
  });
});
