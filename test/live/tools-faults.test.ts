/*
 * Live host-tool faults (issue 8 §3): one unusable tool is omitted alone, and a throwing `execute` reaches
 * the model tagged TOOL_EXECUTE_FAILED with a bounded one-line message — read from the mock model's log of
 * the follow-up request — while the host gets the whole error as a diagnostic (never as onText).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPermissionGate, parsePolicyFlags } from "../../src/permissions/index.js";
import { createSession } from "../../src/runtime/index.js";
import type { HostTool } from "../../src/tools/index.js";
import { lastFollowUpResults, mainRequestText, resultFor, withLiveRig } from "../support/live-turns.js";

const useTool = (qualifiedName: string, toolInput: unknown) => ({ name: "use_tool", arguments: { tool_name: qualifiedName, tool_input: toolInput } });
const mcpAllowed = () => createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) });

test("one host tool with an invalid schema is omitted with its own diagnostic and a schema audit; the good tool still round-trips on real grok", async (t) => {
  const script = {
    rules: [{ match: "echo it", replies: [{ toolCalls: [useTool("host-tools__echo", { say: "still here" })] }, { text: "echoed" }] }],
  };
  await withLiveRig(t, script, async (rig) => {
    const calls: unknown[] = [];
    const broken: HostTool = { name: "broken", description: "Bad schema.", inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } }, execute: () => "never" };
    const echo: HostTool = {
      name: "echo",
      description: "Echoes.",
      inputSchema: { type: "object", properties: { say: { type: "string" } }, required: ["say"] },
      execute: (args: { say: string }) => (calls.push(args), `echo ${args.say}`),
    };
    const session = await createSession({ ...rig.sessionOptions, tools: [broken, echo], permissions: mcpAllowed() });
    try {
      assert.equal(session.state, "ready");
      assert.deepEqual(session.diagnostics.map((d) => d.code), ["TOOL_SCHEMA_INVALID"], JSON.stringify(session.diagnostics));
      assert.match(session.diagnostics[0]!.message, /"broken"/);
      assert.deepEqual(session.audit, [{ event: "session:runtime-resolved", toolOmitted: true, reason: "tool-schema-invalid", toolIndex: 0, toolName: "broken", requestedToolCount: 2 }]);
      const result = await session.prompt("please echo it", { promptId: "good-tool" });
      assert.equal(result.text, "echoed");
      assert.deepEqual(calls, [{ say: "still here" }]);
      assert.equal(resultFor(lastFollowUpResults(rig, "good-tool"), "host-tools__echo", { say: "still here" })?.content, "echo still here");
      const told = mainRequestText(rig);
      assert.ok(told.includes("host-tools__echo"), "the model was told about the good tool");
      assert.ok(!told.includes("host-tools__broken"), "the model was never told about the broken tool");
    } finally {
      await session.dispose();
    }
  });
});

test("a throwing execute reaches the model tagged TOOL_EXECUTE_FAILED with only its first line; the whole error goes to the host as a diagnostic", async (t) => {
  const script = {
    rules: [{ match: "read the file", replies: [{ toolCalls: [useTool("host-tools__read", { path: "notes.txt" })] }, { text: "it failed" }] }],
  };
  await withLiveRig(t, script, async (rig) => {
    const read: HostTool = {
      name: "read",
      description: "Reads a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      execute: () => {
        throw new Error("cannot open notes.txt\nat /srv/private/layout with canary-token-123");
      },
    };
    const texts: string[] = [];
    const session = await createSession({ ...rig.sessionOptions, tools: [read], permissions: mcpAllowed(), callbacks: { onText: (text) => void texts.push(text) } });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const result = await session.prompt("please read the file", { promptId: "throwing-tool" });
      assert.equal(result.text, "it failed");
      const seen = resultFor(lastFollowUpResults(rig, "throwing-tool"), "host-tools__read", { path: "notes.txt" });
      assert.ok(seen, "the follow-up request carries the tool result");
      assert.match(seen.content, /Host tool \\?"read\\?" failed: cannot open notes\.txt \[TOOL_EXECUTE_FAILED\]/);
      assert.ok(!JSON.stringify(rig.mock.requests.map((r) => r.body)).includes("canary-token-123"), "the rest of the message never reached the model");
      const host = session.diagnostics.find((d) => d.code === "TOOL_EXECUTE_FAILED");
      assert.ok(host, JSON.stringify(session.diagnostics));
      assert.match(host.message, /canary-token-123/, "the host got the whole error");
      assert.ok(!texts.join("").includes("canary-token-123"), "the whole error never went to onText");
    } finally {
      await session.dispose();
    }
  });
});
