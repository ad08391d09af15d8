/*
 * The redis-server rig under a neighbour: tests run two files at once, and several of them restart their server.
 * A rig must never pass another rig's server for its own (a PING answered on its port is not proof), and a port
 * stays its rig's while the server is down, so a rig started in that window picks another one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { isSeatError } from "../../../src/errors.js";
import { startRedisServer } from "../../../src/fleet/redis-server.js";
import { reserveFreePort, reservePort } from "../../../src/fleet/port-reservation.js";
import { connect, parseRedisUrl } from "../../../src/redis/connection.js";
import { need } from "../../support/requirements.js";
import { redisMissing } from "../../support/fleet-rig.js";

test("a rig told to use the port of a running server is refused with FLEET_REDIS_PORT_TAKEN (its own server failed to bind) and the first server serves on", async (t) => {
  if (!need(t, redisMissing())) return;
  const first = await startRedisServer();
  try {
    const raw = connect(parseRedisUrl(first.url), { name: "probe" });
    try {
      await raw.set("owner", "first");
      // The first rig holds the port's reservation, so the second one starts without it; only the server's pid
      // can tell the two apart.
      await assert.rejects(
        startRedisServer({ port: first.port }),
        (error: unknown) =>
          isSeatError(error, "FLEET_REDIS_PORT_TAKEN") && (error.context as { pid?: number }).pid === first.pid,
      );
      assert.equal(await raw.get("owner"), "first");
    } finally {
      raw.disconnect();
    }
  } finally {
    await first.stop();
  }
});

test("a rig's port stays reserved while its server is down and is free again after stop; restart comes back on it", async (t) => {
  if (!need(t, redisMissing())) return;
  const server = await startRedisServer();
  let stopped = false;
  try {
    assert.equal(reservePort(server.port), undefined, "reserved while up");
    await server.kill();
    assert.equal(reservePort(server.port), undefined, "still reserved while down");
    const other = await reserveFreePort();
    try {
      assert.notEqual(other.port, server.port);
    } finally {
      other.release();
    }
    await server.restart();
    const raw = connect(parseRedisUrl(server.url), { name: "probe" });
    try {
      assert.equal(await raw.ping(), "PONG");
    } finally {
      raw.disconnect();
    }
    await server.stop();
    stopped = true;
    const again = reservePort(server.port);
    assert.ok(again, "free once the rig stopped");
    again.release();
  } finally {
    if (!stopped) await server.stop();
  }
});

test("the reservation of a process that died without releasing it is taken over", async () => {
  const module = fileURLToPath(new URL("../../../src/fleet/port-reservation.js", import.meta.url));
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { reserveFreePort } = await import(${JSON.stringify(module)}); const r = await reserveFreePort(); process.stdout.write(String(r.port) + "\\n"); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(Number(out.trim()));
    });
    child.once("exit", () => reject(new Error("the child exited before reserving")));
  });
  assert.equal(reservePort(port), undefined, "held while its owner lives");
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  const taken = reservePort(port);
  assert.ok(taken, "taken over from the dead owner");
  taken.release();
});
