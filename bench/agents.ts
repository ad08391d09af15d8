/*
 * P7 other ACP agents: for each installed agent (codex, claude, opencode, gemini) against the scripted loopback
 *   mock, one turn from spawn to turn end through grok-seat (createSession + prompt) vs the bare SDK client
 *   driving the same agent with the same argv and env; and a host-tool round trip through grok-seat's bridge.
 * Owns: benchAgents() and agentsSection() for BENCHMARKS.md.
 * Does not own: the rig (test/agents/rig.ts), the bare client (bare-client.ts), report plumbing (run.ts).
 * Method: per agent one rig (temp HOME, offline config); a warm-up pair, then `rounds` paired rounds in
 *   alternating order; ratio = median over rounds of harness turn-end / bare turn-end (both from spawn). The
 *   host-tool figure is a turn with one host tool call minus a plain turn, both on one kept session (medians).
 */
import { performance } from "node:perf_hooks";
import { createSession } from "../src/runtime/index.js";
import { agentLaunch } from "../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../src/permissions/index.js";
import { missingInstall, startAgentRig } from "../test/agents/rig.js";
import { type BarePhases, bareTurnPhases } from "./bare-client.js";
import { timeHarnessTurn } from "./live.js";
import { fmt, median, ratio, table } from "./report.js";
import { alternateRounds } from "./rounds.js";
import { offlineWiring } from "../src/testing.js";

const AGENTS = ["codex", "claude", "opencode", "gemini"];
const REPLY = "one two three four five six seven eight nine ten";

/** Median phase times (ms from spawn) of one path. */
export interface AgentPhases {
  readyMs: number;
  firstChunkMs: number;
  endMs: number;
}

/** One agent's P7 figures. */
export interface AgentBench {
  agent: string;
  harness?: AgentPhases;
  bare?: AgentPhases;
  /** Median over rounds of harness end / bare end. */
  ratio?: number;
  /** Median turn with one host tool call, and a plain turn, on one kept grok-seat session. */
  toolTurnMs?: number;
  plainTurnMs?: number;
  error?: string;
}

/** The P7 result. */
export interface AgentsBenchResult {
  rounds: number;
  agents: AgentBench[];
}

type Run = BarePhases;
const phases = (runs: Run[]): AgentPhases => ({
  readyMs: median(runs.map((r) => r.ready)),
  firstChunkMs: median(runs.map((r) => r.first)),
  endMs: median(runs.map((r) => r.end)),
});

