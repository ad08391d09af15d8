/*
 * Callback queue: order, no overlap, sync callbacks inline, async callbacks awaited, failures isolated.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { CallbackQueue } from "./callback-queue.js";
import type { SeatEvent } from "./events.js";

const text = (t: string): SeatEvent => ({ type: "text", text: t });

test("synchronous callbacks run inline, in order, before push returns", () => {
  const seen: string[] = [];
  const queue = new CallbackQueue({ onEvent: (e) => void seen.push(`event:${e.type}`), onText: (t) => void seen.push(t) }, true);
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
  const queue = new CallbackQueue({ onEvent: (e) => slow(`event:${e.type === "text" ? e.text : e.type}`), onText: (t) => slow(t) }, true);
  queue.push(text("a"));
  queue.push(text("b"));
  queue.push({ type: "done", stopReason: "end_turn", text: "ab" });
  await queue.drain();
  assert.equal(overlap, false);
  assert.deepEqual(seen, ["event:a", "a", "event:b", "b", "event:done"]);
});

test("a throwing or rejecting callback loses only its own event", async () => {
  const seen: string[] = [];
  const queue = new CallbackQueue({
    onText: (t) => {
      if (t === "boom") throw new Error("sync failure");
      if (t === "reject") return Promise.reject(new Error("async failure"));
      seen.push(t);
      return undefined;
    },
  }, true);
  for (const t of ["a", "boom", "b", "reject", "c"]) queue.push(text(t));
  await queue.drain();
  assert.deepEqual(seen, ["a", "b", "c"]);
});

test("a diagnostic reaches onDiagnostic and, unless turned off, onText", async () => {
  const diagnostic = { code: "ACP_STOP_REASON" as const, message: "stopped" };
  const on: string[] = [];
  new CallbackQueue({ onDiagnostic: (d) => void on.push(d.code), onText: (t) => void on.push(t) }, true).push({ type: "diagnostic", diagnostic });
  const off: string[] = [];
  new CallbackQueue({ onDiagnostic: (d) => void off.push(d.code), onText: (t) => void off.push(t) }, false).push({ type: "diagnostic", diagnostic });
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
