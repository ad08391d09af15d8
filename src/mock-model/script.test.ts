/*
 * Mock model script: request classification and reply choice, on request shapes recorded from grok 1.0.41.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chooseReply, classifyRequest, lastUserQuery, parseScript } from "./script.js";

const query = (text: string) => ({ role: "user", content: `<user_query>\n${text}\n</user_query>` });

test("classifies title, summary, title-refresh, main turn and tool follow-up like grok sends them", () => {
  assert.equal(
    classifyRequest(undefined, {
      tool_choice: { type: "function", function: { name: "session_title" } },
      messages: [query("hi")],
    }),
    "title",
  );
  assert.equal(classifyRequest("xai-turn-summary-1", { messages: [query("hi")] }), "summary");
  assert.equal(classifyRequest("xai-title-refresh-1", { messages: [query("hi")] }), "title_refresh");
  assert.equal(classifyRequest("p1", { messages: [{ role: "system", content: "…" }, query("hi")] }), "main");
  const followup = [query("hi"), { role: "assistant", content: "", tool_calls: [] }, { role: "tool", content: "done" }];
  assert.equal(classifyRequest("p1", { messages: followup }), "tool_followup");
});

test("matches the last user query, scripts tool rounds in order and ends a loop past the script", () => {
  const script = parseScript(
    JSON.stringify({
      rules: [{ match: "/TOOL\\d/i", replies: [{ toolCalls: [{ name: "write", arguments: {} }] }, { text: "after" }] }],
    }),
  );
  const first = [query("older"), { role: "assistant", content: "x" }, query("run tool7")];
  assert.equal(lastUserQuery(first), "run tool7");
  assert.equal(chooseReply(script, "main", { messages: first }).toolCalls?.[0]?.name, "write");
  const second = [...first, { role: "assistant", content: "" }, { role: "tool", content: "ok" }];
  assert.equal(chooseReply(script, "tool_followup", { messages: second }).text, "after");
  assert.equal(
    chooseReply(script, "summary", { messages: second }).toolCalls,
    undefined,
    "summaries never get tool calls",
  );
  assert.equal(chooseReply({}, "main", { messages: [query("anything")] }).text, "pong from mock");
});

test("a malformed script is refused with a clear error", () => {
  assert.throws(() => parseScript("[1]"), /match|replies|object/);
  assert.throws(() => parseScript(JSON.stringify({ rules: [{ match: 3 }] })), /string `match`/);
});

test("a reply can quote the newest tool result the model was sent", () => {
  const script = {
    rules: [
      {
        match: "count",
        replies: [{ toolCalls: [{ name: "use_tool", arguments: {} }] }, { text: "tool said: {{last_tool_result}}" }],
      },
    ],
  };
  const history = [query("count words"), { role: "assistant", content: "" }, { role: "tool", content: " 5 words " }];
  assert.equal(chooseReply(script, "tool_followup", { messages: history }).text, "tool said: 5 words");
});
