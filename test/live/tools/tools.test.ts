/*
 * Live host tools: createSession with `tools` against the real grok 1.0.41 and the scripted loopback model.
 * The model reaches MCP tools through grok's built-in `use_tool` ({tool_name:"<server>__<tool>", tool_input}),
 * grok runs the host-tools MCP server, and the bridge runs `execute` in this process. What the model got back
 * is read from the mock's log of the follow-up request (its `role:"tool"` messages).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SeatEvent } from "../../../src/acp/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { createToolRegistry, resolveServerEntry, startBridge, type HostTool } from "../../../src/tools/index.js";
import { lastFollowUpResults, mainRequestText, resultFor, withLiveRig } from "../../support/live-turns.js";

const useTool = (qualifiedName: string, toolInput: unknown) => ({
  name: "use_tool",
  arguments: { tool_name: qualifiedName, tool_input: toolInput },
});

/** A tool that records every execute call. */
function recorded(tool: Omit<HostTool, "execute">, run: (args: any) => unknown): { tool: HostTool; calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    tool: {
      ...tool,
      execute: (args) => {
        calls.push(args);
        return run(args);
      },
    },
  };
}

const mcpAllowed = () => createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) });

test("a host tool called through use_tool runs here with the model's arguments, and its output comes back to the model", async (t) => {
  const script = {
    rules: [
      {
        match: "count the words",
        replies: [
          { toolCalls: [useTool("host-tools__word_count", { text: "grok seat drives grok" })] },
          { text: "counted them" },
        ],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    const wordCount = recorded(
      {
        name: "word_count",
        description: "Counts the words in a text.",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" } },
          required: ["text"],
          additionalProperties: false,
        },
      },
      (args: { text: string }) => `${args.text.split(/\s+/).length} words`,
    );
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      tools: [wordCount.tool],
      onPermissionRequest: async (request) => {
        const allow = request.options.find((o) => o.kind === "allow_once");
        return allow
          ? { outcome: { outcome: "selected", optionId: allow.optionId } }
          : { outcome: { outcome: "cancelled" } };
      },
      callbacks: { onEvent: (e) => void events.push(e) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const result = await session.prompt("please count the words", { promptId: "tool-turn-1" });
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.text, "counted them");
      assert.deepEqual(
        wordCount.calls,
        [{ text: "grok seat drives grok" }],
        "execute ran once, with the model's arguments",
      );

      const seen = resultFor(lastFollowUpResults(rig, "tool-turn-1"), "host-tools__word_count", {
        text: "grok seat drives grok",
      });
      assert.ok(seen, "the follow-up request carries a tool message for the call");
      assert.equal(seen.content, "4 words");

      const start = events.find((e) => e.type === "tool_start");
      const end = events.find((e) => e.type === "tool_end");
      assert.ok(start?.type === "tool_start" && end?.type === "tool_end", "the turn reported tool_start and tool_end");
      assert.equal(start.toolName, "use_tool");
      assert.deepEqual(start.rawInput, {
        tool_name: "host-tools__word_count",
        tool_input: { text: "grok seat drives grok" },
      });
      assert.equal(end.toolCallId, start.toolCallId);
      assert.equal(end.status, "completed");
      assert.equal(end.title, "host-tools__word_count");
      assert.deepEqual(session.audit, []);
      assert.deepEqual(session.diagnostics, []);
    } finally {
      await session.dispose();
    }
  });
});

