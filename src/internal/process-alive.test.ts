import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { makeZombie } from "../../test/support/zombie.js";
import { processAlive } from "./process-alive.js";
import { parseProcStat } from "./proc-stat.js";

const ownTicks = () => parseProcStat(readFileSync("/proc/self/stat", "utf8"))!.startTicks;

test("a running process is alive; with its own start ticks too, with another start it is a recycled pid", () => {
  assert.equal(processAlive(process.pid), true);
  assert.equal(processAlive(process.pid, ownTicks()), true);
  assert.equal(processAlive(process.pid, "1"), false);
  assert.equal(processAlive(process.pid, null), true, "no remembered start: the pid alone decides");
});

test("a zombie (exited, never reaped by its parent) is not alive, though kill(pid, 0) still finds it", async (t) => {
  const zombie = await makeZombie();
  t.after(() => zombie.end());
  assert.doesNotThrow(() => process.kill(zombie.pid, 0), "kill(2) finds a zombie");
  assert.equal(processAlive(zombie.pid), false);
  assert.equal(processAlive(zombie.pid, zombie.startTicks), false);
});

test("a pid that is not there, or not a pid, is not alive", () => {
  assert.equal(processAlive(2 ** 22 + 1), false);
  assert.equal(processAlive(0), false);
  assert.equal(processAlive(-1), false);
  assert.equal(processAlive(1.5), false);
});
