/*
 * The fleet's ACL roles on a real redis-server (issue 26 §4): the users `seat fleet acl` prints are applied as
 * printed, and each role does its job and nothing more — a worker runs a job that holds an approval, a watcher
 * lists it but can neither answer it, submit nor cancel, a submitter answers it but a worker on its login takes
 * nothing, and a worker can neither publish (a cancel announcement) nor submit through the job index. A wrong password and an unknown user are
 * FLEET_REDIS_AUTH_FAILED in under 5 s.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { Queue, Worker } from "bullmq";
import {
  answerFleetApproval,
  connectFleet,
  connectRedis,
  listFleetApprovals,
  openFleetQueues,
  parseRedisUrl,
} from "../../../src/fleet/index.js";
import { BULL_PREFIX, SHARED_QUEUE } from "../../../src/fleet/keys.js";
import { parsePolicyFlags } from "../../../src/permissions/index.js";
import { isSeatError, type ErrorCode } from "../../../src/errors.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";
import { fatalCause } from "../../../src/redis/redis-failure.js";

const PATH = process.env.PATH ?? "/usr/bin:/bin";
/** Refused by the role: our code, or (from a call that does not wrap Redis errors) Redis's own refusal. */
const forbidden = (e: unknown) => isSeatError(e, "FLEET_REDIS_FORBIDDEN") || fatalCause(e) === "forbidden";

