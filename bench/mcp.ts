/*
 * P11 MCP round trip: what a one-line turn costs through `seat mcp`'s `run` tool over calling the library directly
 *   (issue 19 §4).
 * Owns: benchMcp() and its section for BENCHMARKS.md.
 * Does not own: the server (src/mcp/), the rig (test/support/live-rig.ts), the report plumbing (run.ts, report.ts).
 * Method: one real grok binary, sandbox and loopback mock for both paths. (a) the official MCP Client over stdio,
 *   connected once to `seat mcp --root <project>` (this checkout's built CLI), times `callTool("run", {prompt})`
 *   from the call to its result; the server starts a fresh grok, runs the turn and disposes the agent before it
 *   answers. (b) in this process, createSession + prompt + dispose on the same prompt, timed the same way. Rounds
 *   alternate the order; one warm-up of each is not counted. The server's start and MCP handshake are shown apart
 *   (paid once per host session, not per call).
 */
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createSession } from "../src/runtime/index.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { fmt, median, ratio, table } from "./report.js";
import { alternateRounds } from "./rounds.js";

/** The P11 result (medians in ms). */
export interface McpBenchResult {
  rounds: number;
  /** Server process start + MCP initialize, once. */
  connectMs?: number;
  mcpMs?: number;
  directMs?: number;
  /** mcpMs / directMs. */
  ratio?: number;
  /** Median of the per-round ratios. */
  pairedRatio?: number;
  mcpSamples?: number[];
  directSamples?: number[];
  skipped?: string;
}

const PROMPT = "bench turn";
const SEAT_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));

/** Runs P11 for `rounds` paired rounds. */
export async function benchMcp({ rounds = 9 }: { rounds?: number } = {}): Promise<McpBenchResult> {
  const rig = await startLiveRig({ fallback: { text: "one line from the mock" } });
  if (typeof rig === "string") return { rounds: 0, skipped: rig };
  const env = {
    ...rig.sessionOptions.env,
    ...rig.sessionOptions.agentEnv,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: `${rig.sandbox.root}/seat`,
  };
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SEAT_MAIN, "mcp", "--root", rig.sessionOptions.cwd],
    env,
    cwd: rig.sessionOptions.cwd,
    stderr: "ignore",
  });
  const client = new Client({ name: "grok-seat-bench", version: "0.1.0" });
  try {
    await client.connect(transport);
    const connectMs = performance.now() - t0;
    const viaMcp = async (): Promise<number> => {
      const start = performance.now();
      const result = await client.callTool({ name: "run", arguments: { prompt: PROMPT } }, undefined, {
        timeout: 120_000,
      });
      const ms = performance.now() - start;
      const structured = result.structuredContent as { stopReason?: string; text?: string } | undefined;
      if (result.isError || structured?.stopReason !== "end_turn")
        throw new Error(`run tool: ${JSON.stringify(result).slice(0, 500)}`);
      return ms;
    };
    const direct = async (): Promise<number> => {
      const start = performance.now();
      const session = await createSession({ ...rig.sessionOptions, grokCliBinaryPath: rig.binary });
      try {
        const result = await session.prompt(PROMPT);
        if (result.stopReason !== "end_turn") throw new Error(`direct turn: ${JSON.stringify(result).slice(0, 500)}`);
      } finally {
        await session.dispose();
      }
      return performance.now() - start;
    };
    const mcpSamples: number[] = [];
    const directSamples: number[] = [];
    await alternateRounds(rounds, viaMcp, direct, mcpSamples, directSamples);
    const mcpMs = median(mcpSamples);
    const directMs = median(directSamples);
    return {
      rounds,
      connectMs,
      mcpMs,
      directMs,
      ratio: mcpMs / directMs,
      pairedRatio: median(mcpSamples.map((m, i) => m / directSamples[i]!)),
      mcpSamples,
      directSamples,
    };
  } finally {
    await client.close().catch(() => undefined);
    await rig.close();
  }
}

/** The BENCHMARKS.md section of P11 (same shape as run.ts's sections). */
export function mcpSection(r: McpBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const goal = "`run` over MCP ≤ 1.1× createSession + prompt + dispose on a one-line turn";
  if (r.skipped || r.ratio === undefined)
    return {
      title: "P11 MCP round trip",
      body: `Skipped: ${r.skipped ?? "no data"}.`,
      goals: [{ goal, met: undefined, measured: "skipped" }],
    };
  return {
    title: `P11 MCP round trip: the \`run\` tool against the library on a one-line turn (${r.rounds} rounds, medians)`,
    body: [
      table(
        ["path", "p50 ms"],
        [
          ["official MCP Client → `seat mcp` (stdio) → `run` → real grok, call to result", fmt(r.mcpMs, 1)],
          [
            "`createSession` + `prompt` + `dispose` in the bench process, same grok, sandbox and mock",
            fmt(r.directMs, 1),
          ],
          ["ratio of medians", ratio(r.ratio)],
          ["median of per-round ratios", ratio(r.pairedRatio)],
          ["once per host session: `seat mcp` start + MCP initialize (not in the ratio)", fmt(r.connectMs, 1)],
        ],
      ),
    ].join("\n"),
    goals: [{ goal, met: r.ratio <= 1.1, measured: ratio(r.ratio) }],
  };
}
