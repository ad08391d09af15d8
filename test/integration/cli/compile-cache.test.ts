import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
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

test("a cache path another user could change is not used: a symlinked grok-seat/, a cache home writable by others, a relative HOME", async (t) => {
  // grok-seat/ is a symlink (to a directory of ours, even): off, and nothing is written through it.
  const linked = home(t);
  const elsewhere = join(linked.dir, "elsewhere");
  mkdirSync(elsewhere, { mode: 0o700 });
  mkdirSync(join(linked.dir, ".cache"), { mode: 0o700 });
  symlinkSync(elsewhere, join(linked.dir, ".cache", "grok-seat"));
  assert.equal((await runSeat(["config", "--json"], { env: linked.env })).code, 0);
  assert.deepEqual(files(elsewhere), [], "nothing written through a symlink");
  assert.equal(existsSync(join(elsewhere, "compile-cache")), false);

  // XDG_CACHE_HOME is a directory others may write (0777, not sticky): off, and nothing is created under it.
  const shared = home(t);
  const xdg = join(shared.dir, "shared-cache");
  mkdirSync(xdg);
  chmodSync(xdg, 0o777);
  assert.equal((await runSeat(["config", "--json"], { env: { ...shared.env, XDG_CACHE_HOME: xdg } })).code, 0);
  assert.deepEqual(readdirSync(xdg), [], "no grok-seat/ made in a directory others can write");

  // A relative HOME: no cache is made relative to wherever seat runs.
  const relative = home(t);
  const result = await runSeat(["config", "--json"], { env: { ...relative.env, HOME: "relhome" }, cwd: relative.dir });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(relative.dir, "relhome")), false);
});
