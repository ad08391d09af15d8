/*
 * Turn endings on the REAL agents, offline against the mock: cancel mid-turn, and the diagnostics invariant
 * (seed 002) where the agent can show it — a failed model call with no text resolves with a diagnostic
 * (rule 2), and text streamed before a failure is kept with no diagnostic replacing it (rule 5).
 * An agent that turns a model failure into its own assistant text cannot show rule 2 (the turn has text):
 * that cell is recorded n/a with the agent's text as the reason, never as a pass.
 */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { createSession, type HeadlessSession } from "../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../src/permissions/index.js";
import { startAgentRig, type AgentRig, AGENTS_UNDER_TEST as AGENTS, wiringOf } from "./rig.js";
import { agentTest, notApplicable } from "./results.js";

const STORY = `once upon a time ${Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ")} THE-END`;

async function open(rig: AgentRig, extra: Parameters<typeof createSession>[0] = {}): Promise<HeadlessSession> {
  const session = await createSession({ ...rig.options, ...extra });
  assert.equal(session.state, "ready", `session did not come up: ${JSON.stringify(session.diagnostics)}`);
  return session;
}

for (const agent of AGENTS) {
  describe(`${agent}: turn endings (real agent, offline)`, { concurrency: false }, () => {
    agentTest(
      agent,
      ["cancel"],
      `${agent}: cancel mid-turn resolves the turn cancelled with the text so far, and the next turn works`,
      async () => {
        const rig = await startAgentRig(agent, {
          rules: [
            { match: "tell a long story", replies: [{ text: STORY, chunkDelayMs: 150 }] },
            { match: "say hello again", replies: [{ text: "hello again from mock" }] },
          ],
        });
        try {
          let text = "";
          let session: HeadlessSession | undefined;
          let cancelAsked = false;
          session = await open(rig, {
            callbacks: {
              onText: (chunk) => {
                text += chunk;
                if (!cancelAsked && text.includes("upon")) {
                  cancelAsked = true;
                  void session!.cancel();
                }
              },
            },
          });
          try {
            const started = Date.now();
            const cancelled = await session.prompt("please tell a long story");
            assert.ok(cancelAsked, `the story started streaming (${JSON.stringify(cancelled)})`);
            assert.equal(cancelled.stopReason, "cancelled", JSON.stringify(cancelled));
            assert.match(cancelled.text, /upon/, "the text streamed before the cancel is kept");
            assert.doesNotMatch(cancelled.text, /THE-END/, "the turn stopped before the story ended");
            assert.ok(
              Date.now() - started < 60 * 150,
              "the turn ended well before the whole story would have streamed",
            );
            const next = await session.prompt("please say hello again");
            assert.equal(next.stopReason, "end_turn", JSON.stringify(next));
            assert.match(next.text, /hello again from mock/);
          } finally {
            const { survivors } = await session.dispose();
            assert.deepEqual(survivors, []);
          }
        } finally {
          await rig.cleanup();
        }
      },
    );

    agentTest(
      agent,
      ["diag-empty-failure"],
      `${agent}: a model call that fails before any text resolves the turn with a diagnostic instead of rejecting`,
      async () => {
        const rig = await startAgentRig(agent, { rules: [{ match: "fail at once", replies: [{ errorStatus: 400 }] }] });
        try {
          const session = await open(rig);
          try {
            const result = await session.prompt("please fail at once");
            if (result.text.trim() !== "" && result.diagnostic === undefined && /400|error/i.test(result.text)) {
              notApplicable(
                `the agent reports the model failure as its own assistant text (it ends ${JSON.stringify(result.text.trim().slice(-100))}), so the turn is not empty`,
              );
            }
            assert.equal(result.text.trim(), "", `no assistant text (${JSON.stringify(result)})`);
            assert.ok(result.diagnostic, `an empty failed turn carries a diagnostic (${JSON.stringify(result)})`);
            assert.ok(result.diagnostic.message.length > 0);
          } finally {
            await session.dispose();
          }
        } finally {
          await rig.cleanup();
        }
      },
    );

    agentTest(
      agent,
      ["diag-partial-text"],
      `${agent}: text streamed before a failed model call is kept and no diagnostic replaces it`,
      async () => {
        const { wiring } = wiringOf(agent);
        const rig = await startAgentRig(agent, {
          rules: [
            {
              match: "speak then fail",
              replies: [
                {
                  text: "partial words before the failure",
                  toolCalls: [wiring.hostToolCall("host-tools", "shout", { text: "x" })],
                },
                { errorStatus: 400 },
              ],
            },
          ],
        });
        try {
          const tools = [
            {
              name: "shout",
              description: "Upper-cases text.",
              inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
              execute: (a: unknown) => String((a as { text: string }).text).toUpperCase(),
            },
          ];
          const session = await open(rig, {
            tools,
            permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) }),
          });
          try {
            const result = await session.prompt("please speak then fail");
            assert.ok(
              rig.mock.requests.some((r) => r.kind === "tool_followup"),
              "the failing call came after the text and the tool round",
            );
            assert.match(
              result.text,
              /partial words before the failure/,
              `the text before the failure is kept (${JSON.stringify(result)})`,
            );
            assert.equal(
              result.diagnostic,
              undefined,
              `no diagnostic replaces the text (${JSON.stringify(result.diagnostic)})`,
            );
          } finally {
            await session.dispose();
          }
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}
