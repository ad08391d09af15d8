// Fleet jobs tell the targets they name, from each worker's own config, once across the fleet: on a real
// redis-server with `seat worker` processes and a loopback receiver that checks the signature and the schema.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { createFleetNotifier, jobEventId } from "../../../src/fleet/notify.js";
import { parseNotifyConfig } from "../../../src/notify-config/index.js";
import { FAST_STALL, until as untilValue, waitForEvent, withFleet, type FleetRig } from "../../support/fleet-rig.js";
import { registerSecrets } from "../../../src/internal/redact.js";
import { runSeat } from "../../support/cli.js";
import { startNotifyReceiver, type NotifyReceiver } from "../../support/notify-receiver.js";

const SECRET = "whsec-fleet-0123456789abcdef";

/** A worker's own config dir holding one webhook target `hook` (XDG_CONFIG_HOME of that worker). */
function workerConfig(rig: FleetRig, name: string, receiver: NotifyReceiver): Record<string, string> {
  const dir = join(rig.root, `config-${name}`);
  mkdirSync(join(dir, "grok-seat"), { recursive: true });
  writeFileSync(
    join(dir, "grok-seat", "config.json"),
    JSON.stringify({ notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET } } } }),
  );
  return { XDG_CONFIG_HOME: dir };
}

/** Waits until `check` holds. */
const until = (check: () => boolean, ms: number, what = "a condition") =>
  untilValue(() => check() || undefined, ms, what);

const accepted = (r: NotifyReceiver) => [...r.accepted.values()] as { id: string; event: string; subject: unknown }[];
const hookRequests = (r: NotifyReceiver) => r.requests.filter((q) => q.path.startsWith("/hook"));

test("a fleet job's done reaches the target it names once, signed; a name the worker lacks is a diagnostic, not a failure", async (t) => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    await withFleet(t, async (rig, client) => {
      const a = await rig.startWorker("host-a", { env: workerConfig(rig, "a", receiver) });
      const job = await client.enqueue({ prompt: "hello", notify: ["hook"] });
      assert.equal((await job.result()).status, "completed");
      await until(() => accepted(receiver).length >= 1, 10_000);
      assert.deepEqual(accepted(receiver), [
        {
          ...accepted(receiver)[0],
          id: jobEventId(job.id, "done", "end"),
          event: "done",
          subject: { kind: "job", id: job.id },
        },
      ]);
      // From the CLI: a name the worker lacks is its log line; the job completes (exit 0).
      const unknown = await runSeat(["submit", "--redis", rig.redis.url, "--notify", "pager", "--wait", "hello"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      });
      assert.equal(unknown.code, 0, unknown.stderr);
      const unknownId = (JSON.parse(unknown.stdout.split("\n")[0]!) as { id: string }).id;
      await until(() => a.stderr().includes("NOTIFY_TARGET_UNKNOWN"), 5_000);
      assert.match(a.stderr(), new RegExp(`job ${unknownId}: notification target "pager" is not configured`));
      // A job cannot carry a target itself: a URL where a name goes is refused before anything is queued.
      const url = await runSeat(["submit", "--redis", rig.redis.url, "--notify", `${receiver.url}/hook`, "hello"], {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      });
      assert.notEqual(url.code, 0);
      assert.match(url.stderr, /FLEET_JOB_INVALID|notify must list/);
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(hookRequests(receiver).length, 1, "one request in all: the first job's done, sent once");
    });
  } finally {
    await receiver.close();
  }
});

test("two workers that see the same event of a job deliver it once (the claim in Redis, the id from the job)", async (t) => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    await withFleet(t, async (rig) => {
      const config = parseNotifyConfig({
        targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET } },
      });
      const redisA = connect(parseRedisUrl(rig.redis.url), { name: "worker-a" });
      const redisB = connect(parseRedisUrl(rig.redis.url), { name: "worker-b" });
      const logs: string[] = [];
      const make = (redis: typeof redisA) =>
        createFleetNotifier({ redis, config, claimMs: 60_000, log: (l) => logs.push(l), notifier: { coalesceMs: 0 } });
      const [na, nb] = [make(redisA), make(redisB)];
      try {
        // A known secret value in the text is masked before the receiver sees it (the one redaction).
        const canary = "canary-fleet-secret-4e1d77b0";
        registerSecrets({ XAI_API_KEY: canary });
        const event = { jobId: "job-twice", event: "uncertain" as const, seq: "end", text: `uncertain: key ${canary}` };
        await Promise.all([
          na.tell(na.targetsFor("job-twice", ["hook"]), event),
          nb.tell(nb.targetsFor("job-twice", ["hook"]), event),
        ]);
        await Promise.all([na.close(), nb.close()]);
        assert.deepEqual(logs, []);
        assert.equal(hookRequests(receiver).length, 1);
        assert.equal(accepted(receiver)[0]?.id, jobEventId("job-twice", "uncertain", "end"));
        assert.ok(!hookRequests(receiver)[0]!.body.includes(canary), "the canary never leaves");
      } finally {
        redisA.disconnect();
        redisB.disconnect();
      }
    });
  } finally {
    await receiver.close();
  }
});

test("a worker SIGKILLed after telling a held approval: the one that takes the job over tells uncertain, and nothing twice", async (t) => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    await withFleet(t, async (rig, client) => {
      const a = await rig.startWorker("host-a", { env: workerConfig(rig, "a", receiver), args: FAST_STALL });
      const job = await client.enqueue({ prompt: "TOOLTEST run it", notify: ["hook"] });
      await waitForEvent(client, job.id, (e) => e.type === "approval_asked");
      await until(() => accepted(receiver).some((e) => e.event === "waiting"), 10_000, "waiting at the receiver").catch(
        (error: Error) => {
          throw new Error(
            `${error.message}; received ${JSON.stringify(receiver.requests.map((q) => q.refused))}; worker: ${a.stderr()}`,
          );
        },
      );
      a.child.kill("SIGKILL");
      const b = await rig.startWorker("host-b", { env: workerConfig(rig, "b", receiver), args: FAST_STALL });
      assert.equal((await job.result()).status, "uncertain");
      await until(() => accepted(receiver).some((e) => e.event === "uncertain"), 20_000, "uncertain").catch(
        (error: Error) => {
          throw new Error(`${error.message}; worker b: ${b.stderr()} ${b.child.exitCode} a: ${a.stderr()}`);
        },
      );
      // The job's waiting, seen again by a third worker (as after a second take-over), is not told again.
      const redis = connect(parseRedisUrl(rig.redis.url), { name: "worker-c" });
      const config = parseNotifyConfig({
        targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secret: SECRET } },
      });
      const c = createFleetNotifier({
        redis,
        config,
        claimMs: 60_000,
        log: () => undefined,
        notifier: { coalesceMs: 0 },
      });
      await c.tell(c.targetsFor(job.id, ["hook"]), {
        jobId: job.id,
        event: "waiting",
        seq: "approval-1",
        text: "again",
      });
      await c.close();
      redis.disconnect();
      await new Promise((r) => setTimeout(r, 500));
      assert.deepEqual(
        accepted(receiver).map((e) => [e.event, e.id]),
        [
          ["waiting", jobEventId(job.id, "waiting", "approval-1")],
          ["uncertain", jobEventId(job.id, "uncertain", "end")],
        ],
      );
      assert.equal(hookRequests(receiver).length, 2, "each event reached the receiver once");
    });
  } finally {
    await receiver.close();
  }
});