test("each ACL role printed by seat fleet acl does its job and nothing more; a wrong login is FLEET_REDIS_AUTH_FAILED in under 5 s", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const raw = new Redis(rig.redis.port, "127.0.0.1");
  const passwords = { worker: "w-canary-7d1f", submitter: "s-canary-93ab", watcher: "r-canary-55c2" } as const;
  const closers: (() => unknown)[] = [];
  try {
    for (const role of ["worker", "submitter", "watcher"] as const) {
      const printed = await runSeat(["fleet", "acl", "--role", role], {
        env: { PATH, GROK_SEAT_REDIS_PASSWORD: passwords[role] },
      });
      assert.equal(printed.code, 0, printed.stderr);
      assert.ok(!printed.stdout.includes(passwords[role]), "the password is printed only as its hash");
      const words = printed.stdout.trim().split(" ");
      assert.deepEqual(words.slice(0, 3), ["ACL", "SETUSER", `seat-${role}`]);
      assert.equal(
        await raw.call(...(words as [string, ...string[]])),
        "OK",
        `Redis ${(await raw.info("server")).match(/redis_version:\S+/)?.[0]} accepts the ${role} line`,
      );
    }
    const all = await runSeat(["fleet", "acl"], { env: { PATH } });
    assert.equal(all.stdout.trim().split("\n").length, 3);
    await assert.rejects(
      raw.call(...(all.stdout.split("\n")[0]!.split(" ") as [string, ...string[]])),
      /password hash/i,
      "the placeholder is refused, never set",
    );

    const url = (role: keyof typeof passwords, password: string = passwords[role]) =>
      rig.redis.url.replace("redis://", `redis://seat-${role}:${password}@`);
    const submitter = await connectFleet(url("submitter"));
    closers.push(() => submitter.close());
    const watcher = await connectFleet(url("watcher"));
    closers.push(() => watcher.close());

    // A worker on the submitter's login is refused at start (it may not subscribe), naming the cause; and BullMQ's
    // own worker on that login takes nothing (moving a job to active needs commands the role lacks, in scripts too).
    const early = await submitter.enqueue({ prompt: "not for the submitter's login" });
    const impostor = await runSeat(
      ["worker", "--redis", rig.redis.url, "--name", "impostor", "--allow-volatile-redis"],
      { env: { PATH, GROK_SEAT_REDIS_USERNAME: "seat-submitter", GROK_SEAT_REDIS_PASSWORD: passwords.submitter } },
    );
    assert.notEqual(impostor.code, 0);
    assert.match(impostor.stderr, /FLEET_REDIS_FORBIDDEN/);
    let taken = 0;
    const bull = new Worker(SHARED_QUEUE, async () => void taken++, {
      connection: { ...parseRedisUrl(url("submitter")).options, maxRetriesPerRequest: null },
      prefix: BULL_PREFIX,
      autorun: false,
    });
    const errors: string[] = [];
    bull.on("error", (e) => errors.push(e.message));
    void bull.run().catch((e: unknown) => errors.push(String(e)));
    await until(() => (errors.length > 0 ? true : undefined), 10_000, "BullMQ's take to fail");
    await bull.close(true).catch(() => undefined);
    // Refused inside BullMQ's move-to-active script: the ACL log names the command.
    const log = (await raw.call("ACL", "LOG")) as unknown[][];
    assert.ok(
      log.some((entry) => entry.includes("seat-submitter") && entry.includes("rpoplpush")),
      JSON.stringify(log.slice(0, 3)),
    );
    assert.equal(taken, 0);
    assert.equal((await watcher.job(early.id).state()).status, "waiting");

    // The worker's login (user from GROK_SEAT_REDIS_USERNAME, password from the environment) runs jobs.
    const w = await rig.startWorker("host-a", {
      env: { GROK_SEAT_REDIS_USERNAME: "seat-worker", GROK_SEAT_REDIS_PASSWORD: passwords.worker },
    });
    assert.equal((await submitter.job(early.id).result()).status, "completed", w.stderr());
    const held = await submitter.enqueue({
      prompt: "TOOLTEST under acl",
      policy: parsePolicyFlags({ ask: ["execute", "edit"] }),
    });
    const watcherRedis = connectRedis(parseRedisUrl(url("watcher")), { name: "acl-watcher" });
    closers.push(() => watcherRedis.disconnect());
    const [approval] = await until(
      async () => {
        const listed = await listFleetApprovals(watcherRedis);
        return listed.length > 0 ? listed : undefined;
      },
      20_000,
      "the held approval, listed by the watcher",
    );
    const watcherAnswer = await answerFleetApproval(watcherRedis, approval!.id, {
      decision: "allow",
      by: "watcher",
    }).then(
      () => "answered",
      (e: unknown) => e,
    );
    assert.ok(fatalCause(watcherAnswer) === "forbidden", `a watcher cannot answer: ${String(watcherAnswer)}`);
    const submitterRedis = connectRedis(parseRedisUrl(url("submitter")), { name: "acl-submitter" });
    closers.push(() => submitterRedis.disconnect());
    assert.deepEqual(await answerFleetApproval(submitterRedis, approval!.id, { decision: "allow", by: "submitter" }), {
      id: approval!.id,
      decision: "allow",
    });
    assert.equal((await watcher.job(held.id).result()).status, "completed");
    // An expired job left in the index: a watcher still lists (it may not prune the index; a submitter does).
    await raw.zadd("grok-seat:jobs", Date.now(), "expired-long-ago");
    assert.ok((await watcher.list(10)).length >= 2, "a watcher lists jobs");
    const board = await openFleetQueues(url("watcher"));
    closers.push(() => board.close());
    const counts = await board.queues.find((q) => q.name === SHARED_QUEUE)!.getJobCounts("completed");
    assert.ok(
      (counts.completed ?? 0) >= 1,
      `a watcher reads the queue counts (the board): ${JSON.stringify(counts)} of ${board.queues.map((q) => q.name).join(",")}`,
    );

    // A dispatched job whose heartbeat is gone reads uncertain to a watcher, who may not record it; a submitter does.
    await raw.hset("grok-seat:job:{stale}:state", { status: "dispatched", run: "run-gone", queue: SHARED_QUEUE });
    assert.equal((await watcher.job("stale").state()).status, "uncertain");
    assert.equal(await raw.hget("grok-seat:job:{stale}:state", "status"), "dispatched", "not recorded by the watcher");
    assert.equal((await submitter.job("stale").state()).status, "uncertain");
    assert.equal(await raw.hget("grok-seat:job:{stale}:state", "status"), "uncertain", "recorded by the submitter");

    // A watcher cannot submit or cancel; a worker cannot publish or submit. Nothing of theirs is queued.
    const queue = new Queue(SHARED_QUEUE, { connection: parseRedisUrl(rig.redis.url).options, prefix: BULL_PREFIX });
    closers.push(() => queue.close());
    const before = await queue.count();
    await assert.rejects(watcher.enqueue({ prompt: "watcher submits", jobId: "by-watcher" }), forbidden);
    assert.equal(await raw.exists("grok-seat:job:{by-watcher}:state"), 0, "no record");
    w.child.kill("SIGTERM");
    await w.done;
    const pending = await submitter.enqueue({ prompt: "wait here" });
    await assert.rejects(watcher.job(pending.id).cancel({ ackTimeoutMs: 100 }), forbidden);
    assert.equal(await raw.exists(`grok-seat:job:{${pending.id}}:cancel`), 0, "no cancel requested");
    const asWorker = connectRedis(parseRedisUrl(url("worker")), { name: "acl-worker" });
    closers.push(() => asWorker.disconnect());
    await assert.rejects(
      asWorker.publish("grok-seat:cancel", pending.id),
      /NOPERM/,
      "a worker cannot announce a cancel",
    );
    await assert.rejects(
      asWorker.zadd("grok-seat:jobs", Date.now(), "by-worker"),
      /NOPERM/,
      "nor add to the job index",
    );
    const workerClient = await connectFleet(url("worker"));
    closers.push(() => workerClient.close());
    await assert.rejects(workerClient.enqueue({ prompt: "worker submits", jobId: "by-worker" }), forbidden);
    assert.equal(await queue.getJob("by-worker"), undefined, "not queued");
    assert.equal(await queue.count(), before + 1, "only the submitter's job is waiting");

    // Wrong logins: each named, fast.
    for (const [what, bad] of [
      ["wrong password", url("worker", "not-the-password")],
      ["unknown user", rig.redis.url.replace("redis://", "redis://nobody:pw@")],
    ] as const) {
      const started = Date.now();
      await assert.rejects(
        connectFleet(bad),
        (e: unknown) => isSeatError(e, "FLEET_REDIS_AUTH_FAILED" satisfies ErrorCode),
        what,
      );
      assert.ok(Date.now() - started < 5_000, `${what}: ${Date.now() - started} ms`);
    }
    const refusedWorker = await runSeat(["worker", "--redis", rig.redis.url, "--name", "bad-login"], {
      env: { PATH, GROK_SEAT_REDIS_USERNAME: "seat-worker", GROK_SEAT_REDIS_PASSWORD: "wrong-canary-11" },
    });
    assert.notEqual(refusedWorker.code, 0);
    assert.match(refusedWorker.stderr, /FLEET_REDIS_AUTH_FAILED/);
    assert.ok(!refusedWorker.stderr.includes("wrong-canary-11"), "the password is not shown");
  } finally {
    for (const close of closers.reverse()) await Promise.resolve(close()).catch(() => undefined);
    raw.disconnect();
    await rig.close();
  }
});
