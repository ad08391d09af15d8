import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, withConfigDefaults } from "./config.js";

test("config keys redisCa / redisCert / redisKey become --redis-ca / --redis-cert / --redis-key for the fleet verbs, relative to the file; the env and a flag win", () => {
  const dir = mkdtempSync(join(tmpdir(), "seat-config-tls-"));
  try {
    writeFileSync(
      join(dir, ".grok-seat.json"),
      JSON.stringify({
        redis: "rediss://fleet:6380",
        redisCa: "certs/ca.pem",
        redisCert: "certs/me.pem",
        redisKey: "certs/me.key",
      }),
    );
    const env = { HOME: dir, XDG_CONFIG_HOME: join(dir, "xdg") };
    const config = loadConfig({ cwd: dir, env });
    for (const verb of ["worker", "submit", "jobs"]) {
      const argv = withConfigDefaults(verb, [], config);
      assert.ok(argv.includes(`--redis-ca=${join(dir, "certs/ca.pem")}`), `${verb}: ${argv.join(" ")}`);
      assert.ok(argv.includes(`--redis-cert=${join(dir, "certs/me.pem")}`));
      assert.ok(argv.includes(`--redis-key=${join(dir, "certs/me.key")}`));
    }
    assert.ok(
      !withConfigDefaults("worker", ["--redis-ca", "/given.pem"], config).some((a) => a.startsWith("--redis-ca=")),
      "a flag wins",
    );
    const fromEnv = loadConfig({ cwd: dir, env: { ...env, GROK_SEAT_REDIS_CA: "/env/ca.pem" } });
    assert.equal(fromEnv.entries.redisCa.source, "env");
    assert.ok(
      !withConfigDefaults("worker", [], fromEnv).some((a) => a.startsWith("--redis-ca=")),
      "the env is read by the fleet itself",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
