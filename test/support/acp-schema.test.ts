/*
 * ACP schema validator: every standard ACP message grok 1.0.41 sent or received in the recorded transcripts
 * validates, grok's extension notifications match the hand-written schemas, and broken messages fail loudly.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAcpValidator, validateAcpMessage, type AcpDirection } from "./acp-schema.js";
import { TRANSCRIPTS } from "./replay-agent.js";

const transcriptsDir = fileURLToPath(TRANSCRIPTS);

interface Line {
  dir: "in" | "out";
  msg: Record<string, unknown>;
}

function transcript(file: string): Array<{ direction: AcpDirection; msg: Record<string, unknown> }> {
  return readFileSync(join(transcriptsDir, file), "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line)
    .map((l) => {
      const frame = l.msg.__leader_frame;
      if (frame === undefined) return { direction: l.dir === "out" ? "client" : "agent", msg: l.msg } as const;
      return frame === "acp"
        ? ({ direction: l.dir === "out" ? "client" : "agent", msg: l.msg.payload as Record<string, unknown> } as const)
        : undefined;
    })
    .filter((x): x is { direction: AcpDirection; msg: Record<string, unknown> } => x !== undefined);
}

const isExtension = (m: Record<string, unknown>) =>
  typeof m.method === "string" && (m.method.startsWith("_") || m.method.startsWith("x.ai/"));

test("every standard ACP message in every recorded transcript validates against the SDK schema", () => {
  const files = readdirSync(transcriptsDir).filter((f) => f.endsWith(".ndjson"));
  assert.ok(files.length >= 5, `only ${files.length} transcripts found`);
  let checked = 0;
  const failures: string[] = [];
  const perFile = new Map<string, number>();
  for (const file of files) {
    const validator = createAcpValidator();
    const extensionIds = new Set<string>();
    for (const { direction, msg } of transcript(file)) {
      if (isExtension(msg) && "id" in msg) extensionIds.add(`${direction}:${String(msg.id)}`);
      const isExtensionAnswer =
        !("method" in msg) && extensionIds.has(`${direction === "client" ? "agent" : "client"}:${String(msg.id)}`);
      const result = validator.validate(msg, direction);
      if (isExtension(msg) || isExtensionAnswer) continue;
      checked++;
      perFile.set(file, (perFile.get(file) ?? 0) + 1);
      if (!result.ok)
        failures.push(`${file} ${direction} ${JSON.stringify(msg.method ?? msg.id)}: ${result.errors.join("; ")}`);
      else assert.ok(result.def, `${file}: a standard message validated without a $def`);
    }
  }
  assert.deepEqual(failures, []);
  assert.deepEqual(
    files.filter((f) => (perFile.get(f) ?? 0) < 4),
    [],
    "every transcript carries standard messages",
  );
  assert.ok(checked >= 70, `only ${checked} standard messages checked`);
});

test("grok's queue, MCP-ready and prompt-complete notifications match the hand-written extension schemas", () => {
  const seen = new Map<string, number>();
  for (const file of ["transcript-prompt.ndjson", "transcript-tool.ndjson", "transcript-leader1.ndjson"]) {
    for (const { direction, msg } of transcript(file)) {
      if (
        ![
          "_x.ai/queue/changed",
          "_x.ai/mcp_initialized",
          "_x.ai/session/prompt_complete",
          "_x.ai/session/setup",
        ].includes(String(msg.method))
      )
        continue;
      const result = validateAcpMessage(msg, direction);
      assert.ok(result.ok, `${file} ${String(msg.method)}: ${result.errors.join("; ")}`);
      assert.equal(result.def, `notification:${String(msg.method)}`);
      seen.set(String(msg.method), (seen.get(String(msg.method)) ?? 0) + 1);
    }
  }
  assert.equal(seen.size, 4, `seen: ${[...seen.keys()].join(", ")}`);
});

test("a session/update whose agent_message_chunk lacks content fails with an error naming the SessionNotification def", () => {
  const result = validateAcpMessage(
    {
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk" } },
    },
    "agent",
  );
  assert.equal(result.ok, false);
  assert.equal(result.def, "SessionNotification");
  assert.ok(
    result.errors.some((e) => e.startsWith("SessionNotification/update") && e.includes("content")),
    result.errors.join("\n"),
  );
});

test("a prompt result with an unknown stopReason fails against PromptResponse once the request id is remembered", () => {
  const v = createAcpValidator();
  assert.equal(
    v.validate(
      {
        jsonrpc: "2.0",
        id: 7,
        method: "session/prompt",
        params: { sessionId: "s", prompt: [{ type: "text", text: "hi" }] },
      },
      "client",
    ).ok,
    true,
  );
  const result = v.validate({ jsonrpc: "2.0", id: 7, result: { stopReason: "finished" } }, "agent");
  assert.equal(result.ok, false);
  assert.equal(result.def, "PromptResponse");
  assert.ok(
    result.errors.some((e) => e.includes("stopReason")),
    result.errors.join("\n"),
  );
});

test("a response to a request nobody sent is reported instead of passing unchecked", () => {
  const result = createAcpValidator().validate({ jsonrpc: "2.0", id: 42, result: {} }, "agent");
  assert.equal(result.ok, false);
  assert.match(result.errors[0] ?? "", /answers no request/);
});

test("a permission request from the agent with id 0 is checked as RequestPermissionRequest and its answer as the response", () => {
  const v = createAcpValidator();
  const ask = v.validate(
    {
      jsonrpc: "2.0",
      id: 0,
      method: "session/request_permission",
      params: {
        sessionId: "s",
        toolCall: { toolCallId: "t" },
        options: [{ optionId: "allow-once", name: "Yes", kind: "allow_once" }],
      },
    },
    "agent",
  );
  assert.deepEqual([ask.ok, ask.def], [true, "RequestPermissionRequest"]);
  const bad = v.validate({ jsonrpc: "2.0", id: 0, result: { outcome: { outcome: "maybe" } } }, "client");
  assert.deepEqual([bad.ok, bad.def], [false, "RequestPermissionResponse"]);
});

test("an _x.ai/mcp_initialized without mcpToolCount and a set_model without modelId fail their extension schemas", () => {
  const mcp = validateAcpMessage(
    { jsonrpc: "2.0", method: "_x.ai/mcp_initialized", params: { sessionId: "s", elapsedMs: 3 } },
    "agent",
  );
  assert.equal(mcp.ok, false);
  assert.ok(
    mcp.errors.some((e) => e.includes("mcpToolCount")),
    mcp.errors.join("\n"),
  );
  const setModel = validateAcpMessage(
    { jsonrpc: "2.0", id: 99, method: "session/set_model", params: { sessionId: "s" } },
    "client",
  );
  assert.equal(setModel.ok, false);
  assert.equal(setModel.def, "request:session/set_model");
});

test("a message without jsonrpc 2.0 or with an unknown standard method is rejected", () => {
  assert.equal(validateAcpMessage({ id: 1, method: "initialize", params: {} }, "client").ok, false);
  const unknown = validateAcpMessage({ jsonrpc: "2.0", id: 5, method: "x.ai/session/info", params: {} }, "client");
  assert.equal(unknown.ok, false);
  assert.match(unknown.errors[0] ?? "", /unknown request method/);
});
