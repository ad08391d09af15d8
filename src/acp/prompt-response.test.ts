/*
 * Malformed session/prompt results (found by the R4 fuzz campaign, bench/fuzz.ts): an answer without a stop
 * reason is a protocol error the caller hears about, never a silent clean turn.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { connectAcp } from "./connection.js";
import { SessionCore } from "./session-core.js";

/** A client SessionCore wired to an in-memory agent that answers the first prompt with `result`. */
async function turnAnsweredWith(result: unknown, before: string[] = []) {
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const fromClient = new TransformStream<Uint8Array, Uint8Array>();
  const writer = toClient.writable.getWriter();
  const reader = fromClient.readable.getReader();
  const enc = new TextEncoder();
  const core: SessionCore = new SessionCore(
    await connectAcp(ndJsonStream(fromClient.writable, toClient.readable), {
      onSessionUpdate: (n) => core.handleUpdate(n),
      onExtNotification: (m, p) => core.handleExt(m, p),
      onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
    }),
  );
  core.bind("s1");
  const turn = core.prompt("hello", { promptId: "p1" });
  const { value } = await reader.read();
  const request = JSON.parse(new TextDecoder().decode(value)) as { id: number; method: string };
  assert.equal(request.method, "session/prompt");
  for (const line of before) await writer.write(enc.encode(`${line}\n`));
  await writer.write(enc.encode(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n`));
  const outcome = await turn;
  await writer.close();
  await reader.cancel();
  return outcome;
}

test('a prompt answered with a non-object result (id 0, result "") reports ACP_PROTOCOL_ERROR instead of a clean turn', async () => {
  for (const result of ["", null, 42, {}, { stopReason: 7 }]) {
    const outcome = await turnAnsweredWith(result);
    assert.equal(outcome.stopReason, undefined, JSON.stringify(result));
    assert.equal(outcome.diagnostic?.code, "ACP_PROTOCOL_ERROR", JSON.stringify(result));
    assert.match(outcome.diagnostic?.message ?? "", /without a stop reason/);
  }
});

test("text streamed before a malformed prompt result is kept as the answer", async () => {
  const chunk = JSON.stringify({
    jsonrpc: "2.0",
    method: "session/update",
    params: {
      sessionId: "s1",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "partial" } },
    },
  });
  const outcome = await turnAnsweredWith("", [chunk]);
  assert.equal(outcome.text, "partial");
  assert.equal(outcome.diagnostic, undefined);
});

test("a well-formed prompt result still ends the turn as the agent said", async () => {
  const outcome = await turnAnsweredWith({ stopReason: "end_turn", _meta: { promptId: "p1", sessionId: "s1" } });
  assert.equal(outcome.stopReason, "end_turn");
  assert.equal(outcome.echoed, true);
  assert.equal(outcome.diagnostic, undefined);
});
