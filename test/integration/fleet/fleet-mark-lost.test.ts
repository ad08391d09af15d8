/*
 * A dispatch mark lost with its primary (issue 26, R9): the worker wrote the mark, the primary failed over to a
 * replica that never received it, and the worker's connection moved there. Nothing was sent, and no primary to come
 * holds the mark, so the job must go back to its queue and run — not end `uncertain`, and not stay `active` forever
 * under a run that has returned (what the code before this test did: the end found no mark and BullMQ completed the job).
 * Deterministic, on real redis-server: a loopback proxy in front of primary A holds the mark's bytes, promotes the
 * in-sync replica B (`REPLICAOF NO ONE`), lets the mark reach A alone, then — once A's reply is back — moves every
 * connection to B and makes A a replica of B, as Sentinel does.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, connect as connectTcp, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { connectFleet } from "../../../src/fleet/index.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { startRedisServer } from "../../../src/testing.js";
import { need } from "../../support/requirements.js";
import { jobEvents, redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";

test("a dispatch mark lost in a failover (the new primary never had it) hands the job back: it runs on the new primary and the agent receives it once", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const a = rig.redis;
  const b = await startRedisServer({ replicaOf: a.port });
  const probeA = connect(parseRedisUrl(a.url), { name: "probe-a" });
  const probeB = connect(parseRedisUrl(b.url), { name: "probe-b" });
  let upstream = a.port;
  let phase: "before" | "held" | "after" = "before";
  const sockets = new Set<Socket>();
  const failover = async () => {
    phase = "after";
    upstream = b.port;
    for (const s of sockets) s.destroy();
    sockets.clear();
    await probeA.call("REPLICAOF", "127.0.0.1", String(b.port));
  };
  const proxy = createServer((down) => {
    const up = connectTcp(upstream, "127.0.0.1");
    sockets.add(down).add(up);
    const end = () => {
      down.destroy();
      up.destroy();
    };
    let markReplyDue = false;
    // What this client sent lately: one command may reach the proxy in more than one chunk.
    let sent = "";
    up.on("data", (d: Buffer) => {
      down.write(d);
      if (markReplyDue) {
        markReplyDue = false;
        setTimeout(() => void failover(), 50);
      }
    });
    down.on("data", (d: Buffer) => {
      sent = (sent + d.toString("latin1")).slice(-16_384);
      if (phase === "before" && sent.includes("prompt_id") && sent.includes("\r\ndispatched\r\n")) {
        phase = "held";
        down.pause();
        void (async () => {
          // B has everything before the mark, and stops following A: the mark reaches A alone.
          await probeA.call("WAIT", "1", "2000");
          await probeB.call("REPLICAOF", "NO", "ONE");
          markReplyDue = true;
          up.write(d);
          down.resume();
        })();
        return;
      }
      up.write(d);
    });
    for (const s of [up, down]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
  const url = `redis://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
  try {
    await until(
      async () => (/slave0:.*state=online/.test(await probeA.info("replication")) ? true : undefined),
      10_000,
      "B in sync with A",
    );
    const worker = await rig.startWorker("host-a", { redisUrl: url, args: ["--replica-ack-timeout", "5"] });
    assert.match(worker.stderr(), /durability rule: replicated .*WAIT 1/, worker.stderr());
    const client = await connectFleet(url);
    try {
      const job = await client.enqueue({ prompt: "its mark is lost in a failover", jobId: "mark-lost", cwd: rig.root });
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), 30_000);
      const result = await job.result({ signal: ctrl.signal }).catch((e: unknown) => ({
        status: `no end within 30 s (${String(e)}): ${JSON.stringify(client.job("mark-lost"))}`,
      }));
      clearTimeout(timer);
      assert.equal(result.status, "completed", `failover ${phase}; ${JSON.stringify(result)}\n${worker.stderr()}`);
      assert.equal(phase, "after", "the failover happened at the mark");
      const events = await jobEvents(client, job.id);
      assert.ok(
        events.some((e) => e.status === "waiting" && (e as { reason?: string }).reason === "mark-lost-in-failover"),
        JSON.stringify(events),
      );
      assert.deepEqual(
        worker.prompts().filter((p) => p === `fleet-${job.id}`),
        [`fleet-${job.id}`],
        "the agent received it exactly once",
      );
    } finally {
      await client.close();
    }
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => proxy.close(() => r()));
    probeA.disconnect();
    probeB.disconnect();
    await rig.close();
    await b.stop();
  }
});
