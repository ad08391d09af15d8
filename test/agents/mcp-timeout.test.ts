/*
 * Long turns on real MCP hosts (issue 19 §3): with a tool timeout shorter than grok's turn, set through the host's
 * own knob (Claude: MCP_TOOL_TIMEOUT in its settings' env; Codex: tool_timeout_sec; Gemini: the server's timeout),
 * the host asks for progress, receives it while grok streams, and still gives up at its timeout — none of them
 * resets the timeout on progress. It then sends notifications/cancelled; `seat mcp` cancels the turn and records
 * it in the ledger as cancelled. A relay (mcp-relay.ts) between host and server notes the messages each way.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe } from "node:test";
import Database from "better-sqlite3";
import { createSession } from "../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../src/permissions/index.js";
import { createSandbox } from "../../src/testing.js";
import { liveBinary } from "../support/live-rig.js";
import { SEAT_MAIN } from "../support/cli.js";
import { need } from "../support/requirements.js";
import { startAgentRig, AGENTS_UNDER_TEST, type AgentRig, wiringOf } from "./rig.js";
import { agentTest } from "./results.js";
import { writeHostMcpConfig } from "./mcp-host.js";

const RELAY = fileURLToPath(new URL("./mcp-relay.js", import.meta.url));
const TIMEOUT_S = 3;
/** About 6 s of streaming: twice the host's timeout. */
const LONG_ANSWER = `${Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ")} GROK-DONE`;

/** Sets the host's tool-call timeout to TIMEOUT_S through its own configuration. */
function setToolTimeout(agent: string, rig: AgentRig, config: string): void {
  if (agent === "codex")
    writeFileSync(
      config,
      readFileSync(config, "utf8").replace(/^tool_timeout_sec = \d+$/m, `tool_timeout_sec = ${TIMEOUT_S}`),
    );
  else if (agent === "gemini") {
    const settings = JSON.parse(readFileSync(config, "utf8")) as { mcpServers: { seat: { timeout?: number } } };
    settings.mcpServers.seat.timeout = TIMEOUT_S * 1000;
    writeFileSync(config, JSON.stringify(settings, null, 2));
  } else if (agent === "claude") {
    mkdirSync(join(rig.cwd, ".claude"), { recursive: true });
    writeFileSync(
      join(rig.cwd, ".claude", "settings.json"),
      JSON.stringify({ env: { MCP_TOOL_TIMEOUT: String(TIMEOUT_S * 1000) } }),
    );
  }
}

function ledgerStops(file: string): string[] {
  if (!existsSync(file)) return [];
  const db = new Database(file, { readonly: true });
  try {
    // The turn's own rows: a side call's row (grok's turn summary, metered at the metering point or estimated) adds
    // calls and tokens to its turn, not a turn of its own (docs/spend.md).
    return (
      db.prepare("SELECT stop_reason FROM usage_ledger WHERE metered IS NULL OR metered = 'agent'").all() as Array<{
        stop_reason: string | null;
      }>
    ).map((r) => String(r.stop_reason));
  } catch {
    return [];
  } finally {
    db.close();
  }
}

for (const agent of AGENTS_UNDER_TEST.filter((a) => ["claude", "codex", "gemini"].includes(a))) {
  describe(`${agent}: a tool timeout shorter than the turn (real agent, real grok, offline)`, {
    concurrency: false,
  }, () => {
    agentTest(
      agent,
      ["mcp-timeout"],
      `${agent}: its tool timeout fires while progress streams (no reset on progress); it cancels the call and seat mcp records the turn cancelled`,
      async (t) => {
        const binary = await liveBinary();
        if (!need(t, binary instanceof Error ? `real grok unavailable: ${binary.message}` : false)) return;
        const { wiring } = wiringOf(agent);
        const rig = await startAgentRig(agent, {
          rules: [
            {
              match: "delegate a long task",
              replies: [
                { toolCalls: [wiring.hostToolCall("seat", "run", { prompt: "grok, answer the long question" })] },
                { text: "the seat said: {{last_tool_result}}" },
              ],
            },
            { match: "answer the long question", replies: [{ text: LONG_ANSWER, chunkDelayMs: 150 }] },
          ],
        });
        const sandbox = createSandbox({ modelBaseUrl: rig.mock.baseUrl, prefix: "gs-mcp-timeout-" });
        const relayLog = join(sandbox.root, "relay.log");
        const seatHome = join(sandbox.root, "seat");
        try {
          const config = writeHostMcpConfig(agent, rig, {
            command: process.execPath,
            prefix: [RELAY, relayLog, process.execPath, SEAT_MAIN],
            suffix: ["--root", rig.cwd],
            env: { ...sandbox.env, GROK_BIN: binary as string, GROK_SEAT_HOME: seatHome },
          });
          setToolTimeout(agent, rig, config);
          const session = await createSession({
            ...rig.options,
            permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) }),
          });
          try {
            const result = await session.prompt("please delegate a long task");
            const followup = rig.mock.requests.find((r) => r.dialect === wiring.dialect && r.kind === "tool_followup");
            assert.ok(followup, `the host made its next model request (${JSON.stringify(result).slice(0, 500)})`);
            const body = JSON.stringify(followup.body);
            assert.doesNotMatch(body, /GROK-DONE/, "the host gave up before grok's answer was complete");
            assert.match(body, /time[sd]? ?out/i, "what the host told its model is a timeout");
            const relay = existsSync(relayLog) ? readFileSync(relayLog, "utf8").split("\n") : [];
            assert.ok(
              relay.includes("in tools/call progressToken"),
              `the host asked for progress (${relay.filter((l) => l.startsWith("in")).join(", ")})`,
            );
            assert.ok(
              relay.filter((l) => l === "out notifications/progress").length >= 1,
              "the server sent progress before the host gave up",
            );
            assert.ok(relay.includes("in notifications/cancelled"), "the host cancelled the call");
            // The server records the cancelled turn once grok has stopped.
            const until = Date.now() + 20_000;
            while (!ledgerStops(join(seatHome, "seats.db")).length && Date.now() < until)
              await new Promise((r) => setTimeout(r, 100));
            assert.deepEqual(
              ledgerStops(join(seatHome, "seats.db")),
              ["cancelled"],
              "the turn is in the ledger, cancelled",
            );
          } finally {
            const { survivors } = await session.dispose();
            assert.deepEqual(survivors, []);
          }
        } finally {
          await rig.cleanup();
          sandbox.cleanup();
        }
      },
    );
  });
}
