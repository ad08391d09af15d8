// The host-tools MCP server process, checked with the MCP SDK's own Client over stdio,
// and its lifetime: it exits when its stdin closes and when the bridge goes away.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createToolBridge, type HostTool, type ToolBridge } from "../../../src/tools/index.js";

const tools: HostTool[] = [
  {
    name: "echo",
    description: "echoes text",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    execute: (args: { text: string }) => args.text,
  },
  {
    name: "lookup",
    description: "finds a record by id or slug",
    inputSchema: {
      anyOf: [
        { type: "object", properties: { id: { type: "integer" } }, required: ["id"], additionalProperties: false },
        {
          type: "object",
          properties: { slug: { $ref: "#/$defs/Slug" } },
          required: ["slug"],
          additionalProperties: false,
        },
      ],
      $defs: { Slug: { type: "string", pattern: "^[a-z-]+$" } },
    },
    execute: (args: unknown) => ({ found: args }),
  },
  {
    name: "count",
    description: "a scalar-root tool",
    inputSchema: { type: "integer", minimum: 0 },
    execute: (n: number) => n + 1,
  },
];

function envOf(bridge: ToolBridge): Record<string, string> {
  return Object.fromEntries(bridge.mcpServer.env.map((e) => [e.name, e.value]));
}

async function withClient(run: (client: Client, bridge: ToolBridge) => Promise<void>): Promise<void> {
  const bridge = await createToolBridge({ tools });
  const client = new Client({ name: "tools-mcp-test", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: bridge.mcpServer.command,
    args: bridge.mcpServer.args,
    env: envOf(bridge),
    stderr: "ignore",
  });
  try {
    await client.connect(transport);
    await run(client, bridge);
  } finally {
    await client.close();
    await bridge.close();
  }
}

function textOf(result: unknown): string {
  return ((result as { content: Array<{ text: string }> }).content[0] ?? { text: "" }).text;
}

test("lists every tool with root type object, accepted by the SDK client's own validation", async () => {
  await withClient(async (client, bridge) => {
    const { tools: listed } = await client.listTools();
    assert.deepEqual(
      listed.map((t) => t.name),
      ["echo", "lookup", "count"],
    );
    for (const tool of listed) assert.equal(tool.inputSchema.type, "object");
    assert.ok(
      Array.isArray((listed[1]!.inputSchema as Record<string, unknown>).anyOf),
      "union kept alongside type object",
    );
    assert.deepEqual(listed[2]!.inputSchema.required, ["input"]);
    assert.deepEqual(bridge.toolNames, ["host-tools__echo", "host-tools__lookup", "host-tools__count"]);
    assert.match(bridge.rulesText, /host-tools__<name>/);
    assert.match(bridge.rulesText, /use_tool/);
  });
});

test("calls tools, accepts each union alternative, and refuses invalid arguments naming the path", async () => {
  await withClient(async (client) => {
    assert.equal(textOf(await client.callTool({ name: "echo", arguments: { text: "hello" } })), "hello");
    const byId = await client.callTool({ name: "lookup", arguments: { id: 3 } });
    assert.equal(byId.isError, undefined);
    assert.deepEqual(JSON.parse(textOf(byId)), { found: { id: 3 } });
    const bySlug = await client.callTool({ name: "lookup", arguments: { slug: "a-b" } });
    assert.deepEqual(JSON.parse(textOf(bySlug)), { found: { slug: "a-b" } });

    const neither = await client.callTool({ name: "lookup", arguments: { slug: "NOT OK" } });
    assert.equal(neither.isError, true);
    assert.match(textOf(neither), /\/slug must match pattern/);
    const wrongType = await client.callTool({ name: "echo", arguments: { text: 5 } });
    assert.equal(wrongType.isError, true);
    assert.match(textOf(wrongType), /\/text must be string/);

    assert.equal(textOf(await client.callTool({ name: "count", arguments: { input: 41 } })), "42");
    assert.match(textOf(await client.callTool({ name: "count", arguments: { input: -1 } })), /\/input must be >= 0/);
  });
});

function spawnServer(bridge: ToolBridge): {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout: () => string;
} {
  const child = spawn(bridge.mcpServer.command, bridge.mcpServer.args, {
    env: { ...envOf(bridge) },
    stdio: ["pipe", "pipe", "ignore"],
  });
  let out = "";
  child.stdout!.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, stdout: () => out };
}

test("the server exits when its stdin closes, having printed nothing on stdout", async () => {
  const bridge = await createToolBridge({ tools });
  const { child, exited, stdout } = spawnServer(bridge);
  try {
    child.stdin!.end();
    assert.equal(await exited, 0);
    assert.equal(stdout(), "");
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    await bridge.close();
  }
});

test("the server exits when the bridge goes away, while its stdin stays open", async () => {
  const bridge = await createToolBridge({ tools, healthCheckMs: 100 });
  const { child, exited } = spawnServer(bridge);
  try {
    await bridge.close();
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
    child.stdin!.destroy();
  }
});

test("the server refuses to start without bridge settings, writing nothing on stdout", async () => {
  const bridge = await createToolBridge({ tools });
  try {
    const child = spawn(bridge.mcpServer.command, bridge.mcpServer.args, {
      env: {},
      stdio: ["pipe", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    assert.equal(code, 2);
    assert.equal(out, "");
  } finally {
    await bridge.close();
  }
});
