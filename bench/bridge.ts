/*
 * Bridge benchmark: host-tool round trip through the loopback bridge + MCP server process (via the MCP SDK
 *   client over stdio) versus calling the same tool's execute() in-process.
 * Owns: benchBridge(), called by bench/run.ts (`npm run bench`).
 * Does not own: reporting or thresholds (bench/run.ts).
 */
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createToolBridge, type HostTool } from "../src/tools/index.js";

/** Latency percentiles of one path, in milliseconds. */
export interface LatencySummary {
  p50Ms: number;
  p99Ms: number;
}

/** The result of benchBridge: both paths and how many times slower the bridge is at p50. */
export interface BridgeBenchResult {
  iterations: number;
  bridge: LatencySummary;
  direct: LatencySummary;
  ratio: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

function summarize(samples: number[]): LatencySummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99) };
}

const echo: HostTool = {
  name: "echo",
  description: "returns its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args: { text: string }) => args.text,
};

/** Measures `iterations` echo calls through bridge + MCP and directly (after a short warm-up of each). */
export async function benchBridge({ iterations = 200 }: { iterations?: number } = {}): Promise<BridgeBenchResult> {
  const args = { text: "ping" };
  const warmup = Math.min(20, iterations);
  const direct: number[] = [];
  const signal = new AbortController().signal;
  for (let i = 0; i < warmup + iterations; i++) {
    const start = performance.now();
    await echo.execute(args, { signal });
    if (i >= warmup) direct.push(performance.now() - start);
  }

  const bridge = await createToolBridge({ tools: [echo] });
  const client = new Client({ name: "grok-seat-bench", version: "1.0.0" });
  const env = Object.fromEntries(bridge.mcpServer.env.map((e) => [e.name, e.value]));
  const bridged: number[] = [];
  try {
    await client.connect(
      new StdioClientTransport({
        command: bridge.mcpServer.command,
        args: bridge.mcpServer.args,
        env,
        stderr: "ignore",
      }),
    );
    for (let i = 0; i < warmup + iterations; i++) {
      const start = performance.now();
      const result = await client.callTool({ name: "echo", arguments: args });
      if (result.isError) throw new Error(`bench call failed: ${JSON.stringify(result.content)}`);
      if (i >= warmup) bridged.push(performance.now() - start);
    }
  } finally {
    await client.close();
    await bridge.close();
  }
  const summaryBridge = summarize(bridged);
  const summaryDirect = summarize(direct);
  return {
    iterations,
    bridge: summaryBridge,
    direct: summaryDirect,
    ratio: summaryDirect.p50Ms > 0 ? summaryBridge.p50Ms / summaryDirect.p50Ms : Number.POSITIVE_INFINITY,
  };
}
