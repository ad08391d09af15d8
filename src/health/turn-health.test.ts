import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SeatEvent } from "../acp/index.js";
import { healthFixture, RECORDED_SCOPE, recordedSentAtMs, restamp } from "../../test/support/health-fixtures.js";
import { trimLikeGrok } from "../../test/support/grok-trim.js";
import { grokLogPath, startTurnHealth } from "./turn-health.js";

function tempLog(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-health-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "unified.jsonl");
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

test("grokLogPath follows GROK_HOME, else HOME/.grok", () => {
  assert.equal(grokLogPath({ GROK_HOME: "/g", HOME: "/h" }), "/g/logs/unified.jsonl");
  assert.equal(grokLogPath({ HOME: "/h" }), "/h/.grok/logs/unified.jsonl");
});

test("recorded retries appended during the turn become retry events; those already in the log do not", async (t) => {
  const path = tempLog(t);
  const turn = healthFixture("refused.turn.jsonl");
  // An earlier turn of the same session already retried: that must not be reported again.
  writeFileSync(path, `${[...healthFixture("refused.before.jsonl"), ...turn].join("\n")}\n`);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs: recordedSentAtMs("refused"),
    promptId: "p1",
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  for (const line of turn) appendFileSync(path, `${line}\n`);
  await until(() => events.length >= 5);
  const stats = await health.stop();
  assert.deepEqual(
    events.map((e) => e.type === "retry" && `${e.attempt}/${e.max} ${e.reason} ${e.promptId}`),
    [1, 2, 3, 4, 5].map((n) => `${n}/15 connection refused p1`),
  );
  assert.equal(stats.retries, 5);
  assert.equal(health.unreachable, undefined, "without fail-fast the turn is never ended by retries");
  assert.equal(health.signal.aborted, false);
});

test("fail-fast aborts the turn's signal once, at the Nth retry, with MODEL_UNREACHABLE naming grok's reason", async (t) => {
  const path = tempLog(t);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs: recordedSentAtMs("dns"),
    failFastAfterRetries: 3,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  const retries = healthFixture("dns.turn.jsonl").filter((l) => l.includes("inference_retry"));
  for (const line of retries.slice(0, 2)) appendFileSync(path, `${line}\n`);
  await until(() => events.length >= 2);
  assert.equal(health.signal.aborted, false, "two retries are below the limit");
  for (const line of retries.slice(2)) appendFileSync(path, `${line}\n`);
  await until(() => health.signal.aborted);
  await health.stop();
  const reason = health.signal.reason as { code: string; message: string };
  assert.equal(reason.code, "MODEL_UNREACHABLE");
  assert.match(reason.message, /dns error \(attempt 3\/15\)/);
  assert.match(reason.message, /failed to lookup address information/);
  assert.deepEqual(health.unreachable, reason);
});

test("catalogue failures of grok's process are events, and never count toward fail-fast", async (t) => {
  const path = tempLog(t);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs: recordedSentAtMs("dns"),
    failFastAfterRetries: 1,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  const catalog = healthFixture("dns.turn.jsonl").filter((l) => l.includes("model catalog"));
  appendFileSync(path, `${catalog.join("\n")}\n`);
  await until(() => events.length >= 5);
  await health.stop();
  assert.deepEqual(
    events.map((e) => e.type === "model_catalog" && e.status),
    ["retrying", "retrying", "retrying", "retrying", "failed"],
  );
  assert.equal(health.signal.aborted, false);
});

test("an absent log, garbage lines and a torn last line never fail the turn; bad lines are counted", async (t) => {
  const path = tempLog(t);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    failFastAfterRetries: 3,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  await new Promise((r) => setTimeout(r, 50));
  writeFileSync(
    path,
    'not json\n{"msg":\n\u0000\u0001binary\n{"msg":"shell.turn.inference_retry","sid":"00000000-0000-4000-8000-000000000002","ctx":{"attempt":1',
  );
  await new Promise((r) => setTimeout(r, 100));
  const stats = await health.stop();
  assert.equal(stats.malformed, 3);
  assert.deepEqual(events, []);
  assert.equal(health.signal.aborted, false);
});

test("the caller's abort is passed through with its own reason", async (t) => {
  const caller = new AbortController();
  const health = startTurnHealth({
    logPath: tempLog(t),
    ...RECORDED_SCOPE,
    emit: () => undefined,
    signal: caller.signal,
  });
  caller.abort("user pressed ctrl-c");
  assert.equal(health.signal.aborted, true);
  assert.equal(health.signal.reason, "user pressed ctrl-c");
  await health.stop();
});

/** The recorded refused retries (attempts 1–5 of one request), stamped from `atMs` on, 1 ms apart. */
function retriesAt(atMs: number, requestId?: string): string[] {
  return healthFixture("refused.turn.jsonl")
    .filter((l) => l.includes("inference_retry"))
    .map((l, i) => {
      const line = restamp(l, atMs + i);
      return requestId ? line.replace(/"sampler_request_id":"[^"]*"/, `"sampler_request_id":"${requestId}"`) : line;
    });
}

