/*
 * Attention in the fleet, on the real grok 1.0.41 and a real redis-server: a running job's session states reach
 * its event stream as `{"type":"state"}` events, `seat ps --redis` lists the job with the state its worker
 * recorded, and a cancelled job ends `cancelled` in the stream and leaves the listing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectFleet, type FleetEvent } from "../../../src/fleet/index.js";
import { gotLive, need } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";

test("a fleet job's states reach its stream, and seat ps --redis lists it working until it is cancelled", async (t) => {
  if (!need(t, redisMissing())) return;
  const live = await startLiveRig({ rules: [{ match: "hang here", replies: [{ hang: true }] }] });
  if (!gotLive(t, live)) return;
  const fleet = await startFleetRig();
  const client = await connectFleet(fleet.redis.url);
  try {
    const hostEnv = { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary };
    await fleet.startWorker("host-a", { env: hostEnv });
    const handle = await client.enqueue({ prompt: "hang here", cwd: live.sandbox.project });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: fleet.root };
    const listed = await until(
      async () => {
        const ps = await runSeat(["ps", "--json", "--redis", fleet.redis.url], { env });
        assert.equal(ps.code, 0, ps.stderr);
        const items = ps.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        return items.find((i) => i.id === handle.id && i.state === "working");
      },
      60_000,
      "the job listed working",
    );
    assert.equal(listed.kind, "job");
    assert.equal(listed.host, "host-a");
    assert.ok(typeof listed.since === "string" && !Number.isNaN(Date.parse(listed.since)));
    await handle.cancel({ ackTimeoutMs: 10_000 });
    const result = await handle.result();
    assert.equal(result.status, "cancelled");
    const events: FleetEvent[] = [];
    for await (const { event } of handle.events()) events.push(event);
    const states = events.filter((e) => e.type === "state").map((e) => (e as { state: string }).state);
    assert.deepEqual(states, ["starting", "idle", "working", "cancelled"]);
    const after = await runSeat(["ps", "--json", "--redis", fleet.redis.url], { env });
    assert.ok(!after.stdout.includes(handle.id), "an ended job is not live");
  } finally {
    await client.close();
    await fleet.close();
    await live.close();
  }
});
