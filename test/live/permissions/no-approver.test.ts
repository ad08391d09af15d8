/*
 * Live no-approver diagnostic (issue 15 §1): the README's first library example, as a newcomer wrote it before
 * the fix — a host tool and no permission gate. The real grok 1.0.41 asks permission for its `use_tool` call,
 * nobody can be asked, the call is denied and grok ends the turn `cancelled` after text already streamed. That
 * turn used to end with no diagnostic at all; it must say why and name the policy knob.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import type { SeatEvent } from "../../../src/acp/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createSession } from "../../../src/runtime/index.js";
import type { HostTool } from "../../../src/tools/index.js";
import { withLiveRig } from "../../support/live-turns.js";

const script = {
  rules: [
    {
      match: "ticket 42",
      replies: [
        {
          text: "Let me look that up. ",
          toolCalls: [
            { name: "use_tool", arguments: { tool_name: "host-tools__lookup_ticket", tool_input: { id: "42" } } },
          ],
        },
        { text: "It says: {{last_tool_result}}" },
      ],
    },
  ],
};

function lookupTicket(calls: string[]): HostTool {
  return {
    name: "lookup_ticket",
    description: "Fetch a ticket by id",
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    execute: (args) => {
      const id = (args as { id: string }).id;
      calls.push(id);
      return `ticket ${id}: open`;
    },
  };
}

test("a host tool denied because nobody could be asked ends the turn with PERMISSION_NO_APPROVER naming the policy knob, even after text streamed", async (t) => {
  await withLiveRig(t, script, async (rig) => {
    const calls: string[] = [];
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      tools: [lookupTicket(calls)],
      callbacks: { onEvent: (e) => void events.push(e) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const result = await session.prompt("What is ticket 42 about?");
      assert.deepEqual(calls, [], "the host tool never ran");
      assert.equal(result.stopReason, "cancelled");
      assert.match(result.text, /Let me look that up/, "the text that streamed is kept");
      assert.equal(result.diagnostic?.code, "PERMISSION_NO_APPROVER");
      assert.match(result.diagnostic.message, /nobody could be asked/);
      assert.match(result.diagnostic.message, /no permission gate/);
      assert.match(result.diagnostic.message, /allow: \["mcp"\]/);
      assert.match(result.diagnostic.message, /--allow mcp/);
      const reported = events.filter((e) => e.type === "diagnostic");
      assert.deepEqual(
        reported.map((e) => e.type === "diagnostic" && e.diagnostic.code),
        ["PERMISSION_NO_APPROVER"],
        "reported once, through the callbacks too",
      );
    } finally {
      await session.dispose();
    }
  });
});

test("the same turn with a gate that requires approval and has no approver names the gate's policy; allowing mcp lets the tool run with no diagnostic", async (t) => {
  await withLiveRig(t, script, async (rig) => {
    const calls: string[] = [];
    const asked = await createSession({
      ...rig.sessionOptions,
      tools: [lookupTicket(calls)],
      permissions: createPermissionGate({ policy: parsePolicyFlags({}) }),
    });
    try {
      const result = await asked.prompt("What is ticket 42 about?");
      assert.equal(result.diagnostic?.code, "PERMISSION_NO_APPROVER");
      assert.match(result.diagnostic.message, /requires approval for "mcp" and the gate has no approver/);
      assert.deepEqual(calls, []);
    } finally {
      await asked.dispose();
    }
    const allowed = await createSession({
      ...rig.sessionOptions,
      tools: [lookupTicket(calls)],
      permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["read", "mcp"] }) }),
    });
    try {
      const result = await allowed.prompt("What is ticket 42 about?");
      assert.equal(result.diagnostic, undefined);
      assert.equal(result.stopReason, "end_turn");
      assert.deepEqual(calls, ["42"]);
      assert.match(result.text, /ticket 42: open/);
    } finally {
      await allowed.dispose();
    }
  });
});