/** Filler lines of another grok (about 300 bytes each), stamped `atMs`. */
function filler(count: number, atMs: number): string[] {
  const ts = new Date(atMs).toISOString();
  return Array.from({ length: count }, (_, n) =>
    JSON.stringify({ ts, src: "shell", pid: 7, msg: "filler", ctx: { n, pad: "x".repeat(220) } }),
  );
}

test("after grok trims the log mid-turn, the earlier turn's retries of the same session are neither reported nor counted; this turn's are", async (t) => {
  const path = tempLog(t);
  const sentAtMs = Date.now();
  // An earlier turn of this session retried 5 times, then the log grew: grok's trim keeps those lines.
  writeFileSync(
    path,
    `${[...filler(4000, sentAtMs - 60_000), ...retriesAt(sentAtMs - 30_000, "earlier-request")].join("\n")}\n`,
  );
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs,
    promptId: "turn-2",
    failFastAfterRetries: 3,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  trimLikeGrok(path);
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(events.length, 0, "nothing of the earlier turn");
  appendFileSync(
    path,
    `${retriesAt(sentAtMs + 5, "this-request")
      .slice(0, 2)
      .join("\n")}\n`,
  );
  await until(() => events.length >= 2);
  const stats = await health.stop();
  assert.deepEqual(
    events.map((e) => e.type === "retry" && `${e.attempt} ${e.promptId}`),
    ["1 turn-2", "2 turn-2"],
  );
  assert.equal(health.signal.aborted, false, "two retries of this turn are below the limit");
  assert.equal(stats.retries, 2);
});

test("lines stamped before the turn was sent are never reported, even when the log is read again from its beginning", async (t) => {
  const path = tempLog(t);
  const sentAtMs = Date.now();
  writeFileSync(path, `${filler(10, sentAtMs - 1000).join("\n")}\n`);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs,
    failFastAfterRetries: 3,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  // Truncated and rewritten with the earlier turn's lines (the follower cannot find its place and starts over).
  truncateSync(path, 0);
  appendFileSync(
    path,
    `${[...retriesAt(sentAtMs - 500), '{"ts":"not a time","msg":"shell.turn.inference_retry","sid":"00000000-0000-4000-8000-000000000002","ctx":{"attempt":9,"max_retries":15}}'].join("\n")}\n`,
  );
  await new Promise((r) => setTimeout(r, 80));
  const stats = await health.stop();
  assert.deepEqual(events, []);
  assert.equal(health.signal.aborted, false);
  assert.equal(stats.stale, 6, "five stamped before the turn, one without a readable stamp");
  assert.equal(stats.resets, 1);
});

test("a retry stamped after the turn was sent but for a model request already retried before it is not this turn's", async (t) => {
  const path = tempLog(t);
  const sentAtMs = Date.now();
  writeFileSync(path, "");
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs,
    failFastAfterRetries: 2,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  const older = retriesAt(sentAtMs - 100, "older-request");
  const late = retriesAt(sentAtMs + 10, "older-request");
  const mine = retriesAt(sentAtMs + 20, "my-request");
  appendFileSync(path, `${[older[0], late[1], late[2], mine[0]].join("\n")}\n`);
  await until(() => events.length >= 1);
  await new Promise((r) => setTimeout(r, 40));
  const stats = await health.stop();
  assert.deepEqual(
    events.map((e) => e.type === "retry" && e.attempt),
    [1],
  );
  assert.equal(health.signal.aborted, false, "attempts 2 and 3 of the older request do not count");
  assert.equal(stats.stale, 3);
});

test("a retry of the previous turn's model request that grok logs after this turn was sent is not this turn's", async (t) => {
  const path = tempLog(t);
  const sentAtMs = Date.now();
  const older = retriesAt(sentAtMs - 200, "previous-turn-request");
  // Attempt 1 of the previous turn's request is already in the log when this turn starts.
  writeFileSync(path, `${older[0]}\n`);
  const events: SeatEvent[] = [];
  const health = startTurnHealth({
    logPath: path,
    ...RECORDED_SCOPE,
    sentAtMs,
    failFastAfterRetries: 2,
    emit: (e) => events.push(e),
    pollMs: 10,
  });
  const lagging = retriesAt(sentAtMs + 5, "previous-turn-request");
  appendFileSync(path, `${[lagging[1], lagging[2], retriesAt(sentAtMs + 20, "this-turn-request")[0]].join("\n")}\n`);
  await until(() => events.length >= 1);
  await new Promise((r) => setTimeout(r, 40));
  const stats = await health.stop();
  assert.deepEqual(
    events.map((e) => e.type === "retry" && e.attempt),
    [1],
  );
  assert.equal(health.signal.aborted, false);
  assert.equal(stats.stale, 2);
});
