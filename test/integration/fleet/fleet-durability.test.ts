/*
 * The fleet on a Redis that may lose acknowledged writes (real redis-server): workers refuse it unless told
 * otherwise, naming the setting; and when Redis does lose a job mid-turn (restart without AOF), a watcher that
 * saw the turn reports it and never says "not found".
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { runSeat, startSeat } from "../../support/cli.js";

const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });

test("seat worker refuses a Redis without appendonly, with appendfsync everysec, or whose appendfsync it cannot read — naming the setting — unless --allow-volatile-redis", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig({ appendOnly: false });
  const raw = connect(parseRedisUrl(rig.redis.url), { name: "probe" });
  try {
    const off = await runSeat(["worker", "--redis", rig.redis.url, "--name", "h1"], { env: env() });
    assert.notEqual(off.code, 0);
    assert.match(off.stderr, /FLEET_REDIS_VOLATILE/);
    assert.match(off.stderr, /appendonly no/);
    await raw.call("CONFIG", "SET", "appendonly", "yes");
    await raw.call("CONFIG", "SET", "appendfsync", "everysec");
    const everysec = await runSeat(["worker", "--redis", rig.redis.url, "--name", "h1"], { env: env() });
    assert.notEqual(everysec.code, 0);
    assert.match(everysec.stderr, /FLEET_REDIS_VOLATILE/);
    assert.match(everysec.stderr, /appendfsync everysec/);
    // A user that may not run CONFIG: INFO says AOF is on, but not how it syncs — not assumed durable.
    await raw.call("CONFIG", "SET", "appendfsync", "always");
    await raw.call("ACL", "SETUSER", "noconfig", "on", ">noconfig-pass", "~*", "&*", "+@all", "-config");
    const unknown = await runSeat(
      ["worker", "--redis", rig.redis.url.replace("redis://", "redis://noconfig:noconfig-pass@"), "--name", "h1"],
      { env: env() },
    );
    assert.notEqual(unknown.code, 0);
    assert.match(unknown.stderr, /FLEET_REDIS_VOLATILE/);
    assert.match(unknown.stderr, /appendfsync could not be read/);
    await raw.call("CONFIG", "SET", "appendfsync", "everysec");
    const allowed = await rig.startWorker("h2", { args: ["--allow-volatile-redis"] });
    await until(
      () => (/warning: .*appendfsync everysec/.test(allowed.stderr()) ? true : undefined),
      5_000,
      "the worker's warning",
    );
  } finally {
    raw.disconnect();
    await rig.close();
  }
});

test("Redis restarted without AOF mid-turn: the watcher still gets the turn's end, submit --wait exits 0 and never reports FLEET_JOB_NOT_FOUND", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig({ appendOnly: false });
  try {
    const w = await rig.startWorker("host-a", { args: ["--allow-volatile-redis"] });
    const submit = startSeat(["submit", "--redis", rig.redis.url, "--wait", "scenario:slow-stream volatile"], {
      env: env(),
    });
    await until(
      () => (submit.stdout().includes('"type":"text"') ? true : undefined),
      15_000,
      "the first streamed text",
    );
    await rig.redis.restart(); // kill -9; nothing persisted, so every key is gone
    const result = await submit.done;
    assert.doesNotMatch(result.stderr, /FLEET_JOB_NOT_FOUND/);
    assert.equal(result.code, 0, result.stderr + w.stderr());
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; status?: string; reason?: string });
    assert.ok(lines.some((l) => l.type === "done"));
    const end = lines.filter((l) => l.type === "job").at(-1);
    assert.equal(end?.status, "completed");
    assert.equal(end?.reason, "record-lost", "the end says the record had to be written again");
    assert.equal(w.prompts().length, 1);
  } finally {
    await rig.close();
  }
});
