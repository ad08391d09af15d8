/*
 * Delegation from a REAL agent to grok through `seat mcp` (issue 19 §3), offline against one mock: the host
 * (Claude, Codex, Gemini, OpenCode) is given this checkout's `seat mcp` through its own MCP configuration, built
 * from the docs/mcp-hosts.md snippet (mcp-host.ts); the host's model calls the seat's `run` tool, the real grok
 * binary runs a turn behind the server, and grok's answer comes back in the host's next model request.
 * The mock tells the two apart by dialect and by grok's x-grok-req-id header: the host speaks Messages,
 * Responses, Gemini or (OpenCode) header-less Chat Completions; grok speaks Chat Completions with the header.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { describe } from "node:test";
import { createSession } from "../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../src/permissions/index.js";
import { createSandbox, type LoggedRequest } from "../../src/testing.js";
import { liveBinary } from "../support/live-rig.js";
import { SEAT_MAIN } from "../support/cli.js";
import { need } from "../support/requirements.js";
import { startAgentRig, descendants, procText, CANARY, AGENTS_UNDER_TEST as AGENTS, wiringOf } from "./rig.js";
import { agentTest } from "./results.js";
import { writeHostMcpConfig } from "./mcp-host.js";

/** True for a request the host agent made (not grok: grok always sends x-grok-req-id). */
const fromHost = (r: LoggedRequest) => r.dialect !== undefined && r.reqId === undefined;
const fromGrok = (r: LoggedRequest) => r.dialect === "chat" && r.reqId !== undefined;

for (const agent of AGENTS) {
  describe(`${agent}: delegation to grok through seat mcp (real agent, real grok, offline)`, {
    concurrency: false,
  }, () => {
    agentTest(
      agent,
      ["mcp-delegation"],
      `${agent}: given seat mcp in its own MCP config, its model calls run, a real grok turn answers, and the answer is in the host's next model request`,
      async (t) => {
        const binary = await liveBinary();
        if (!need(t, binary instanceof Error ? `real grok unavailable: ${binary.message}` : false)) return;
        const nonce = randomBytes(6).toString("hex");
        const { wiring } = wiringOf(agent);
        const rig = await startAgentRig(agent, {
          rules: [
            // The host's turn: call the seat's run tool, then quote what it returned.
            {
              match: "delegate this to the seat",
              replies: [
                {
                  toolCalls: [
                    wiring.hostToolCall("seat", "run", { prompt: `grok, answer the seat question ${nonce}` }),
                  ],
                },
                { text: "the seat said: {{last_tool_result}}" },
              ],
            },
            // Grok's turn behind the server.
            { match: "answer the seat question", replies: [{ text: `grok answers ${nonce}` }] },
          ],
        });
        const sandbox = createSandbox({ modelBaseUrl: rig.mock.baseUrl, prefix: "gs-delegation-" });
        try {
          const config = writeHostMcpConfig(agent, rig, {
            command: process.execPath,
            prefix: [SEAT_MAIN],
            suffix: ["--root", rig.cwd],
            env: { ...sandbox.env, GROK_BIN: binary as string, GROK_SEAT_HOME: join(sandbox.root, "seat") },
          });
          const session = await createSession({
            ...rig.options,
            permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) }),
          });
          let tree: number[] = [];
          try {
            assert.equal(session.state, "ready", `the host came up (${JSON.stringify(session.diagnostics)})`);
            const result = await session.prompt("please delegate this to the seat");
            tree = session.agent?.pid === undefined ? [] : descendants(session.agent.pid);
            const grokQueries = rig.mock.requests
              .filter(fromGrok)
              .filter((r) => JSON.stringify(r.body).includes(`answer the seat question ${nonce}`));
            assert.ok(
              grokQueries.length > 0,
              `real grok got the prompt the host's model sent to run (config ${config}; requests ${JSON.stringify(rig.mock.requests.map((r) => [r.dialect, r.kind, r.reqId]))})`,
            );
            const followups = rig.mock.requests
              .filter(fromHost)
              .filter((r) => JSON.stringify(r.body).includes(`grok answers ${nonce}`));
            assert.ok(
              followups.length > 0,
              `the host's next model request carries grok's answer (${JSON.stringify(result).slice(0, 800)})`,
            );
            assert.equal(followups[0]!.dialect, wiring.dialect, "that request came from the host's own model client");
            assert.match(
              result.text,
              new RegExp(`the seat said: [\\s\\S]*grok answers ${nonce}`),
              `the host's turn quotes grok's answer (${JSON.stringify(result).slice(0, 800)})`,
            );
            // The rig's parent env holds a canary (also as XAI_API_KEY): the host, seat mcp and grok never see it.
            const seen = procText(tree).filter((p) => p.environ.includes(CANARY) || p.cmdline.includes(CANARY));
            assert.deepEqual(
              seen.map((p) => p.pid),
              [],
              "no process of the host's tree carries the parent env's canary",
            );
            assert.ok(
              procText(tree).some((p) => p.cmdline.includes(`${SEAT_MAIN}\0mcp\0`)),
              `seat mcp is in the host's process tree (${tree.length} processes)`,
            );
          } finally {
            const { survivors } = await session.dispose();
            assert.deepEqual(
              survivors,
              [],
              `no process of the host's tree survives dispose (seat mcp and grok included; tree was ${tree.join(",")})`,
            );
          }
        } finally {
          await rig.cleanup();
          sandbox.cleanup();
        }
      },
    );
  });
}
