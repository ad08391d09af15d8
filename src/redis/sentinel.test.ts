import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { redactText } from "../internal/redact.js";
import { parseRedisUrl } from "./connection.js";
import { connectedReplicasOf } from "../fleet/replication.js";

test("a redis+sentinel:// URL lists its sentinels and master name; the password is masked and registered secret", () => {
  const canary = "s3ntinel-canary-pw";
  const target = parseRedisUrl(`redis+sentinel://fleet:${canary}@10.0.0.1:26379,10.0.0.2,[::1]:26380/fleet-main`, {});
  assert.deepEqual(target.options.sentinels, [
    { host: "10.0.0.1", port: 26379 },
    { host: "10.0.0.2", port: 26379 },
    { host: "::1", port: 26380 },
  ]);
  assert.equal(target.options.name, "fleet-main");
  assert.equal(target.options.username, "fleet");
  assert.equal(target.options.password, canary);
  // ioredis's own detector stays off (it can end a connection for good); followSwitches() follows the moves.
  assert.equal(target.options.failoverDetector, false);
  assert.equal(target.sentinel?.name, "fleet-main");
  assert.ok(!target.displayUrl.includes(canary), target.displayUrl);
  assert.equal(redactText(`oops ${canary}`).includes(canary), false);
});

test("rediss+sentinel:// turns TLS on for the sentinels and the primary; the sentinels' password comes from GROK_SEAT_SENTINEL_PASSWORD", () => {
  const target = parseRedisUrl("rediss+sentinel://127.0.0.1:5000/m", { GROK_SEAT_SENTINEL_PASSWORD: "sent-canary" });
  assert.deepEqual(target.options.tls, {});
  assert.equal(target.options.enableTLSForSentinelMode, true);
  assert.equal(target.options.sentinelPassword, "sent-canary");
  assert.equal(redactText("x sent-canary").includes("sent-canary"), false);
});

test("a Sentinel URL without a master name, with a bad port or a bad host is FLEET_REDIS_URL_INVALID and never echoes a password", () => {
  for (const url of [
    "redis+sentinel://:pw-canary@127.0.0.1:1/",
    "redis+sentinel://127.0.0.1:99999/m",
    "redis+sentinel://a b:1/m",
    "redis+sentinel://127.0.0.1:1",
    "redis+sentinel://h:1/m/extra",
  ]) {
    assert.throws(
      () => parseRedisUrl(url, {}),
      (e: unknown) => isSeatError(e, "FLEET_REDIS_URL_INVALID") && !(e as Error).message.includes("pw-canary"),
      url,
    );
  }
});

test("INFO replication's connected_slaves is the count of connected replicas (0 when absent)", () => {
  assert.equal(connectedReplicasOf("# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1"), 2);
  assert.equal(connectedReplicasOf("role:slave\r\n"), 0);
});

test("a config file's redis key takes a redis+sentinel:// URL (and still refuses anything else)", async () => {
  const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
  const { join } = await import("node:path");
  const { tmpdir } = await import("node:os");
  const { readConfigFile } = await import("../cli/config.js");
  const dir = mkdtempSync(join(tmpdir(), "seat-config-sentinel-"));
  try {
    const file = join(dir, "config.json");
    writeFileSync(file, JSON.stringify({ redis: "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/fleet" }));
    assert.equal(readConfigFile(file).redis, "redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/fleet");
    writeFileSync(file, JSON.stringify({ redis: "http://10.0.0.1/" }));
    assert.throws(
      () => readConfigFile(file),
      (e: unknown) => isSeatError(e, "CLI_CONFIG_INVALID"),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
