import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import {
  cleanReason,
  parseLogLine,
  readHealthSignal,
  summarizeReason,
  type HealthScope,
  type HealthSignal,
} from "./log-line.js";
import { healthFixture as fixture, RECORDED_SCOPE as RECORDED } from "../../test/support/health-fixtures.js";

function signals(lines: string[], scope: HealthScope): HealthSignal[] {
  return lines.flatMap((text) => {
    const line = parseLogLine(text);
    const signal = line && readHealthSignal(line, scope);
    return signal ? [signal] : [];
  });
}

test("the recorded connection-refused turn yields grok's five retries with attempt, max 15 and the reason", () => {
  const found = signals(fixture("refused.turn.jsonl"), RECORDED);
  assert.deepEqual(
    found.map((s) => s.kind === "retry" && [s.attempt, s.maxRetries, s.reason]),
    [1, 2, 3, 4, 5].map((n) => [n, 15, "connection refused"]),
  );
  const first = found[0]!;
  assert.ok(
    first.kind === "retry" && first.detail.includes("tcp connect error: Connection refused (os error 111)"),
    JSON.stringify(first),
  );
});

test("the recorded DNS-failure turn yields inference retries and the model catalogue's retries and final failure", () => {
  const found = signals(fixture("dns.turn.jsonl"), RECORDED);
  const retries = found.filter((s) => s.kind === "retry");
  assert.deepEqual(
    retries.map((s) => s.kind === "retry" && `${s.attempt}/${s.maxRetries} ${s.reason}`),
    [1, 2, 3, 4, 5, 6].map((n) => `${n}/15 dns error`),
  );
  const catalog = found.filter((s) => s.kind !== "retry");
  assert.deepEqual(catalog, [
    { kind: "catalog_retry", attempt: 1, maxRetries: 5 },
    { kind: "catalog_retry", attempt: 2, maxRetries: 5 },
    { kind: "catalog_retry", attempt: 3, maxRetries: 5 },
    { kind: "catalog_retry", attempt: 4, maxRetries: 5 },
    {
      kind: "catalog_failed",
      reason: "model catalog fetch returned no models",
      detail: "model catalog fetch returned no models",
    },
  ]);
});

test("the startup part of a recorded log (before the turn) carries no retry", () => {
  assert.deepEqual(signals(fixture("refused.before.jsonl"), RECORDED), []);
  assert.deepEqual(
    signals(fixture("dns.before.jsonl"), RECORDED).filter((s) => s.kind === "retry"),
    [],
  );
});

test("retries of another session and catalogue lines of another process or without a known pid are not ours", () => {
  const lines = fixture("dns.turn.jsonl");
  assert.deepEqual(
    signals(lines, { sessionId: "some-other-session", pid: RECORDED.pid }).filter((s) => s.kind === "retry"),
    [],
  );
  assert.deepEqual(
    signals(lines, { sessionId: RECORDED.sessionId, pid: 1 }).filter((s) => s.kind !== "retry"),
    [],
  );
  assert.deepEqual(
    signals(lines, { sessionId: RECORDED.sessionId }).filter((s) => s.kind !== "retry"),
    [],
  );
});

test("a retry line with a missing or non-numeric attempt is ignored, not guessed", () => {
  const base = { msg: "shell.turn.inference_retry", sid: "s", pid: 1 };
  for (const ctx of [
    {},
    { attempt: "3", max_retries: 15 },
    { attempt: 3 },
    { attempt: -1, max_retries: 15 },
    { attempt: 1.5, max_retries: 15 },
  ]) {
    const line = parseLogLine(JSON.stringify({ ...base, ctx }));
    assert.ok(line);
    assert.equal(readHealthSignal(line, { sessionId: "s" }), undefined, JSON.stringify(ctx));
  }
});

test("parseLogLine refuses what is not a grok log object", () => {
  for (const text of [
    "",
    "not json",
    "[]",
    "null",
    "42",
    '"msg"',
    '{"msg":7}',
    '{"ctx":{}}',
    '{"msg":"x"',
    "{}".padEnd(70_000),
  ]) {
    assert.equal(parseLogLine(text), undefined, text.slice(0, 20));
  }
  assert.deepEqual(parseLogLine('{"msg":"m","ctx":[1],"pid":"7","sid":3}'), { msg: "m", ctx: {} });
});

test("grok's reason keeps no URL credentials or query strings", () => {
  const reason =
    "request error: error sending request for url (https://user:s3cret@models.example/v1/chat?key=abc123): dns error";
  const clean = cleanReason(reason);
  assert.ok(!clean.includes("s3cret") && !clean.includes("abc123") && !clean.includes("user:"), clean);
  assert.ok(clean.includes("https://models.example/v1/chat"), clean);
  assert.equal(summarizeReason(reason), "dns error");
  assert.equal(summarizeReason("status 503 Service Unavailable"), "server error");
  assert.equal(summarizeReason("something new: the last clause"), "the last clause");
});

