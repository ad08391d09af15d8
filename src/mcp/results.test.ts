import { test } from "node:test";
import assert from "node:assert/strict";
import { SeatError } from "../errors.js";
import { MAX_ERROR_CHARS, toolError } from "./results.js";

function textOf(result: ReturnType<typeof toolError>): string {
  const [first] = result.content;
  assert.equal(first?.type, "text");
  return (first as { text: string }).text;
}

test("a tool error quoting a huge argument stays bounded and still ends with its code", () => {
  const huge = "n".repeat(100_000);
  const result = toolError(new SeatError("MCP_ARGUMENT_INVALID", `${JSON.stringify(huge)} is not a session name.`));
  const text = textOf(result);
  assert.ok(text.length < MAX_ERROR_CHARS + 100, `length ${text.length}`);
  assert.match(text, /characters left out/);
  assert.match(text, /is not a session name\. \[MCP_ARGUMENT_INVALID\]$/);
  const meta = result._meta?.["grok-seat/error"] as { code: string; message: string };
  assert.equal(meta.code, "MCP_ARGUMENT_INVALID");
  assert.ok(meta.message.length < MAX_ERROR_CHARS + 100);
});

test("a short tool error is kept whole", () => {
  const text = textOf(
    toolError(new SeatError("MCP_AGENT_NOT_ALLOWED", 'Agent "codex" is not one this server drives.')),
  );
  assert.equal(text, 'Agent "codex" is not one this server drives. [MCP_AGENT_NOT_ALLOWED]');
});