test("union-schema tools accept each alternative and refuse a non-matching call as a tool error without running, and a scalar-root tool works wrapped", async (t) => {
  const circle = { kind: "circle", radius: 2 };
  const square = { kind: "square", side: 3 };
  const triangle = { kind: "triangle", base: 1 };
  const point = { x: 1, y: 2 };
  const place = { place: "harbour" };
  const badPoint = { x: "north" };
  const script = {
    rules: [
      {
        match: "every alternative",
        replies: [
          {
            toolCalls: [
              useTool("host-tools__area", circle),
              useTool("host-tools__area", square),
              useTool("host-tools__goto", point),
              useTool("host-tools__goto", place),
            ],
          },
          { text: "all four ran" },
        ],
      },
      {
        match: "no alternative",
        replies: [
          { toolCalls: [useTool("host-tools__area", triangle), useTool("host-tools__goto", badPoint)] },
          { text: "both refused" },
        ],
      },
      {
        match: "shout it",
        replies: [{ toolCalls: [useTool("host-tools__shout", { input: "hey" })] }, { text: "shouted" }],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    // Root oneOf of two object shapes.
    const area = recorded(
      {
        name: "area",
        description: "Area of a circle or a square.",
        inputSchema: {
          oneOf: [
            {
              type: "object",
              properties: { kind: { const: "circle" }, radius: { type: "number" } },
              required: ["kind", "radius"],
              additionalProperties: false,
            },
            {
              type: "object",
              properties: { kind: { const: "square" }, side: { type: "number" } },
              required: ["kind", "side"],
              additionalProperties: false,
            },
          ],
        },
      },
      (args: { kind: string; radius?: number; side?: number }) =>
        args.kind === "circle" ? `circle area ${3 * args.radius! ** 2}` : `square area ${args.side! ** 2}`,
    );
    // Root anyOf of two $refs into $defs.
    const goto = recorded(
      {
        name: "goto",
        description: "Go to a point or a named place.",
        inputSchema: {
          $defs: {
            point: {
              type: "object",
              properties: { x: { type: "number" }, y: { type: "number" } },
              required: ["x", "y"],
              additionalProperties: false,
            },
            named: {
              type: "object",
              properties: { place: { type: "string" } },
              required: ["place"],
              additionalProperties: false,
            },
          },
          anyOf: [{ $ref: "#/$defs/point" }, { $ref: "#/$defs/named" }],
        },
      },
      (args: { x?: number; y?: number; place?: string }) =>
        args.place !== undefined ? `at ${args.place}` : `at ${args.x},${args.y}`,
    );
    // Scalar root: listed as {input: <schema>}, unwrapped before execute.
    const shout = recorded(
      { name: "shout", description: "Upper-cases a word.", inputSchema: { type: "string", minLength: 1 } },
      (word: string) => `${word.toUpperCase()}!`,
    );
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      tools: [area.tool, goto.tool, shout.tool],
      permissions: mcpAllowed(),
      callbacks: { onEvent: (e) => void events.push(e) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));

      const accepted = await session.prompt("try every alternative", { promptId: "union-ok" });
      assert.equal(accepted.text, "all four ran");
      assert.deepEqual(area.calls, [circle, square]);
      assert.deepEqual(goto.calls, [point, place]);
      const okResults = lastFollowUpResults(rig, "union-ok");
      assert.equal(resultFor(okResults, "host-tools__area", circle)?.content, "circle area 12");
      assert.equal(resultFor(okResults, "host-tools__area", square)?.content, "square area 9");
      assert.equal(resultFor(okResults, "host-tools__goto", point)?.content, "at 1,2");
      assert.equal(resultFor(okResults, "host-tools__goto", place)?.content, "at harbour");

      const refused = await session.prompt("try no alternative", { promptId: "union-bad" });
      assert.equal(refused.text, "both refused", "a refused call is a tool error, and the turn goes on");
      assert.equal(area.calls.length, 2, "execute never ran for the refused area call");
      assert.equal(goto.calls.length, 2, "execute never ran for the refused goto call");
      const badResults = lastFollowUpResults(rig, "union-bad");
      const badArea = resultFor(badResults, "host-tools__area", triangle)?.content ?? "";
      assert.match(badArea, /\[TOOL_INVALID_ARGS\]/);
      assert.match(badArea, /\/kind must be equal to constant/);
      assert.match(badArea, /The tool was not run/);
      const badGoto = resultFor(badResults, "host-tools__goto", badPoint)?.content ?? "";
      assert.match(badGoto, /\[TOOL_INVALID_ARGS\]/);
      assert.match(badGoto, /\/x must be number/);
      const failedEnds = events.filter((e) => e.type === "tool_end" && e.status === "failed");
      assert.equal(failedEnds.length, 2, "grok reported both refused calls as failed tool calls");

      const scalar = await session.prompt("please shout it", { promptId: "scalar" });
      assert.equal(scalar.text, "shouted");
      assert.deepEqual(shout.calls, ["hey"], "execute got the unwrapped scalar");
      assert.equal(
        resultFor(lastFollowUpResults(rig, "scalar"), "host-tools__shout", { input: "hey" })?.content,
        "HEY!",
      );
    } finally {
      await session.dispose();
    }
  });
});

