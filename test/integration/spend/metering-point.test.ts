/*
 * The metering point on loopback: a real HTTP upstream (the mock model, or a bare server), real sockets, a canary key.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { startMockModel } from "../../../src/mock-model/index.js";
import { readUsageInto, startMeteringPoint, type MeteredCall } from "../../../src/metering/index.js";
import { SideCallMeter } from "../../../src/runtime/side-calls.js";
import type { Diagnostic } from "../../../src/acp/index.js";

const CANARY = "sk-canary-metering-7f3a9e";

/** POSTs `body` to `url` (optionally through `proxy`), resolving the status, the body and when the first byte came. */
function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  proxy?: string,
): Promise<{ status: number; text: string; firstByteAt: number; endAt: number }> {
  const target = new URL(url);
  const via = proxy ? new URL(proxy) : target;
  return new Promise((resolve, reject) => {
    const req = request(
      {
        hostname: via.hostname,
        port: via.port,
        method: "POST",
        path: proxy ? url : `${target.pathname}${target.search}`,
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        let text = "";
        let firstByteAt = 0;
        res.on("data", (chunk: Buffer) => {
          firstByteAt ||= Date.now();
          text += chunk.toString("utf8");
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text, firstByteAt, endAt: Date.now() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const CHAT = {
  model: "mock-model",
  stream: true,
  messages: [{ role: "user", content: "<user_query>\nsay pong\n</user_query>" }],
};

test("the metering point forwards a streamed answer chunk by chunk and reads its usage; the key reaches the upstream and no record", async (t) => {
  const mock = await startMockModel({ promptTokensFromBody: true, script: { chunkDelayMs: 150 } });
  t.after(() => mock.close());
  const calls: MeteredCall[] = [];
  const point = await startMeteringPoint({ upstream: mock.baseUrl, onCall: (c) => void calls.push(c) });
  t.after(() => point.close());
  point.beginTurn("p-1");
  const main = await post(`${point.baseUrl}/chat/completions`, CHAT, {
    authorization: `Bearer ${CANARY}`,
    "x-grok-req-id": "p-1",
  });
  assert.equal(main.status, 200);
  assert.match(main.text, /data: \[DONE\]/);
  // Three words at 150 ms each: a buffered answer would arrive all at once at the end.
  assert.ok(
    main.endAt - main.firstByteAt >= 250,
    `first byte ${main.endAt - main.firstByteAt} ms before the end: the stream was not buffered`,
  );
  const summary = await post(
    `${point.baseUrl}/chat/completions`,
    {
      ...CHAT,
      messages: [
        ...CHAT.messages,
        { role: "user", content: "<system-reminder>Write an ultra-short dashboard line</system-reminder>" },
      ],
    },
    { authorization: `Bearer ${CANARY}`, "x-grok-req-id": "xai-turn-summary-1" },
  );
  assert.equal(summary.status, 200);
  const served = mock.requests.filter((r) => r.served).map((r) => r.served!);
  assert.equal(served.length, 2);
  assert.deepEqual(
    calls.map((c) => [c.kind, c.promptId, c.inputTokens, c.outputTokens, c.model]),
    [
      ["main", "p-1", served[0]!.promptTokens, served[0]!.completionTokens, "mock-model"],
      ["turn_summary", "p-1", served[1]!.promptTokens, served[1]!.completionTokens, "mock-model"],
    ],
  );
  assert.deepEqual(
    point.callsOf("p-1").map((c) => c.kind),
    ["main", "turn_summary"],
  );
  assert.ok(!JSON.stringify(calls).includes(CANARY), "the key is in no metered record");
});

test("the key passes to the upstream byte for byte, in the proxy form (HTTP_PROXY) as in the base-URL form", async (t) => {
  const seen: IncomingHttpHeaders[] = [];
  const upstream = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ model: "m", choices: [], usage: { prompt_tokens: 7, completion_tokens: 2 } }));
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  t.after(() => upstream.close());
  const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const calls: MeteredCall[] = [];
  const point = await startMeteringPoint({ onCall: (c) => void calls.push(c) });
  t.after(() => point.close());
  point.beginTurn("p-2");
  const answer = await post(
    `${origin}/v1/chat/completions`,
    { model: "m", stream: false },
    { authorization: `Bearer ${CANARY}`, "x-grok-req-id": "p-2" },
    point.origin,
  );
  assert.equal(answer.status, 200);
  assert.equal(seen[0]?.authorization, `Bearer ${CANARY}`);
  assert.deepEqual(
    calls.map((c) => [c.kind, c.inputTokens, c.outputTokens]),
    [["main", 7, 2]],
    "a JSON answer's usage is read too",
  );
});

test("a side call the admission check refuses never reaches the model; an unreachable upstream closes the connection with no answer", async (t) => {
  const mock = await startMockModel({});
  t.after(() => mock.close());
  const point = await startMeteringPoint({
    upstream: mock.baseUrl,
    admit: (c) => (c.kind === "turn_summary" ? "over budget" : undefined),
  });
  t.after(() => point.close());
  point.beginTurn("p-3");
  const refused = await post(`${point.baseUrl}/chat/completions`, CHAT, { "x-grok-req-id": "xai-turn-summary-2" });
  assert.equal(refused.status, 402);
  assert.match(refused.text, /over budget/);
  assert.equal(mock.requests.filter((r) => r.method === "POST").length, 0, "nothing reached the model");
  assert.deepEqual(
    point.callsOf("p-3").map((c) => [c.kind, c.refused]),
    [["turn_summary", true]],
  );

  const dead = createServer();
  await new Promise<void>((resolve) => dead.listen(0, "127.0.0.1", resolve));
  const deadUrl = `http://127.0.0.1:${(dead.address() as AddressInfo).port}/v1`;
  await new Promise<void>((resolve) => dead.close(() => resolve()));
  const cut = await startMeteringPoint({ upstream: deadUrl });
  t.after(() => cut.close());
  cut.beginTurn("p-4");
  await assert.rejects(
    post(`${cut.baseUrl}/chat/completions`, CHAT, { authorization: `Bearer ${CANARY}`, "x-grok-req-id": "p-4" }),
    (e: NodeJS.ErrnoException) => e.code === "ECONNRESET" && !String(e.message).includes(CANARY),
  );
  assert.equal(await cut.settled("p-4", 1_000), true);
  assert.deepEqual(
    cut.callsOf("p-4").map((c) => c.status),
    [0],
  );
});

test("usage is read from each dialect's answer: Chat Completions, Responses (response.completed) and Messages (start + delta)", () => {
  const chat: MeteredCall = { kind: "main", requestBytes: 0, status: 200 };
  readUsageInto(chat, {
    model: "m",
    usage: {
      prompt_tokens: 10,
      completion_tokens: 4,
      prompt_tokens_details: { cached_tokens: 6 },
      completion_tokens_details: { reasoning_tokens: 2 },
    },
  });
  assert.deepEqual(
    [chat.inputTokens, chat.outputTokens, chat.cachedTokens, chat.reasoningTokens, chat.model],
    [10, 4, 6, 2, "m"],
  );
  const responses: MeteredCall = { kind: "main", requestBytes: 0, status: 200 };
  readUsageInto(responses, {
    type: "response.completed",
    response: { id: "r", usage: { input_tokens: 12, output_tokens: 3, total_tokens: 15 } },
  });
  assert.deepEqual([responses.inputTokens, responses.outputTokens], [12, 3]);
  const messages: MeteredCall = { kind: "main", requestBytes: 0, status: 200 };
  readUsageInto(messages, {
    type: "message_start",
    message: { model: "c", usage: { input_tokens: 20, output_tokens: 1 } },
  });
  readUsageInto(messages, { type: "message_delta", usage: { output_tokens: 9 } });
  assert.deepEqual([messages.inputTokens, messages.outputTokens], [20, 9]);
  const none: MeteredCall = { kind: "main", requestBytes: 0, status: 200 };
  readUsageInto(none, { choices: [{ delta: { content: "usage" } }] });
  assert.equal(none.inputTokens, undefined, "a word in the text is not usage");
});

test("once a turn's budget is spent at the metering point its next model call is refused (402) after ending the turn over budget, and a call grok sends late for that turn is refused too", async (t) => {
  const mock = await startMockModel({});
  t.after(() => mock.close());
  // The xAI route: grok would be given the metering point as GROK_XAI_API_BASE_URL (no config.toml names a model).
  const { meter, env } = await SideCallMeter.start(
    { GROK_XAI_API_BASE_URL: mock.baseUrl, GROK_HOME: "/nonexistent/grok-home" },
    undefined,
  );
  t.after(() => meter.close());
  assert.equal(meter.metered, true);
  const url = `${env.GROK_XAI_API_BASE_URL}/chat/completions`;
  const ended: Diagnostic[] = [];
  meter.beginTurn("p-5", { maxTokens: 5 }, undefined, (d) => void ended.push(d));
  const first = await post(url, CHAT, { "x-grok-req-id": "p-5" });
  assert.equal(first.status, 200, "the first call is never refused");
  assert.equal(ended.length, 0);
  const next = await post(url, CHAT, { "x-grok-req-id": "p-5" });
  assert.equal(next.status, 402, next.text);
  assert.match(next.text, /refused this model call: the turn has already spent more than its budget \(14 tokens/);
  assert.deepEqual(
    ended.map((d) => d.code),
    ["BUDGET_EXCEEDED"],
    "the turn was ended over budget before the refusal",
  );
  assert.match(ended[0]!.message, /14 tokens over 1 model call\(s\), more than its budget of 5/);
  assert.equal(mock.requests.filter((r) => r.method === "POST").length, 1, "one call reached the model");

  const result = await meter.finishTurn(
    {
      promptId: "p-5",
      stopReason: "cancelled",
      text: "pong",
      diagnostic: ended[0]!,
      usage: { inputTokens: 11, outputTokens: 3, modelCalls: 1 },
      echoed: true,
    },
    { maxTokens: 5 },
  );
  assert.equal(result.sideCalls, undefined, "the refused call served nothing");
  meter.beginTurn("p-6", undefined);
  const late = await post(url, CHAT, { "x-grok-req-id": "p-5" });
  assert.equal(late.status, 402, "a call for the turn that ended over budget never reaches the model");
  const fresh = await post(url, CHAT, { "x-grok-req-id": "p-6" });
  assert.equal(fresh.status, 200, "the next turn runs");
  assert.equal(mock.requests.filter((r) => r.method === "POST").length, 2);
});
