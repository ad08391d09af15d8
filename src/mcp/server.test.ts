/*
 * The argument checks of `seat mcp` are ours: a wrong type, a missing field or an unknown field is refused with
 * MCP_ARGUMENT_INVALID (code in `_meta`) before any handler runs, even when the SDK's own input validation is
 * made a pass-through (as an SDK upgrade that renamed or dropped it would). The official MCP client over an
 * in-memory transport.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPolicy } from "../permissions/index.js";
import { createSeatMcpServer, type SeatMcpServer } from "./server.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;
const textOf = (r: CallToolResult) => (r.content[0] as { text?: string } | undefined)?.text ?? "";

async function connect(
  t: { after(fn: () => Promise<void> | void): void },
  sabotage?: (server: SeatMcpServer) => void,
  redisUrl?: string,
) {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "gs-mcp-args-")));
  const previousHome = process.env.GROK_SEAT_HOME;
  process.env.GROK_SEAT_HOME = join(base, "seat-home");
  const server = await createSeatMcpServer({
    policy: createPolicy({}),
    roots: [base],
    agents: ["grok"],
    approvalTimeoutMs: 1_000,
    ...(redisUrl ? { redisUrl } : {}),
  });
  sabotage?.(server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "args-host", version: "1" });
  await client.connect(clientSide);
  t.after(async () => {
    await client.close().catch(() => undefined);
    await server.close();
    if (previousHome === undefined) delete process.env.GROK_SEAT_HOME;
    else process.env.GROK_SEAT_HOME = previousHome;
    rmSync(base, { recursive: true, force: true });
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, CallToolResultSchema)) as CallToolResult;
  return { base, client, call };
}

const BAD: Array<[string, Record<string, unknown>, RegExp]> = [
  ["a wrong type", { name: 42 }, /name: /],
  ["a missing field", {}, /name: /],
  ["an unknown field", { name: "work", worktree: "x" }, /worktree/],
  ["a number out of range", { name: "work", limit: 0 }, /limit: /],
];

test("a wrong type, a missing, unknown or out-of-range field is MCP_ARGUMENT_INVALID with the code in _meta, naming the field", async (t) => {
  const { call } = await connect(t);
  for (const [label, args, field] of BAD) {
    const result = await call("session_history", args);
    assert.equal(result.isError, true, label);
    assert.equal(codeOf(result), "MCP_ARGUMENT_INVALID", `${label}: ${textOf(result)}`);
    assert.match(textOf(result), field, label);
    assert.match(textOf(result), /\[MCP_ARGUMENT_INVALID\]$/, label);
  }
  // A good call gets past the check to the tool (no such session yet).
  assert.equal(codeOf(await call("session_history", { name: "work" })), "SESSION_NOT_FOUND");
  assert.equal(codeOf(await call("no_such_tool", {})), "MCP_TOOL_UNKNOWN");
});

test("the checks are ours: with the SDK's own input validation made a pass-through, a bad argument is still refused before the tool runs", async (t) => {
  const { call, client } = await connect(t, (server) => {
    // What an SDK upgrade could do to a private method: rename it away, or stop checking in it.
    (
      server.server as unknown as { validateToolInput: (tool: unknown, args: unknown) => Promise<unknown> }
    ).validateToolInput = async (_tool, args) => args;
  });
  for (const [label, args] of BAD)
    assert.equal(codeOf(await call("session_history", args)), "MCP_ARGUMENT_INVALID", label);
  // tools/list still shows the schemas the checks use.
  const listed = (await client.listTools()).tools.find((tool) => tool.name === "session_history");
  assert.deepEqual(Object.keys((listed?.inputSchema.properties ?? {}) as object).sort(), ["cwd", "limit", "name"]);
  // What the listing promises is what the check does: no field beyond the listed ones.
  assert.equal(listed?.inputSchema.additionalProperties, false);
});

test("every tool tools/list shows is served through our checks: an argument it does not know is MCP_ARGUMENT_INVALID, never a tool that runs or MCP_TOOL_UNKNOWN", async (t) => {
  // With --redis the fleet tools are listed too (Redis is reached only on a fleet call, which this never makes).
  const { call, client } = await connect(t, undefined, "redis://127.0.0.1:1");
  const names = (await client.listTools()).tools.map((tool) => tool.name);
  assert.ok(names.includes("run") && names.includes("submit"), names.join(", "));
  for (const name of names)
    assert.equal(codeOf(await call(name, { "not-a-field": true })), "MCP_ARGUMENT_INVALID", name);
});