test("a bridge whose MCP server script is missing yields TOOL_BRIDGE_FAILED and an ids-only audit, and the session answers without tools", async (t) => {
  await withLiveRig(t, {}, async (rig) => {
    const never = recorded(
      { name: "never", description: "Must not be reachable.", inputSchema: { type: "object" } },
      () => "ran",
    );
    const other = recorded(
      { name: "other", description: "Must not be reachable either.", inputSchema: { type: "string" } },
      () => "ran",
    );
    const missingEntry = `${rig.sandbox.project}/no-such-dir/mcp-server.js`;
    const events: SeatEvent[] = [];
    const texts: string[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      tools: [never.tool, other.tool],
      toolBridge: { serverEntry: missingEntry },
      callbacks: { onEvent: (e) => void events.push(e), onText: (text) => void texts.push(text) },
    });
    try {
      assert.equal(session.state, "ready", "a bridge failure does not kill the session");
      assert.deepEqual(session.diagnostics, [
        { code: "TOOL_BRIDGE_FAILED", message: "GROK_SEAT_TOOL_BRIDGE_FAILED: mcp-schema-server-missing" },
      ]);
      assert.deepEqual(session.audit, [
        {
          event: "session:runtime-resolved",
          toolBridgeFailed: true,
          reason: "mcp-schema-server-missing",
          requestedToolCount: 2,
        },
      ]);
      assert.ok(!JSON.stringify(session.audit).includes("/"), "the audit record carries no paths");
      assert.equal(
        texts[0],
        "GROK_SEAT_TOOL_BRIDGE_FAILED: mcp-schema-server-missing",
        "the diagnostic reached onText",
      );

      const result = await session.prompt("say pong");
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.text, "pong from mock");
      assert.equal(result.diagnostic, undefined);
      // session/new carried no host-tools entry: grok connected no MCP tools and told the model of none.
      const mcpReports = events.filter((e) => e.type === "mcp_initialized");
      assert.ok(
        mcpReports.every((e) => e.type === "mcp_initialized" && e.toolCount === 0),
        JSON.stringify(mcpReports),
      );
      const told = mainRequestText(rig);
      assert.ok(told.length > 0, "the model got a main-turn request");
      assert.ok(!told.includes("host-tools"), "the model was never told about host tools");
      assert.ok(!told.includes("MCP server connected"), "no MCP server connected");
      assert.deepEqual([never.calls, other.calls], [[], []]);
    } finally {
      await session.dispose();
    }
  });
});

test("an operator stdio MCP server is connected alongside the host-tools bridge, and the model uses both in one turn", async (t) => {
  const script = {
    rules: [
      {
        match: "use both servers",
        replies: [
          { toolCalls: [useTool("ops__ping", { who: "operator" }), useTool("host-tools__echo", { say: "host" })] },
          { text: "both answered" },
        ],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    // The operator's server is the project's own compiled MCP server, fronting a bridge of our own:
    // to grok it is just another stdio MCP server in session/new's mcpServers.
    const ping = recorded(
      {
        name: "ping",
        description: "Answers pong.",
        inputSchema: { type: "object", properties: { who: { type: "string" } }, required: ["who"] },
      },
      (args: { who: string }) => `pong ${args.who}`,
    );
    const operatorBridge = await startBridge(createToolRegistry([ping.tool]));
    const echo = recorded(
      {
        name: "echo",
        description: "Echoes.",
        inputSchema: { type: "object", properties: { say: { type: "string" } }, required: ["say"] },
      },
      (args: { say: string }) => `echo ${args.say}`,
    );
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      tools: [echo.tool],
      mcpServers: [
        {
          name: "ops",
          command: process.execPath,
          args: [resolveServerEntry()],
          env: { GROK_SEAT_BRIDGE_URL: operatorBridge.url, GROK_SEAT_BRIDGE_TOKEN: operatorBridge.token },
        },
      ],
      permissions: mcpAllowed(),
      callbacks: { onEvent: (e) => void events.push(e) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      assert.deepEqual(session.diagnostics, [], "both MCP servers were initialized before the first prompt");
      const ready = events.find((e) => e.type === "mcp_initialized");
      assert.equal(ready?.type === "mcp_initialized" && ready.toolCount, 2, "grok counted one tool from each server");

      const result = await session.prompt("please use both servers", { promptId: "both-servers" });
      assert.equal(result.text, "both answered");
      assert.deepEqual(ping.calls, [{ who: "operator" }]);
      assert.deepEqual(echo.calls, [{ say: "host" }]);
      const seen = lastFollowUpResults(rig, "both-servers");
      assert.equal(resultFor(seen, "ops__ping", { who: "operator" })?.content, "pong operator");
      assert.equal(resultFor(seen, "host-tools__echo", { say: "host" })?.content, "echo host");
      const servers = events.flatMap((e) =>
        e.type === "tool_end" ? [(e.rawOutput as { server_name?: string } | undefined)?.server_name] : [],
      );
      assert.deepEqual(servers.sort(), ["host-tools", "ops"]);
    } finally {
      await session.dispose();
      await operatorBridge.close();
    }
  });
});
