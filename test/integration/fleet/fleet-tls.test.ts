/*
 * The fleet over TLS (issue 26 §4): Debian's redis-server in TLS-only mode (`port 0`, `tls-port`) with
 * certificates this test makes (openssl), requiring a client certificate. A worker and a client given the CA
 * and the client pair run a job; each bad input ends with its own code, in under 5 s, and no job is taken.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectFleet, parseRedisUrl } from "../../../src/fleet/index.js";
import { isSeatError, type ErrorCode } from "../../../src/errors.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig, type FleetRig } from "../../support/fleet-rig.js";
import { runSeat } from "../../support/cli.js";
import { makeTestCertificates, type TestCertificates } from "../../support/tls-certs.js";

const PATH = process.env.PATH ?? "/usr/bin:/bin";

async function withTlsFleet(
  t: Parameters<typeof need>[0],
  body: (rig: FleetRig, certs: TestCertificates) => Promise<void>,
): Promise<void> {
  if (!need(t, redisMissing())) return;
  const certs = makeTestCertificates();
  try {
    const rig = await startFleetRig({
      tls: {
        certFile: certs.serverCertFile,
        keyFile: certs.serverKeyFile,
        caFile: certs.caFile,
        clientCertFile: certs.clientCertFile,
        clientKeyFile: certs.clientKeyFile,
      },
    });
    try {
      await body(rig, certs);
    } finally {
      await rig.close();
    }
  } finally {
    certs.remove();
  }
}

/** connectFleet with `env`, which must fail with `code` in under 5 s. */
async function refused(url: string, env: NodeJS.ProcessEnv, code: ErrorCode, why: string): Promise<string> {
  const started = Date.now();
  let message = "";
  await assert.rejects(
    connectFleet(url, { env }),
    (e: unknown) => {
      message = e instanceof Error ? e.message : String(e);
      return isSeatError(e, code);
    },
    `${why}: expected ${code}`,
  );
  const ms = Date.now() - started;
  assert.ok(ms < 5_000, `${why}: took ${ms} ms`);
  return message;
}

test("a fleet on a TLS-only redis-server: a worker and a client with the CA and a client certificate run a job", async (t) => {
  await withTlsFleet(t, async (rig, certs) => {
    assert.match(rig.redis.url, /^rediss:\/\//);
    const w = await rig.startWorker("tls-host", { env: rig.redis.tlsEnv });
    const client = await connectFleet(rig.redis.url, { env: rig.redis.tlsEnv });
    try {
      const result = await (await client.enqueue({ prompt: "over tls" })).result();
      assert.equal(result.status, "completed", w.stderr());
      assert.equal(w.prompts().length, 1);
    } finally {
      await client.close();
    }
    // The CLI takes the files as flags too.
    const listed = await runSeat(
      [
        "jobs",
        "list",
        "--json",
        "--redis",
        rig.redis.url,
        "--redis-ca",
        certs.caFile,
        "--redis-cert",
        certs.clientCertFile,
        "--redis-key",
        certs.clientKeyFile,
      ],
      { env: { PATH } },
    );
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /completed/);
  });
});

test("TLS bad input: no CA, the wrong CA, no client certificate, a missing or unreadable CA file, a redis:// URL with a CA — each its own code in under 5 s, and no job taken", async (t) => {
  await withTlsFleet(t, async (rig, certs) => {
    const good = rig.redis.tlsEnv;
    const client = await connectFleet(rig.redis.url, { env: good });
    try {
      const waiting = await client.enqueue({ prompt: "nobody may take this" });
      const pair = { GROK_SEAT_REDIS_CERT: certs.clientCertFile, GROK_SEAT_REDIS_KEY: certs.clientKeyFile };
      // Today's failure named nothing ("max retries"): each cause now has its code, and the message its remedy.
      assert.match(await refused(rig.redis.url, pair, "FLEET_REDIS_TLS_FAILED", "no CA"), /GROK_SEAT_REDIS_CA/);
      await refused(
        rig.redis.url,
        { ...pair, GROK_SEAT_REDIS_CA: certs.otherCaFile },
        "FLEET_REDIS_TLS_FAILED",
        "a CA that did not sign the server",
      );
      await refused(
        rig.redis.url,
        { GROK_SEAT_REDIS_CA: certs.caFile },
        "FLEET_REDIS_TLS_FAILED",
        "no client certificate for a server that requires one",
      );
      assert.match(
        await refused(
          rig.redis.url,
          { ...pair, GROK_SEAT_REDIS_CA: join(certs.dir, "missing.crt") },
          "FLEET_REDIS_TLS_FILE_UNREADABLE",
          "a CA file that does not exist",
        ),
        /missing\.crt.*does not exist/,
      );
      assert.match(
        await refused(
          rig.redis.url,
          { ...pair, GROK_SEAT_REDIS_CA: certs.dir },
          "FLEET_REDIS_TLS_FILE_UNREADABLE",
          "a CA path that cannot be read",
        ),
        /cannot be read/,
      );
      const notPem = join(certs.dir, "not-pem.crt");
      writeFileSync(notPem, "this is not a certificate\n");
      await refused(
        rig.redis.url,
        { ...pair, GROK_SEAT_REDIS_CA: notPem },
        "FLEET_REDIS_TLS_FILE_UNREADABLE",
        "a CA file that is not PEM",
      );
      await refused(
        rig.redis.url,
        { GROK_SEAT_REDIS_CA: certs.caFile, GROK_SEAT_REDIS_CERT: certs.clientCertFile },
        "FLEET_REDIS_TLS_CONFIG_INVALID",
        "a client certificate without its key",
      );
      await refused(
        rig.redis.url.replace("rediss://", "redis://"),
        good,
        "FLEET_REDIS_TLS_CONFIG_INVALID",
        "a CA for a redis:// URL",
      );
      assert.throws(
        () => parseRedisUrl(rig.redis.url, { GROK_SEAT_REDIS_CA: join(certs.dir, "missing.crt") }),
        (e: unknown) => isSeatError(e, "FLEET_REDIS_TLS_FILE_UNREADABLE"),
      );

      // seat worker without the CA exits at once naming the cause; it never takes the waiting job.
      const started = Date.now();
      const worker = await runSeat(["worker", "--redis", rig.redis.url, "--name", "no-ca"], { env: { PATH, ...pair } });
      assert.ok(
        Date.now() - started < 5_000 + 2_000,
        `seat worker took ${Date.now() - started} ms (node start included)`,
      );
      assert.notEqual(worker.code, 0);
      assert.match(worker.stderr, /FLEET_REDIS_TLS_FAILED/);
      const workerNoFile = await runSeat(
        ["worker", "--redis", rig.redis.url, "--name", "bad-ca", "--redis-ca", join(certs.dir, "missing.crt")],
        { env: { PATH, ...pair } },
      );
      assert.equal(workerNoFile.code, 2, workerNoFile.stderr);
      assert.match(workerNoFile.stderr, /FLEET_REDIS_TLS_FILE_UNREADABLE/);
      assert.equal((await client.job(waiting.id).state()).status, "waiting", "the job was taken by nobody");
    } finally {
      await client.close();
    }
  });
});
