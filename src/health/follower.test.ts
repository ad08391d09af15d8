import { test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { trimLikeGrok } from "../../test/support/grok-trim.js";
import { followLog, type LogFollower } from "./follower.js";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-follow-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Follows `path` with a slow timer (the test drives poll() itself) and collects the lines. */
function follow(path: string, maxLineBytes?: number): { follower: LogFollower; lines: string[] } {
  const lines: string[] = [];
  const follower = followLog({
    path,
    pollMs: 60_000,
    onLine: (line) => lines.push(line),
    ...(maxLineBytes ? { maxLineBytes } : {}),
  });
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

/** `count` distinct lines `<tag> <n>` of about 300 bytes (grok's are 200–600), one per entry. */
function numbered(tag: string, count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `${tag} ${from + i} ${"x".repeat(280)}`);
}

test("a log trimmed in place to its newest half (grok 1.0.41) is read on from our place: nothing again, nothing lost", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, `${numbered("old", 2000).join("\n")}\n`);
  const { follower, lines } = follow(path);
  appendFileSync(path, `${numbered("turn", 3).join("\n")}\n`);
  await follower.poll();
  // Appended after our last poll and before grok trims: these must still arrive, once.
  appendFileSync(path, `${numbered("turn", 2, 3).join("\n")}\n`);
  const inode = statSync(path).ino;
  const { before, after } = trimLikeGrok(path);
  assert.ok(after < before / 2 + 400 && statSync(path).ino === inode, "trimmed in place to about half");
  await follower.poll();
  appendFileSync(path, `${numbered("turn", 1, 5).join("\n")}\n`);
  await follower.poll();
  assert.deepEqual(
    lines.map((l) => l.split(" ").slice(0, 2).join(" ")),
    [0, 1, 2, 3, 4, 5].map((n) => `turn ${n}`),
  );
  const stats = await follower.stop();
  assert.equal(stats.resyncs, 1);
  assert.equal(stats.resets, 0);
});

test("a trim followed by regrowth past the old end within one poll is still read on from our place", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, `${numbered("old", 2000).join("\n")}\n`);
  const { follower, lines } = follow(path);
  appendFileSync(path, "turn 0\n");
  await follower.poll();
  const size = statSync(path).size;
  // A half line pending at the trim: the rest of it arrives after.
  appendFileSync(path, "turn 1 first half");
  await follower.poll();
  trimLikeGrok(path);
  appendFileSync(path, ` and second half\n${numbered("turn", 3000, 2).join("\n")}\n`);
  assert.ok(statSync(path).size > size, "regrown past the old end");
  await follower.poll();
  assert.equal(lines.length, 3002);
  assert.deepEqual(lines.slice(0, 3), ["turn 0", "turn 1 first half and second half", `turn 2 ${"x".repeat(280)}`]);
  assert.equal(new Set(lines).size, lines.length, "no line twice");
  assert.equal((await follower.stop()).resyncs, 1);
});

test("a log renamed away (rotated) is read to its end before the new file is read from its beginning", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "unified.jsonl");
  writeFileSync(path, "before\n");
  const { follower, lines } = follow(path);
  appendFileSync(path, "old 1\n");
  await follower.poll();
  appendFileSync(path, "old 2, written just before the rotation\n");
  renameSync(path, join(dir, "unified.jsonl.1"));
  writeFileSync(path, "new 1\n");
  await follower.poll();
  appendFileSync(path, "new 2\n");
  await follower.poll();
  assert.deepEqual(lines, ["old 1", "old 2, written just before the rotation", "new 1", "new 2"]);
  assert.equal((await follower.stop()).resets, 1);
});

test("a log renamed away before the first poll still yields what was appended to it after the follower started", async (t) => {
  const dir = tempDir(t);
  const path = join(dir, "unified.jsonl");
  writeFileSync(path, "before\n");
  const { follower, lines } = follow(path);
  await new Promise((r) => setTimeout(r, 200)); // no poll yet: the timer is a minute
  appendFileSync(path, "old, written just before the rotation\n");
  renameSync(path, join(dir, "unified.jsonl.1"));
  writeFileSync(path, "new\n");
  await follower.poll();
  assert.deepEqual(lines, ["old, written just before the rotation", "new"]);
  await follower.stop();
});

test("a log truncated and regrown past the old end within one poll is read from its beginning: the new lines, each once", async (t) => {
  const path = join(tempDir(t), "unified.jsonl");
  writeFileSync(path, `${numbered("old", 10).join("\n")}\n`);
  const { follower, lines } = follow(path);
  await follower.poll();
  const size = statSync(path).size;
  truncateSync(path, 0);
  appendFileSync(path, `${numbered("new", 20).join("\n")}\n`);
  assert.ok(statSync(path).size > size);
  await follower.poll();
  assert.deepEqual(
    lines.map((l) => l.split(" ").slice(0, 2).join(" ")),
    Array.from({ length: 20 }, (_, i) => `new ${i}`),
  );
  assert.equal((await follower.stop()).resets, 1);
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
