/*
 * Live spend: per-turn budgets against the real grok 1.0.41 and the scripted model, which reports usage per
 * model call (prompt 11 tokens, completion = words + tool calls). grok relays each call's usage as
 * `_x.ai/session_notification response_completed`; the budget is checked on every one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSession } from "../../src/runtime/index.js";
import type { SeatEvent } from "../../src/acp/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../src/permissions/index.js";
import { withLiveRig as withRig } from "../support/live-turns.js";
import { runSeat } from "../support/cli.js";

/** Three model calls: two that each ask for a slow shell command (13 tokens each), then the answer (12): 38 in all. */
const THREE_CALLS = {
  rules: [{
    match: "spend three calls",
    replies: [
      { text: "one ", toolCalls: [{ name: "run_terminal_command", arguments: { command: "sleep 1; echo a", description: "first wait" } }] },
      { text: "two ", toolCalls: [{ name: "run_terminal_command", arguments: { command: "sleep 2; echo b", description: "second wait" } }] },
      { text: "three" },
    ],
  }],
};

/** The model calls of one prompt, as the mock saw them. */
function callsOf(requests: { reqId?: string; kind: string }[], promptId: string): number {
  return requests.filter((r) => r.reqId === promptId && (r.kind === "main" || r.kind === "tool_followup")).length;
}

test("a turn whose token budget is crossed after the second model call is cancelled before the third request", async (t) => {
  await withRig(t, THREE_CALLS, async (rig) => {
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["execute"] }) }),
      callbacks: { onEvent: (e) => void events.push(e) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const result = await session.prompt("please spend three calls", { promptId: "budget-1", budget: { maxTokens: 20 } });
      assert.equal(result.stopReason, "cancelled");
      assert.equal(result.diagnostic?.code, "BUDGET_EXCEEDED");
      assert.match(result.diagnostic?.message ?? "", /26 tokens over 2 model call/);
      assert.equal(result.text, "one two ", "the text so far is kept");
      // Give grok the time its third request would have taken, then count what reached the model.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      assert.equal(callsOf(rig.mock.requests, "budget-1"), 2, "the mock saw two model calls, never the third");
      const perCall = events.filter((e): e is Extract<SeatEvent, { type: "model_usage" }> => e.type === "model_usage");
      assert.deepEqual(perCall.map((e) => [e.promptId, e.usage.inputTokens, e.usage.outputTokens]), [["budget-1", 11, 2], ["budget-1", 11, 2]]);
      // The session stays usable: the next turn (no budget) runs to its end.
      const next = await session.prompt("say pong", { promptId: "budget-2" });
      assert.equal(next.stopReason, "end_turn");
      assert.equal(next.text, "pong from mock");
    } finally {
      await session.dispose();
    }
  });
});

test("a turn within its token budget runs all its model calls and ends normally", async (t) => {
  await withRig(t, THREE_CALLS, async (rig) => {
    const session = await createSession({ ...rig.sessionOptions, permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["execute"] }) }) });
    try {
      const result = await session.prompt("please spend three calls", { promptId: "budget-ok", budget: { maxTokens: 38 } });
      assert.equal(result.stopReason, "end_turn");
      assert.equal(result.diagnostic, undefined);
      assert.equal(result.text, "one two three");
      assert.equal(callsOf(rig.mock.requests, "budget-ok"), 3);
      assert.equal(result.usage?.totalTokens, 38, "spending exactly the budget is allowed");
    } finally {
      await session.dispose();
    }
  });
});

test("seat run --max-tokens cancels the turn over budget: exit 77, BUDGET_EXCEEDED, the text kept, two model calls", async (t) => {
  await withRig(t, THREE_CALLS, async (rig) => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: rig.sandbox.home, GROK_HOME: rig.sandbox.grokHome, GROK_BIN: rig.binary };
    const result = await runSeat(["run", "--json", "--allow", "execute", "--max-tokens", "20", "--cwd", rig.sandbox.project, "please spend three calls"], { env });
    assert.equal(result.code, 77, result.stderr);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as Record<string, any>);
    const done = lines.find((l) => l.type === "done");
    assert.equal(done?.stopReason, "cancelled");
    assert.equal(done?.text, "one two ");
    assert.ok(lines.some((l) => l.type === "diagnostic" && l.diagnostic.code === "BUDGET_EXCEEDED"));
    assert.equal(lines.filter((l) => l.type === "model_usage").length, 2);
    const promptId = done?.promptId as string;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(callsOf(rig.mock.requests, promptId), 2);
  });
});

test("a budget on an agent that reports no usage is refused before anything is sent (BUDGET_UNMETERED, exit 2)", async (t) => {
  await withRig(t, {}, async (rig) => {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: rig.sandbox.home, GROK_HOME: rig.sandbox.grokHome, GROK_BIN: rig.binary };
    // grok reports tokens per call but no cost: a cost budget without a price table cannot be kept.
    const refused = await runSeat(["run", "--json", "--max-cost", "0.50", "--cwd", rig.sandbox.project, "say pong"], { env });
    assert.equal(refused.code, 2, refused.stderr);
    assert.ok(refused.stdout.includes("BUDGET_UNMETERED"), refused.stdout);
    assert.equal(rig.mock.requests.filter((r) => r.kind === "main").length, 0, "nothing reached the model");
    const allowed = await runSeat(["run", "--json", "--max-cost", "0.50", "--allow-unmetered", "--cwd", rig.sandbox.project, "say pong"], { env });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(rig.mock.requests.filter((r) => r.kind === "main").length, 1);
  });
});
