/*
 * Live host-tool faults (issue 8 §3, issue 14 §6a): one unusable tool is omitted alone, and a throwing `execute`
 * reaches the model as a bare TOOL_EXECUTE_FAILED (a HostToolError with its bounded, masked first line) — read
 * from the mock model's log of the follow-up request — while the host gets the whole error, known secret values masked,
 * as a diagnostic (never as onText).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { HostToolError, type HostTool } from "../../../src/tools/index.js";
import { lastFollowUpResults, mainRequestText, resultFor, withLiveRig } from "../../support/live-turns.js";

const useTool = (qualifiedName: string, toolInput: unknown) => ({
  name: "use_tool",
  arguments: { tool_name: qualifiedName, tool_input: toolInput },
});
const mcpAllowed = () => createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) });

test("one host tool with an invalid schema is omitted with its own diagnostic and a schema audit; the good tool still round-trips on real grok", async (t) => {
  const script = {
    rules: [
      {
        match: "echo it",
        replies: [{ toolCalls: [useTool("host-tools__echo", { say: "still here" })] }, { text: "echoed" }],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    const calls: unknown[] = [];
    const broken: HostTool = {
      name: "broken",
      description: "Bad schema.",
      inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } },
      execute: () => "never",
    };
    const echo: HostTool = {
      name: "echo",
      description: "Echoes.",
      inputSchema: { type: "object", properties: { say: { type: "string" } }, required: ["say"] },
      execute: (args: { say: string }) => (calls.push(args), `echo ${args.say}`),
    };
    const session = await createSession({ ...rig.sessionOptions, tools: [broken, echo], permissions: mcpAllowed() });
    try {
      assert.equal(session.state, "ready");
      assert.deepEqual(
        session.diagnostics.map((d) => d.code),
        ["TOOL_SCHEMA_INVALID"],
        JSON.stringify(session.diagnostics),
      );
      assert.match(session.diagnostics[0]!.message, /"broken"/);
      assert.deepEqual(session.audit, [
        {
          event: "session:runtime-resolved",
          toolOmitted: true,
          reason: "tool-schema-invalid",
          toolIndex: 0,
          toolName: "broken",
          requestedToolCount: 2,
        },
      ]);
      const result = await session.prompt("please echo it", { promptId: "good-tool" });
      assert.equal(result.text, "echoed");
      assert.deepEqual(calls, [{ say: "still here" }]);
      assert.equal(
        resultFor(lastFollowUpResults(rig, "good-tool"), "host-tools__echo", { say: "still here" })?.content,
        "echo still here",
      );
      const told = mainRequestText(rig);
      assert.ok(told.includes("host-tools__echo"), "the model was told about the good tool");
      assert.ok(!told.includes("host-tools__broken"), "the model was never told about the broken tool");
    } finally {
      await session.dispose();
    }
  });
});

test("a throwing execute reaches the model as a bare TOOL_EXECUTE_FAILED (no word of its message, no key); a HostToolError's line does, masked; the host gets the whole error, masked", async (t) => {
  const key = "sk-live-4f9a8b7c6d5e4f3a2b1c0d9e";
  const script = {
    rules: [
      {
        match: "read the file",
        replies: [{ toolCalls: [useTool("host-tools__read", { path: "notes.txt" })] }, { text: "it failed" }],
      },
      {
        match: "check the quota",
        replies: [{ toolCalls: [useTool("host-tools__quota", {})] }, { text: "quota said no" }],
      },
    ],
  };
  await withLiveRig(t, script, async (rig) => {
    const read: HostTool = {
      name: "read",
      description: "Reads a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
      execute: () => {
        throw new Error(`upstream refused: api_key=${key}\nat /srv/private/layout with canary-token-123`);
      },
    };
    const quota: HostTool = {
      name: "quota",
      description: "Checks the quota.",
      inputSchema: { type: "object", properties: {} },
      execute: () => {
        throw new HostToolError(`quota exceeded, retry in 5 s (key ${key})`);
      },
    };
    const texts: string[] = [];
    // The embedder marks its vendor key's name secret and the key is in the session's environment: a known value.
    const session = await createSession({
      ...rig.sessionOptions,
      env: { ...rig.sessionOptions.env, VENDOR_API_KEY: key },
      secretEnvNames: ["VENDOR_API_KEY"],
      tools: [read, quota],
      permissions: mcpAllowed(),
      callbacks: { onText: (text) => void texts.push(text) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const result = await session.prompt("please read the file", { promptId: "throwing-tool" });
      assert.equal(result.text, "it failed");
      const seen = resultFor(lastFollowUpResults(rig, "throwing-tool"), "host-tools__read", { path: "notes.txt" });
      assert.ok(seen, "the follow-up request carries the tool result");
      assert.match(seen.content, /Host tool \\?"read\\?" failed \[TOOL_EXECUTE_FAILED\]/);
      assert.ok(!seen.content.includes("upstream refused"), "no word of the message reached the model");

      const told = await session.prompt("please check the quota", { promptId: "host-tool-error" });
      assert.equal(told.text, "quota said no");
      const quotaSeen = resultFor(lastFollowUpResults(rig, "host-tool-error"), "host-tools__quota", {});
      assert.match(
        quotaSeen?.content ?? "",
        /Host tool \\?"quota\\?" failed: quota exceeded, retry in 5 s \(key \[redacted\]\) \[TOOL_EXECUTE_FAILED\]/,
      );

      const modelSaw = JSON.stringify(rig.mock.requests.map((r) => r.body));
      for (const secret of [key, "sk-live-", "canary-token-123", "/srv/private"])
        assert.ok(!modelSaw.includes(secret), `${secret} never reached the model`);
      const host = session.diagnostics.filter((d) => d.code === "TOOL_EXECUTE_FAILED");
      assert.equal(host.length, 2, JSON.stringify(session.diagnostics));
      assert.match(
        host[0]!.message,
        /upstream refused: api_key=\[redacted\]\nat \/srv\/private\/layout with canary-token-123/,
        "the host got the whole error, the key masked",
      );
      assert.ok(!JSON.stringify(session.diagnostics).includes(key), "no diagnostic holds the key");
      assert.ok(!texts.join("").includes("upstream refused"), "the error never went to onText");
    } finally {
      await session.dispose();
    }
  });
});
