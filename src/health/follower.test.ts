import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, renameSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { followLog, type LogFollower } from "./follower.js";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-follow-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Follows `path` with a slow timer (the test drives poll() itself) and collects the lines. */
function follow(path: string, maxLineBytes?: number): { follower: LogFollower; lines: string[] } {
  const lines: string[] = [];
  const follower = followLog({ path, pollMs: 60_000, onLine: (line) => lines.push(line), ...(maxLineBytes ? { maxLineBytes } : {}) });
  return { follower, lines };
}

test("only lines appended after the follower started are delivered, in order, each once", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, "old 1\nold 2\n");
  const { follower, lines } = follow(path);
  appendFileSync(path, "new 1\nnew 2\n");
  await follower.poll();
  appendFileSync(path, "new 3\n");
  await follower.poll();
  await follower.poll();
  assert.deepEqual(lines, ["new 1", "new 2", "new 3"]);
  assert.equal((await follower.stop()).lines, 3);
});

test("a line written in pieces is delivered once, when its newline arrives", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, "");
  const { follower, lines } = follow(path);
  appendFileSync(path, '{"msg":"half');
  await follower.poll();
  assert.deepEqual(lines, []);
  appendFileSync(path, ' and ünïcode"}\n');
  await follower.poll();
  assert.deepEqual(lines, ['{"msg":"half and ünïcode"}']);
  await follower.stop();
});

test("a log that does not exist yet is read from its beginning once it appears", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "logs", "unified.jsonl");
  const { follower, lines } = follow(path);
  await follower.poll();
  assert.deepEqual(lines, []);
  mkdirSync(join(dir, "logs"));
  writeFileSync(path, "first\nsecond\n");
  await follower.poll();
  assert.deepEqual(lines, ["first", "second"]);
  assert.equal((await follower.stop()).readErrors, 0);
});

test("a truncated or replaced (rotated) log is read again from its beginning", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "unified.jsonl");
  writeFileSync(path, "a long line before the turn\n");
  const { follower, lines } = follow(path);
  truncateSync(path, 0);
  appendFileSync(path, "after truncate\n");
  await follower.poll();
  writeFileSync(join(dir, "next.jsonl"), "rotated in\n");
  renameSync(join(dir, "next.jsonl"), path);
  await follower.poll();
  rmSync(path);
  await follower.poll();
  writeFileSync(path, "recreated\n");
  await follower.poll();
  assert.deepEqual(lines, ["after truncate", "rotated in", "recreated"]);
  assert.equal((await follower.stop()).resets, 3);
});

test("an oversized line is skipped and counted, and the lines after it still arrive", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, "");
  const { follower, lines } = follow(path, 32);
  appendFileSync(path, `${"x".repeat(40)}`);
  await follower.poll();
  appendFileSync(path, `${"y".repeat(40)}\nshort\n${"z".repeat(100)}\nlast\n`);
  await follower.poll();
  assert.deepEqual(lines, ["short", "last"]);
  const stats = await follower.stop();
  assert.equal(stats.oversized, 2);
});

test("a throwing onLine is counted and following goes on; stop() is idempotent and stops reading", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, "");
  const seen: string[] = [];
  const follower = followLog({
    path,
    pollMs: 60_000,
    onLine(line) {
      seen.push(line);
      if (line === "boom") throw new Error("callback failed");
    },
  });
  appendFileSync(path, "boom\nfine\n");
  await follower.poll();
  const first = await follower.stop();
  appendFileSync(path, "after stop\n");
  await follower.poll();
  const second = await follower.stop();
  assert.deepEqual(seen, ["boom", "fine"]);
  assert.equal(first.callbackErrors, 1);
  assert.deepEqual(second, first);
});

test("the timer alone picks up appended lines", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, "");
  const lines: string[] = [];
  const follower = followLog({ path, pollMs: 20, onLine: (line) => lines.push(line) });
  appendFileSync(path, "by the timer\n");
  const deadline = Date.now() + 5_000;
  while (lines.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await follower.stop();
  assert.deepEqual(lines, ["by the timer"]);
});
