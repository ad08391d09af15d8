/*
 * Cross-agent conformance on the REAL agents (codex-acp, claude-agent-acp, …), offline against the mock model.
 * Each agent gets: a streamed text turn and a second turn in the same session; host tools with object, union
 * and scalar roots answered by the host through the bridge; a real shell command allowed (marker exists) and
 * blocked (marker never exists); a canary in the parent env absent from every process of the session,
 * the host-tools MCP child included; dispose with no survivor.
 * Run with `npm run test:agents` (not part of `npm test`); GROK_SEAT_REQUIRE_AGENTS=1 makes a missing agent a
 * failure; GROK_SEAT_AGENTS=codex,claude limits the agents.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe } from "node:test";
import { createSession, type HeadlessSession } from "../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags, type GateDecision } from "../../src/permissions/index.js";
import type { HostTool } from "../../src/tools/index.js";
import type { MockScript } from "../../src/mock-model/index.js";
import { CANARY, descendants, procText, startAgentRig, type AgentRig, wiringOf } from "./rig.js";
import { agentTest } from "./results.js";

const ALL = ["codex", "claude", "opencode", "gemini"];
const AGENTS = (process.env.GROK_SEAT_AGENTS ?? ALL.join(","))
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

/** The host tools every agent must round-trip: object root, union root, scalar root. */
function hostTools(calls: Array<{ tool: string; args: unknown }>): HostTool[] {
  const record = (tool: string) => (args: unknown) => {
    calls.push({ tool, args });
    return tool === "shout" ? String((args as { text: string }).text).toUpperCase() : JSON.stringify(args);
  };
  return [
    {
      name: "shout",
      description: "Upper-cases text.",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      execute: record("shout"),
    },
    {
      name: "pick",
      description: "Takes either {a:number} or {b:string}.",
      inputSchema: {
        anyOf: [
          { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
          { type: "object", properties: { b: { type: "string" } }, required: ["b"] },
        ],
      },
      execute: record("pick"),
    },
    { name: "count", description: "Takes a bare integer.", inputSchema: { type: "integer" }, execute: record("count") },
  ];
}

async function withSession(
  rig: AgentRig,
  extra: Parameters<typeof createSession>[0],
  body: (session: HeadlessSession) => Promise<void>,
): Promise<void> {
  const session = await createSession({ ...rig.options, ...extra });
  try {
    assert.equal(session.state, "ready", `session did not come up: ${JSON.stringify(session.diagnostics)}`);
    await body(session);
  } finally {
    await session.dispose();
  }
}

for (const agent of AGENTS) {
  describe(`${agent} (real agent, offline against the mock)`, { concurrency: false }, () => {
    agentTest(
      agent,
      ["text-turns"],
      `${agent}: streams a text turn and a second turn in the same session`,
      async () => {
        const script: MockScript = {
          rules: [
            { match: "first question", replies: [{ text: "first answer from mock" }] },
            { match: "second question", replies: [{ text: "second answer from mock" }] },
          ],
        };
        const rig = await startAgentRig(agent, script);
        try {
          const chunks: string[] = [];
          await withSession(rig, { callbacks: { onText: (text) => void chunks.push(text) } }, async (session) => {
            const first = await session.prompt("first question");
            assert.equal(first.stopReason, "end_turn", JSON.stringify(first));
            assert.match(first.text, /first answer from mock$/);
            assert.ok(chunks.length >= 2, `streamed in chunks, got ${chunks.length}`);
            const second = await session.prompt("second question");
            assert.equal(second.stopReason, "end_turn", JSON.stringify(second));
            assert.match(second.text, /second answer from mock$/);
          });
        } finally {
          await rig.cleanup();
        }
      },
    );

    agentTest(
      agent,
      ["host-tools", "canary", "dispose"],
      `${agent}: host tools with object, union and scalar roots are answered by the host; the canary reaches no process; dispose leaves none`,
      async () => {
        const { profile, wiring } = wiringOf(agent);
        const wrapUnion = profile.projection === "wrap-unions";
        const script: MockScript = {
          rules: [
            {
              match: "use the host tools",
              replies: [
                {
                  toolCalls: [
                    wiring.hostToolCall("host-tools", "shout", { text: "ping" }),
                    wiring.hostToolCall("host-tools", "pick", wrapUnion ? { input: { b: "bee" } } : { b: "bee" }),
                    wiring.hostToolCall("host-tools", "count", { input: 7 }),
                  ],
                },
                { text: "tools said {{last_tool_result}}" },
              ],
            },
          ],
        };
        const rig = await startAgentRig(agent, script);
        const calls: Array<{ tool: string; args: unknown }> = [];
        let pids: number[] = [];
        try {
          const gate = createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) });
          await withSession(rig, { tools: hostTools(calls), permissions: gate }, async (session) => {
            const result = await session.prompt("please use the host tools now");
            assert.equal(result.stopReason, "end_turn", JSON.stringify(result));
            const byTool = Object.fromEntries(calls.map((c) => [c.tool, c.args]));
            assert.deepEqual(
              byTool,
              { shout: { text: "ping" }, pick: { b: "bee" }, count: 7 },
              "each tool got its ORIGINAL argument shape",
            );
            const followUp = rig.mock.requests.filter((r) => r.kind === "tool_followup");
            assert.ok(followUp.length >= 1, "the tool results went back to the model");
            assert.match(
              JSON.stringify(followUp[followUp.length - 1]!.body),
              /PING/,
              "the host's answer reached the model",
            );
            // The session's whole tree while alive: the agent and the host-tools MCP child included.
            pids = descendants(session.agent!.pid!);
            const texts = procText(pids);
            assert.ok(
              texts.some((p) => p.cmdline.includes("mcp-server.js")),
              `the host-tools MCP child is among ${pids.length} live processes`,
            );
            for (const p of texts) {
              assert.ok(
                !p.environ.includes(CANARY),
                `canary found in the environment of pid ${p.pid} (${p.cmdline.split("\0")[0]})`,
              );
              assert.ok(!p.cmdline.includes(CANARY), `canary found on the command line of pid ${p.pid}`);
            }
          });
          const survivors = pids.filter((pid) => descendants(pid).includes(pid));
          assert.deepEqual(survivors, [], "no process of the session survives dispose");
        } finally {
          await rig.cleanup();
        }
      },
    );

    agentTest(
      agent,
      ["shell-allow", "shell-block"],
      `${agent}: a shell command the policy allows runs; one it blocks never runs`,
      async () => {
        const { wiring } = wiringOf(agent);
        const script: MockScript = {
          rules: ["allowed", "blocked"].map((name) => ({
            match: `run the ${name} command`,
            replies: [
              { toolCalls: [wiring.shellCall(`echo ran > ${name}.marker`)] },
              { text: `${name} command went on` },
            ],
          })),
        };
        const rig = await startAgentRig(agent, script);
        try {
          let policy = parsePolicyFlags({ allow: ["execute", "edit"] });
          const decisions: GateDecision[] = [];
          await withSession(
            rig,
            {
              permissions: {
                async decide(request) {
                  const decision = await createPermissionGate({ policy }).decide(request);
                  decisions.push(decision);
                  return decision;
                },
              },
            },
            async (session) => {
              const allowed = await session.prompt("please run the allowed command");
              assert.ok(
                existsSync(join(rig.cwd, "allowed.marker")),
                `the allowed command ran (${JSON.stringify(allowed)}; decisions ${JSON.stringify(decisions.map((d) => d.audit))})`,
              );
              assert.ok(decisions.length >= 1, "the agent asked for permission");
              assert.ok(
                decisions.every((d) => d.audit.decision === "allow" && d.audit.category === "execute"),
                JSON.stringify(decisions.map((d) => d.audit)),
              );
              const before = decisions.length;
              policy = parsePolicyFlags({ block: ["execute", "edit"] });
              const blocked = await session.prompt("please run the blocked command");
              assert.ok(
                decisions.length > before,
                `the agent asked for the blocked command (${JSON.stringify(blocked)})`,
              );
              assert.ok(
                decisions.slice(before).every((d) => d.audit.decision === "deny"),
                JSON.stringify(decisions.slice(before).map((d) => d.audit)),
              );
              for (const d of decisions) {
                assert.ok(
                  typeof d.audit.optionId === "string" || d.audit.decision === "deny",
                  "an allow always names the agent's own option id",
                );
              }
            },
          );
          assert.equal(existsSync(join(rig.cwd, "blocked.marker")), false, "the blocked command never ran");
        } finally {
          await rig.cleanup();
        }
      },
    );
  });
}
