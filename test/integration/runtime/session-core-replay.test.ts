/*
 * Session core at message level: the recorded grok 1.0.41 transcripts, replayed over an in-memory stream,
 * produce the events and turn results the seed promises — no process, no network.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { connectAcp, SessionCore, type SeatEvent } from "../../../src/acp/index.js";
import { readTranscript, replayStream } from "../../support/replay-agent.js";

async function replay(file: string, answerPermission = true) {
  const lines = readTranscript(file);
  const { stream, sent } = replayStream(lines);
  const events: SeatEvent[] = [];
  let core!: SessionCore;
  const permissionIds: unknown[] = [];
  const peer = await connectAcp(stream, {
    onSessionUpdate: (n) => core.handleUpdate(n),
    onExtNotification: (m, p) => core.handleExt(m, p),
    onPermissionRequest: async (request) => {
      permissionIds.push(request.toolCall.toolCallId);
      const option = request.options.find((o) => o.kind === (answerPermission ? "allow_always" : "reject_once"));
      return { outcome: { outcome: "selected", optionId: option!.optionId } };
    },
  });
  core = new SessionCore(peer, { onEvent: (e) => void events.push(e) });
  await peer.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
  await peer.request("authenticate", { methodId: "xai.api_key" });
  const created = await peer.request<{ sessionId: string }>("session/new", {
    cwd: "/home/dev/project",
    mcpServers: [],
  });
  core.bind(created.sessionId);
  return { core, events, sent, permissionIds, peer, sessionId: created.sessionId };
}

test("the recorded prompt turn yields text in order, usage, queue acks and an echoed result", async () => {
  const { core, events, peer } = await replay("transcript-prompt.ndjson");
  const result = await core.prompt("say pong", { promptId: "mine-1" });
  assert.equal(result.stopReason, "end_turn");
  assert.equal(
    result.text,
    events
      .filter((e) => e.type === "text")
      .map((e) => (e.type === "text" ? e.text : ""))
      .join(""),
  );
  assert.ok(result.text.length > 0);
  assert.equal(result.echoed, true, "the result echoes the session and our prompt ID");
  assert.equal(result.usage?.totalTokens, 14);
  const queue = events.filter((e) => e.type === "queue");
  assert.ok(
    queue.some((e) => e.type === "queue" && e.queue.entryIds.includes("mine-1")),
    "queued",
  );
  assert.ok(
    queue.some((e) => e.type === "queue" && e.queue.runningPromptId === "mine-1"),
    "running",
  );
  assert.ok(events.some((e) => e.type === "prompt_complete" && e.promptId === "mine-1"));
  assert.equal(events.at(-1)?.type, "done");
  peer.close();
});

test("the recorded tool turn answers permission request id 0 and reports tool_start, tool_end and text", async () => {
  const { core, events, sent, permissionIds, peer } = await replay("transcript-tool.ndjson");
  const recordedAsk = readTranscript("transcript-tool.ndjson").find(
    (l) => l.msg.method === "session/request_permission",
  );
  const result = await core.prompt("TOOLTEST write a file");
  assert.equal(result.stopReason, "end_turn");
  assert.deepEqual(permissionIds, [recordedAsk?.msg.params.toolCall.toolCallId]);
  assert.match(String(permissionIds[0]), /^call_mock_/, "the tool call id is the mock model's");
  const answer = sent.find((m) => !("method" in m) && (m as { id?: unknown }).id === 0) as
    | { result?: { outcome: { optionId: string } } }
    | undefined;
  assert.equal(answer?.result?.outcome.optionId, "allow-edits-session", "id 0 was answered, not dropped");
  const start = events.findIndex((e) => e.type === "tool_start");
  const end = events.findIndex((e) => e.type === "tool_end");
  assert.ok(start >= 0 && end > start);
  const endEvent = events[end];
  assert.equal(
    endEvent?.type === "tool_end" && endEvent.title,
    "Write `/home/dev/project/hello.txt`",
    "the latest title is carried to tool_end",
  );
  assert.ok(result.text.length > 0);
  peer.close();
});

test("the session core sends each prompt with its caller-created prompt ID and no escaped slashes", async () => {
  const { core, sent, peer } = await replay("transcript-prompt.ndjson");
  await core.prompt("say pong", { promptId: "caller/chosen-7" });
  const prompt = sent.find((m) => (m as { method?: string }).method === "session/prompt") as {
    params: { _meta: { promptId: string } };
  };
  assert.equal(prompt.params._meta.promptId, "caller/chosen-7");
  assert.doesNotMatch(JSON.stringify(sent), /\\\//);
  peer.close();
});
