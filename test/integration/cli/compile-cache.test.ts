import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import module from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat } from "../../support/cli.js";

const hasCompileCache = typeof (module as { enableCompileCache?: unknown }).enableCompileCache === "function";

function home(t: { after(fn: () => void): void }): { dir: string; env: NodeJS.ProcessEnv; cache: string } {
  const dir = mkdtempSync(join(tmpdir(), "gs-compile-cache-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, GROK_SEAT_HOME: join(dir, "seat") };
  return { dir, env, cache: join(dir, ".cache", "grok-seat", "compile-cache") };
}

/** Every file under `dir`. */
function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);
}

test("seat keeps V8's compile cache in a private directory of the user's cache where Node has one (Node 22+), and none on Node 20", async (t) => {
  const w = home(t);
  const result = await runSeat(["config", "--json"], { env: w.env });
  assert.equal(result.code, 0, result.stderr);
  if (hasCompileCache) {
    assert.equal(statSync(w.cache).mode & 0o777, 0o700);
    assert.ok(files(w.cache).length > 0, "the verb's modules were cached");
  } else {
    assert.equal(existsSync(w.cache), false, `Node ${process.version} has no compile cache: nothing is written`);
  }
  // Turned off by Node's own switch.
  const off = home(t);
  assert.equal((await runSeat(["config", "--json"], { env: { ...off.env, NODE_DISABLE_COMPILE_CACHE: "1" } })).code, 0);
  assert.deepEqual(files(off.cache), []);
});

test("a compile cache directory another user could write is not used: seat runs without a cache", async (t) => {
  const w = home(t);
  mkdirSync(w.cache, { recursive: true });
  chmodSync(w.cache, 0o777);
  const result = await runSeat(["config", "--json"], { env: w.env });
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(files(w.cache), [], "nothing was read from or written to a shared directory");
  assert.equal(statSync(w.cache).mode & 0o777, 0o777, "and its mode was left as it was");
});
