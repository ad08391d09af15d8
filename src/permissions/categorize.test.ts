import { test } from "node:test";
import assert from "node:assert/strict";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { categorize, type PermissionCategory } from "./categorize.js";

// Recorded from grok 1.0.41 (transcript-tool.ndjson, request id 0): the built-in `write` tool.
const recordedWrite = {
  sessionId: "01a2298d-ccb5-7b70-9289-d785a95c9621",
  toolCall: {
    toolCallId: "call_mock_1",
    kind: "edit",
    title: "Write `/home/dev/project/hello.txt`",
    rawInput: { variant: "Write", file_path: "/home/dev/project/hello.txt", content: "hi from mock tool\n" },
    _meta: {
      "x.ai/tool": {
        version: 1,
        name: "write",
        kind: "write",
        namespace: "opencode",
        label: "Write",
        read_only: false,
        input: { path: "/home/dev/project/hello.txt" },
      },
    },
  },
  options: [
    { optionId: "allow-edits-session", name: "Yes, allow all edits during this session", kind: "allow_always" },
    { optionId: "allow-once", name: "Yes", kind: "allow_once" },
    { optionId: "reject-once", name: "No, and tell Grok what to do differently", kind: "reject_once" },
  ],
} as RequestPermissionRequest;

function call(toolCall: Record<string, unknown>): RequestPermissionRequest {
  return { sessionId: "s", toolCall: { toolCallId: "t", ...toolCall }, options: [] } as RequestPermissionRequest;
}

test("categorizes grok's recorded write request as edit", () => {
  assert.equal(categorize(recordedWrite), "edit");
});

const table: Array<[string, Record<string, unknown>, PermissionCategory]> = [
  ["read kind", { kind: "read", title: "Read `a.txt`" }, "read"],
  ["local search", { kind: "search", title: "grep TODO" }, "read"],
  ["delete kind", { kind: "delete", title: "Delete `a.txt`" }, "edit"],
  ["move kind", { kind: "move", title: "Move a to b" }, "edit"],
  ["execute kind", { kind: "execute", title: "ls -la" }, "execute"],
  [
    "terminal by x.ai name",
    { kind: "other", title: "Run", _meta: { "x.ai/tool": { name: "run_terminal_command" } } },
    "execute",
  ],
  ["fetch kind", { kind: "fetch", title: "https://example.com" }, "network"],
  [
    "web search by name",
    { kind: "search", title: "Search the web", _meta: { "x.ai/tool": { name: "web_search" } } },
    "network",
  ],
  ["x search by name", { title: "x_keyword_search" }, "network"],
  [
    "grok use_tool",
    {
      kind: "other",
      title: "use_tool",
      rawInput: { tool_name: "host-tools__echo", tool_input: {} },
      _meta: { "x.ai/tool": { name: "use_tool", namespace: "grok_build" } },
    },
    "mcp",
  ],
  ["qualified MCP title", { kind: "other", title: "host-tools__host_echo", rawInput: { variant: "UseTool" } }, "mcp"],
  ["think", { kind: "think", title: "Thinking" }, "other"],
  ["nothing at all", {}, "other"],
  ["name stricter than kind", { kind: "read", title: "x", _meta: { "x.ai/tool": { name: "bash" } } }, "execute"],
  ["kind stricter than name", { kind: "edit", title: "x", _meta: { "x.ai/tool": { name: "read" } } }, "edit"],
];

for (const [label, toolCall, expected] of table) {
  test(`categorizes ${label} as ${expected}`, () => {
    assert.equal(categorize(call(toolCall)), expected);
  });
}

// Recorded from codex-acp 2.6.0 against the mock: an MCP tool approval is a bare `{kind:"execute"}` tool call
// with `_meta.is_mcp_tool_approval` on the request.
const recordedCodexMcp = {
  sessionId: "01a22de2-7a43-7683-80aa-2a2ddb1c2b2d",
  toolCall: { toolCallId: "call_mock_1_0", kind: "execute", status: "pending" },
  options: [
    { optionId: "allow_once", name: "Allow", kind: "allow_once" },
    { optionId: "allow_session", name: "Allow for this session", kind: "allow_always" },
    { optionId: "cancel", name: "Cancel", kind: "reject_once" },
  ],
  _meta: { is_mcp_tool_approval: true },
} as RequestPermissionRequest;

test("Codex's MCP tool approval (bare execute tool call, is_mcp_tool_approval) is mcp", () => {
  assert.equal(categorize(recordedCodexMcp), "mcp");
});

test("the MCP approval marker never loosens a tool call that names a shell command", () => {
  const named = {
    ...recordedCodexMcp,
    toolCall: { ...recordedCodexMcp.toolCall, title: "rm -rf build", rawInput: { command: "rm -rf build" } },
  } as RequestPermissionRequest;
  assert.equal(categorize(named), "execute");
});

test('an approval titled "Approve MCP tool call" with rawInput.server_name and no kind is mcp', () => {
  assert.equal(
    categorize(
      call({
        toolCallId: "c1",
        title: "Approve MCP tool call",
        rawInput: { server_name: "host-tools", tool_name: "shout" },
      }),
    ),
    "mcp",
  );
});

test('Gemini\'s MCP approval (kind other, title "<tool> (<server> MCP Server)") is mcp', () => {
  // Recorded from @google/gemini-cli 0.61.0 against the mock.
  assert.equal(
    categorize(
      call({
        toolCallId: "mcp_host-tools_shout__mcp_host-tools_shout_1_0",
        kind: "other",
        status: "pending",
        title: "shout (host-tools MCP Server)",
      }),
    ),
    "mcp",
  );
});