async function benchOne(agent: string, rounds: number): Promise<AgentBench> {
  const missing = missingInstall(agent);
  if (missing)
    return { agent, error: `not installed (${missing}); run npm run agents:install (seat agents install ${agent})` };
  const probe = await startAgentRig(agent, {});
  const wiring = offlineWiring(probe.profile.name)!;
  await probe.cleanup();
  const rig = await startAgentRig(agent, {
    rules: [
      {
        match: "bench tool turn",
        replies: [
          { toolCalls: [wiring.hostToolCall("host-tools", "shout", { text: "ping" })] },
          { text: "tool said {{last_tool_result}}" },
        ],
      },
      { match: "bench plain turn", replies: [{ text: "plain" }] },
    ],
    fallback: { text: REPLY },
  });
  try {
    const opts = { ...rig.options, killGraceMs: 500 };
    const runHarness = (): Promise<Run> => timeHarnessTurn(opts);
    // The same argv and env the harness uses (profile allow-list + offline wiring), and the same auth choice.
    const launch = agentLaunch(rig.profile, { agentEnv: rig.options.agentEnv ?? {} }, rig.options.env ?? {});
    const auth = agent === "gemini" ? "gemini-api-key" : undefined;
    const runBare = (): Promise<Run> =>
      bareTurnPhases({
        argv: launch.argv,
        env: launch.env,
        cwd: rig.cwd,
        prompt: "bench turn",
        ...(auth ? { authMethodId: auth } : {}),
      });
    const harness: Run[] = [];
    const bare: Run[] = [];
    await alternateRounds(rounds, runHarness, runBare, harness, bare);
    // Host-tool round trip: one kept session, a tool turn and a plain turn per round.
    const tools = [
      {
        name: "shout",
        description: "Upper-cases text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        execute: (a: unknown) => String((a as { text: string }).text).toUpperCase(),
      },
    ];
    const session = await createSession({
      ...opts,
      tools,
      permissions: createPermissionGate({ policy: parsePolicyFlags({ allow: ["mcp"] }) }),
    });
    const toolTurns: number[] = [];
    const plainTurns: number[] = [];
    try {
      if (session.state !== "ready")
        throw new Error(`tool session did not start: ${JSON.stringify(session.diagnostics)}`);
      for (let round = 0; round <= rounds; round++) {
        let t0 = performance.now();
        const tool = await session.prompt("bench tool turn");
        const toolMs = performance.now() - t0;
        if (!/PING/.test(tool.text))
          throw new Error(`tool turn did not carry the host's answer: ${JSON.stringify(tool)}`);
        t0 = performance.now();
        await session.prompt("bench plain turn");
        const plainMs = performance.now() - t0;
        if (round > 0) {
          toolTurns.push(toolMs);
          plainTurns.push(plainMs);
        }
      }
    } finally {
      await session.dispose();
    }
    return {
      agent,
      harness: phases(harness),
      bare: phases(bare),
      ratio: median(harness.map((h, i) => h.end / bare[i]!.end)),
      toolTurnMs: median(toolTurns),
      plainTurnMs: median(plainTurns),
    };
  } catch (error) {
    return { agent, error: error instanceof Error ? error.message.slice(0, 300) : String(error) };
  } finally {
    await rig.cleanup();
  }
}

/** Runs P7 on every installed agent (GROK_SEAT_AGENTS limits them). */
export async function benchAgents({ rounds = 5 }: { rounds?: number } = {}): Promise<AgentsBenchResult> {
  const wanted = (process.env.GROK_SEAT_AGENTS ?? AGENTS.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const agents: AgentBench[] = [];
  for (const agent of wanted) agents.push(await benchOne(agent, rounds));
  return { rounds, agents };
}

/** The P7 section of BENCHMARKS.md. */
export function agentsSection(r: AgentsBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const rows = r.agents.map((a) =>
    a.error || !a.harness || !a.bare
      ? [a.agent, "-", "-", "-", "-", "-", "-", "-", `error: ${a.error ?? "no data"}`]
      : [
          a.agent,
          fmt(a.harness.readyMs),
          fmt(a.harness.firstChunkMs),
          fmt(a.harness.endMs),
          fmt(a.bare.readyMs),
          fmt(a.bare.endMs),
          ratio(a.ratio),
          `${fmt(a.toolTurnMs)} / ${fmt(a.plainTurnMs)}`,
          "",
        ],
  );
  return {
    title: `P7 other ACP agents + mock model: spawn → ready → first chunk → turn end, grok-seat vs bare SDK client (${r.rounds} paired rounds, medians)`,
    body: [
      table(
        [
          "agent",
          "seat ready (ms)",
          "seat first chunk (ms)",
          "seat turn end (ms)",
          "bare ready (ms)",
          "bare turn end (ms)",
          "× bare (turn end)",
          "host-tool turn / plain turn (ms)",
          "note",
        ],
        rows,
      ),
      "",
      "Both paths start the same argv with the same env against the same mock; the harness also runs its session setup (Claude's `session/set_mode default`, the env allow-list, callbacks). The host-tool turn is one model call with a host tool call answered through the bridge and MCP server, then a follow-up call; the plain turn is one model call on the same session.",
    ].join("\n"),
    goals: r.agents.map((a) => ({
      goal: `${a.agent}: harness ≤ 1.05× the bare client (spawn → turn end)`,
      met: a.ratio !== undefined ? a.ratio <= 1.05 : undefined,
      measured: a.ratio !== undefined ? ratio(a.ratio) : (a.error ?? "not run"),
    })),
  };
}
