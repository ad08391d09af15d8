/*
 * A compare-and-set replayed by the Redis client: when a connection drops after Redis ran a command but before
 * its reply arrived, ioredis sends the command again once it has reconnected. A run's own transition replayed
 * must count as done — a dispatch mark read as "someone else dispatched it" left a job never sent, its heartbeat
 * stopped, and a watcher then recorded it uncertain (seen in the R6 campaign under load). Real redis-server, a
 * `seat worker` with the fake agent, and a loopback proxy that drops the one reply.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, connect as connectTcp, type Socket } from "node:net";
import type { FleetClient, JobEvent } from "../../src/fleet/index.js";
import { withFleet } from "../support/fleet-rig.js";

/** A TCP proxy to 127.0.0.1:`port` that, the first time a client sends data matching `target`, forwards it and
 * then drops the connection before Redis's reply can come back. */
async function dropOneReply(port: number, target: (data: string) => boolean): Promise<{ url: string; tripped: () => number; close: () => Promise<void> }> {
  let tripped = 0;
  const sockets = new Set<Socket>();
  const server = createServer((down) => {
    const up = connectTcp(port, "127.0.0.1");
    sockets.add(down).add(up);
    let cut = false;
    const end = () => {
      down.destroy();
      up.destroy();
    };
    up.on("data", (d: Buffer) => void (cut || down.write(d)));
    down.on("data", (d: Buffer) => {
      up.write(d);
      if (tripped === 0 && target(d.toString("latin1"))) {
        tripped += 1;
        cut = true;
        setTimeout(end, 300); // Redis runs the command meanwhile; its reply is thrown away
      }
    });
    for (const s of [up, down]) {
      s.on("error", end);
      s.on("close", end);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || !address) throw new Error("no proxy port");
  return {
    url: `redis://127.0.0.1:${address.port}`,
    tripped: () => tripped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function jobEvents(client: FleetClient, id: string): Promise<JobEvent[]> {
  const out: JobEvent[] = [];
  for await (const { event } of client.job(id).events()) if (event.type === "job") out.push(event);
  return out;
}

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
