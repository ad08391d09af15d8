/*
 * Update mapping, unit level: recorded grok 1.0.41 notifications map to the events the seed names.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SessionNotification } from "@agentclientprotocol/sdk";
import { mapExtNotification, mapSessionUpdate, mapTextChunk, readUsage } from "./updates.js";

const sid = "019add16-c6c4-7701-ab56-6ba1bb40d1df";
const note = (update: Record<string, unknown>, meta?: Record<string, unknown>) =>
  ({ sessionId: sid, update, ...(meta ? { _meta: meta } : {}) }) as unknown as SessionNotification;

test("agent_message_chunk maps to text carrying the prompt ID from params._meta", () => {
  const events = mapSessionUpdate(
    note(
      { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong " } },
      { promptId: "p1", eventId: `${sid}-7` },
    ),
  );
  assert.deepEqual(events, [{ type: "text", text: "pong ", promptId: "p1" }]);
});

test("agent_thought_chunk maps to thinking and user_message_chunk to user_text", () => {
  assert.deepEqual(
    mapSessionUpdate(note({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hmm" } })),
    [{ type: "thinking", text: "hmm" }],
  );
  assert.deepEqual(
    mapSessionUpdate(note({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "hi" } })),
    [{ type: "user_text", text: "hi" }],
  );
});

test("tool_call maps to tool_start with grok's own tool name; only a terminal tool_call_update maps to tool_end", () => {
  const start = mapSessionUpdate(
    note({
      sessionUpdate: "tool_call",
      toolCallId: "call_mock_1",
      title: "write",
      rawInput: { file_path: "/x" },
      _meta: { "x.ai/tool": { name: "write", kind: "write" } },
    }),
  );
  assert.deepEqual(start, [
    {
      type: "tool_start",
      toolCallId: "call_mock_1",
      title: "write",
      kind: undefined,
      toolName: "write",
      rawInput: { file_path: "/x" },
    },
  ]);
  assert.deepEqual(
    mapSessionUpdate(
      note({ sessionUpdate: "tool_call_update", toolCallId: "call_mock_1", kind: "edit", title: "Write `/x`" }),
    ),
    [],
  );
  assert.deepEqual(
    mapSessionUpdate(note({ sessionUpdate: "tool_call_update", toolCallId: "call_mock_1", status: "in_progress" })),
    [],
  );
  const end = mapSessionUpdate(
    note({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_mock_1",
      status: "completed",
      rawOutput: { ok: true },
    }),
  );
  assert.deepEqual(end, [
    { type: "tool_end", toolCallId: "call_mock_1", title: undefined, status: "completed", rawOutput: { ok: true } },
  ]);
  const failed = mapSessionUpdate(note({ sessionUpdate: "tool_call_update", toolCallId: "c2", status: "failed" }));
  assert.equal(failed[0]?.type === "tool_end" && failed[0].status, "failed");
});

test("plan entries keep content, priority and status; unknown update kinds map to nothing", () => {
  const plan = mapSessionUpdate(
    note({ sessionUpdate: "plan", entries: [{ content: "read", priority: "high", status: "completed" }, "garbage"] }),
  );
  assert.deepEqual(plan, [{ type: "plan", entries: [{ content: "read", priority: "high", status: "completed" }] }]);
  assert.deepEqual(mapSessionUpdate(note({ sessionUpdate: "available_commands_update", availableCommands: [] })), []);
  assert.deepEqual(mapSessionUpdate(note({ sessionUpdate: "something_new" })), []);
});

test("grok's queue, prompt_complete and mcp_initialized extensions become typed events", () => {
  assert.deepEqual(
    mapExtNotification("_x.ai/queue/changed", {
      sessionId: sid,
      entries: [{ id: "ctl-B", position: 0 }],
      runningPromptId: "ctl-A",
    }),
    [{ type: "queue", queue: { sessionId: sid, entryIds: ["ctl-B"], runningPromptId: "ctl-A" } }],
  );
  assert.deepEqual(
    mapExtNotification("_x.ai/session/prompt_complete", {
      sessionId: sid,
      promptId: "p1",
      stopReason: "end_turn",
      agentResult: null,
    }),
    [{ type: "prompt_complete", sessionId: sid, promptId: "p1", stopReason: "end_turn" }],
  );
  assert.deepEqual(mapExtNotification("_x.ai/mcp_initialized", { sessionId: sid, mcpToolCount: 2, elapsedMs: 400 }), [
    { type: "mcp_initialized", sessionId: sid, toolCount: 2 },
  ]);
  assert.deepEqual(mapExtNotification("_x.ai/session/setup", { method: "session/new", phase: "auth" }), []);
  assert.deepEqual(mapExtNotification("_x.ai/queue/changed", "not an object"), []);
});

test("usage reads camelCase and snake_case alike and drops absent fields", () => {
  assert.deepEqual(readUsage({ inputTokens: 11, outputTokens: 3, totalTokens: 14, modelCalls: 1 }), {
    inputTokens: 11,
    outputTokens: 3,
    totalTokens: 14,
    modelCalls: 1,
  });
  assert.deepEqual(readUsage({ input_tokens: 5, reasoning_tokens: 0 }), { inputTokens: 5, reasoningTokens: 0 });
  assert.equal(readUsage({}), undefined);
  assert.equal(readUsage("14"), undefined);
});

test("grok's per-call response_completed becomes a model_usage event of one model call; other session notifications map to nothing", () => {
  const events = mapExtNotification("_x.ai/session_notification", {
    sessionId: "s1",
    update: {
      sessionUpdate: "response_completed",
      usage: {
        input_tokens: 11,
        output_tokens: 3,
        cache_read_input_tokens: 2,
        cache_creation_input_tokens: 1,
        reasoning_tokens: 4,
      },
    },
  });
  assert.deepEqual(events, [
    {
      type: "model_usage",
      usage: {
        inputTokens: 11,
        outputTokens: 3,
        cachedReadTokens: 2,
        cacheCreationTokens: 1,
        reasoningTokens: 4,
        modelCalls: 1,
      },
    },
  ]);
  assert.deepEqual(
    mapExtNotification("_x.ai/session_notification", {
      sessionId: "s1",
      update: { sessionUpdate: "session_summary_generated", session_summary: "x" },
    }),
    [],
  );
  assert.deepEqual(
    mapExtNotification("_x.ai/session_notification", {
      sessionId: "s1",
      update: { sessionUpdate: "response_completed" },
    }),
    [],
  );
});

test("mapTextChunk gives the same text event mapSessionUpdate gives, prompt ID from params._meta or else update._meta", () => {
  const cases = [
    note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong " } }, { promptId: "p1" }),
    note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "pong " }, _meta: { promptId: "p2" } }),
    note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "no id" } }),
    note({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } }, { promptId: "p1" }),
    note({ sessionUpdate: "agent_message_chunk", content: { type: "image", data: "x", mimeType: "image/png" } }),
  ];
  for (const n of cases) {
    const one = mapTextChunk(n);
    assert.deepEqual(one === undefined ? [] : [one], mapSessionUpdate(n));
  }
  assert.deepEqual(mapTextChunk(cases[1]!), { type: "text", text: "pong ", promptId: "p2" });
});
