/*
 * Callback queue: order, no overlap, sync callbacks inline, async callbacks awaited, failures isolated.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CALLBACK_GRACE_MS, CallbackQueue } from "./callback-queue.js";
import type { SeatEvent } from "./events.js";

const text = (t: string): SeatEvent => ({ type: "text", text: t });

test("synchronous callbacks run inline, in order, before push returns", () => {
  const seen: string[] = [];
  const queue = new CallbackQueue(
    { onEvent: (e) => void seen.push(`event:${e.type}`), onText: (t) => void seen.push(t) },
    true,
  );
  queue.push(text("a"));
  queue.push(text("b"));
  assert.deepEqual(seen, ["event:text", "a", "event:text", "b"]);
});

test("an async callback is awaited before the next callback and the next event; nothing overlaps", async () => {
  const seen: string[] = [];
  let running = 0;
  let overlap = false;
  const slow = async (label: string) => {
    running += 1;
    if (running > 1) overlap = true;
    await new Promise((r) => setTimeout(r, 5));
    seen.push(label);
    running -= 1;
  };
  const queue = new CallbackQueue(
    { onEvent: (e) => slow(`event:${e.type === "text" ? e.text : e.type}`), onText: (t) => slow(t) },
    true,
  );
  queue.push(text("a"));
  queue.push(text("b"));
  queue.push({ type: "done", stopReason: "end_turn", text: "ab" });
  await queue.drain();
  assert.equal(overlap, false);
  assert.deepEqual(seen, ["event:a", "a", "event:b", "b", "event:done"]);
});

test("a throwing or rejecting callback loses only its own event", async () => {
  const seen: string[] = [];
  const queue = new CallbackQueue(
    {
      onText: (t) => {
        if (t === "boom") throw new Error("sync failure");
        if (t === "reject") return Promise.reject(new Error("async failure"));
        seen.push(t);
        return undefined;
      },
    },
    true,
  );
  for (const t of ["a", "boom", "b", "reject", "c"]) queue.push(text(t));
  await queue.drain();
  assert.deepEqual(seen, ["a", "b", "c"]);
});

test("a diagnostic reaches onDiagnostic and, unless turned off, onText", async () => {
  const diagnostic = { code: "ACP_STOP_REASON" as const, message: "stopped" };
  const on: string[] = [];
  new CallbackQueue({ onDiagnostic: (d) => void on.push(d.code), onText: (t) => void on.push(t) }, true).push({
    type: "diagnostic",
    diagnostic,
  });
  const off: string[] = [];
  new CallbackQueue({ onDiagnostic: (d) => void off.push(d.code), onText: (t) => void off.push(t) }, false).push({
    type: "diagnostic",
    diagnostic,
  });
  assert.deepEqual(on, ["ACP_STOP_REASON", "stopped"]);
  assert.deepEqual(off, ["ACP_STOP_REASON"]);
});

test("drain resolves at once when idle and after the last event otherwise", async () => {
  const queue = new CallbackQueue({ onText: () => new Promise((r) => setTimeout(r, 5)) }, true);
  await queue.drain();
  let done = false;
  queue.push(text("x"));
  const drained = queue.drain().then(() => (done = true));
  assert.equal(done, false);
  await drained;
  assert.equal(done, true);
});

test("settle abandons a callback that never returns once the deadline passes, reports it, and skips it until it returns", async () => {
  const seen: string[] = [];
  const reported: string[] = [];
  let release!: () => void;
  const queue = new CallbackQueue(
    {
      onText: (t) => (t === "hang" ? new Promise<void>((r) => (release = r)) : void seen.push(t)),
      onDiagnostic: (d) => void seen.push(d.code),
    },
    false,
    (d) => void reported.push(d.code),
  );
  queue.push(text("hang"));
  queue.push(text("after"));
  const started = Date.now();
  const stuck = await queue.settle(Date.now() + 100);
  assert.ok(Date.now() - started < 100 + CALLBACK_GRACE_MS * 2, "bounded by the deadline plus a grace");
  assert.deepEqual(stuck, [{ callback: "onText", event: "text" }]);
  assert.deepEqual(reported, ["ACP_CALLBACK_STUCK"]);
  assert.deepEqual(seen, ["ACP_CALLBACK_STUCK"], "the stuck onText is skipped; the report reached onDiagnostic");
  release();
  await new Promise((r) => setTimeout(r, 0));
  queue.push(text("later"));
  await queue.settle(Date.now() + 100);
  assert.deepEqual(seen, ["ACP_CALLBACK_STUCK", "later"], "once its call returned, onText is called again");
});

test("settle without a deadline waits for a slow callback, and interrupt bounds it without abandoning a callback that returns within the grace", async () => {
  const seen: string[] = [];
  const queue = new CallbackQueue(
    { onText: (t) => new Promise<void>((r) => setTimeout(() => (seen.push(t), r()), 300)) },
    true,
  );
  queue.push(text("slow"));
  const settling = queue.settle();
  setTimeout(() => queue.interrupt(), 50);
  assert.deepEqual(await settling, [], "a callback that returns within the grace is not abandoned");
  assert.deepEqual(seen, ["slow"]);
  const stuckQueue = new CallbackQueue({ onText: () => new Promise<void>(() => {}) }, true);
  stuckQueue.push(text("never"));
  const pending = stuckQueue.settle();
  setTimeout(() => stuckQueue.interrupt(), 50);
  assert.deepEqual(await pending, [{ callback: "onText", event: "text" }]);
});