test("parsing and reading never throw, whatever the line (property)", () => {
  const scope = { sessionId: "s", pid: 1 };
  fc.assert(
    fc.property(fc.string(), (text) => {
      const line = parseLogLine(text);
      if (line) readHealthSignal(line, scope);
    }),
  );
  fc.assert(
    fc.property(
      fc.record({
        msg: fc.constantFrom(
          "shell.turn.inference_retry",
          "model catalog: retry scheduled",
          "model catalog: all retries exhausted",
          "x",
        ),
        sid: fc.option(fc.constantFrom("s", "t"), { nil: undefined }),
        pid: fc.option(fc.oneof(fc.constant(1), fc.integer(), fc.string()), { nil: undefined }),
        ctx: fc.oneof(
          fc.anything(),
          fc.dictionary(fc.constantFrom("attempt", "max_retries", "reason", "error", "kind"), fc.anything()),
        ),
      }),
      (record) => {
        const line = parseLogLine(JSON.stringify(record));
        const signal = line && readHealthSignal(line, scope);
        if (signal?.kind === "retry")
          assert.ok(Number.isInteger(signal.attempt) && typeof signal.reason === "string" && signal.reason !== "");
      },
    ),
  );
});

test("a line's own stamp and model request id are read for the turn fence; a missing or bad stamp is left out", () => {
  const retry = fixture("refused.turn.jsonl").find((l) => l.includes("inference_retry"))!;
  const line = parseLogLine(retry)!;
  assert.equal(line.tsMs, Date.parse(/"ts":"([^"]*)"/.exec(retry)![1]!));
  assert.match(line.requestId ?? "", /^[0-9a-f-]{36}$/);
  assert.equal(parseLogLine('{"msg":"x","ts":"not a time"}')!.tsMs, undefined);
  assert.equal(parseLogLine('{"msg":"x","ts":12}')!.tsMs, undefined);
  assert.equal(parseLogLine('{"msg":"x","ctx":{"sampler_request_id":7}}')!.requestId, undefined);
});

// Lines grok 1.0.41 wrote against the mock answering 429, 529 and 402 (recorded 2026-12-01, ids shortened).
const LIMIT_LINES = {
  retry429:
    '{"ts":"2026-12-01T21:14:15.346Z","src":"shell","pid":22948,"ver":"1.0.41","lvl":"warn","sid":"S","msg":"shell.turn.inference_retry","ctx":{"sampler_request_id":"r1","attempt":1,"max_retries":15,"kind":"rate_limited","reason":"API error (status 429 Too Many Requests): invalid_request_error: mock error 429"}}',
  failed429:
    '{"ts":"2026-12-01T21:14:17.669Z","src":"shell","pid":22948,"ver":"1.0.41","lvl":"error","sid":"S","msg":"shell.turn.inference_failed","ctx":{"sampler_request_id":"r1","kind":"rate_limited","status_code":429,"is_retryable":true,"message":"API error (status 429 Too Many Requests): invalid_request_error: mock error 429"}}',
  retry529:
    '{"ts":"2026-12-01T21:14:45.032Z","src":"shell","pid":25022,"ver":"1.0.41","lvl":"warn","sid":"S","msg":"shell.turn.inference_retry","ctx":{"sampler_request_id":"r2","attempt":1,"max_retries":15,"kind":"api","reason":"API error (status 529 <unknown status code>): mock error 529"}}',
  failed402:
    '{"ts":"2026-12-01T21:15:16.521Z","src":"shell","pid":27347,"ver":"1.0.41","lvl":"error","sid":"S","msg":"shell.turn.inference_failed","ctx":{"sampler_request_id":"r3","kind":"api","status_code":402,"is_retryable":false,"message":"API error (status 402 Payment Required): invalid_request_error: mock error 402"}}',
};

test("grok's limit lines carry the model's HTTP status: a retry names it, a failed request gives it with is_retryable", async () => {
  const { limitEvent, healthEvent } = await import("./turn-health.js");
  const scope = { sessionId: "S" };
  const retry = readHealthSignal(parseLogLine(LIMIT_LINES.retry429)!, scope);
  assert.equal(retry?.kind === "retry" && retry.statusCode, 429);
  assert.deepEqual(limitEvent(retry!, "p"), {
    type: "rate_limited",
    statusCode: 429,
    final: false,
    attempt: 1,
    max: 15,
    detail: "API error (status 429 Too Many Requests): invalid_request_error: mock error 429",
    promptId: "p",
  });
  assert.equal(limitEvent(readHealthSignal(parseLogLine(LIMIT_LINES.retry529)!, scope)!)?.type, "rate_limited");
  const failed = readHealthSignal(parseLogLine(LIMIT_LINES.failed402)!, scope);
  assert.deepEqual(failed, {
    kind: "inference_failed",
    statusCode: 402,
    retryable: false,
    detail: "API error (status 402 Payment Required): invalid_request_error: mock error 402",
  });
  assert.deepEqual(healthEvent(failed!, "p"), {
    type: "rate_limited",
    statusCode: 402,
    final: true,
    detail: failed!.detail,
    promptId: "p",
  });
  assert.equal(
    readHealthSignal(parseLogLine(LIMIT_LINES.failed429)!, { sessionId: "other" }),
    undefined,
    "another session's line is not ours",
  );
});
