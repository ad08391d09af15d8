/*
 * An MCP host for tests: the official MCP SDK client connected over stdio to the built `seat mcp`, as a host
 *   (an editor, an agent) would connect it, closed when the test ends.
 */
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, ListRootsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SEAT_MAIN } from "./cli.js";

/** Options of connectSeatMcp. */
export interface SeatMcpOptions {
  /** The server's whole environment. */
  env: NodeJS.ProcessEnv;
  /** The server's working directory (default: this process's). */
  cwd?: string;
  /** Roots the client offers (it then declares the roots capability and answers roots/list). */
  roots?: string[];
  /** How long `call` waits for a tool's answer (ms); the SDK's default without it. */
  callTimeoutMs?: number;
  /** The client's name in the MCP handshake. Default "test-host". */
  clientName?: string;
}

/** A connected host: the SDK client, its transport, what the server wrote to stderr, and a tool call. */
export interface SeatMcpClient {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** Starts `seat mcp <args>` and connects an MCP SDK client to it; the client is closed after the test `t`. */
export async function connectSeatMcp(
  t: { after(fn: () => unknown): void },
  args: string[],
  options: SeatMcpOptions,
): Promise<SeatMcpClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SEAT_MAIN, "mcp", ...args],
    env: options.env as Record<string, string>,
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client(
    { name: options.clientName ?? "test-host", version: "1.0.0" },
    options.roots ? { capabilities: { roots: {} } } : {},
  );
  const roots = options.roots;
  if (roots)
    client.setRequestHandler(ListRootsRequestSchema, () => ({
      roots: roots.map((dir) => ({ uri: pathToFileURL(dir).href })),
    }));
  await client.connect(transport);
  t.after(() => client.close().catch(() => undefined));
  const timeout = options.callTimeoutMs;
  return {
    client,
    transport,
    stderr: () => stderr,
    call: async (name, callArgs) =>
      (await client.callTool(
        { name, arguments: callArgs },
        CallToolResultSchema,
        timeout !== undefined ? { timeout } : undefined,
      )) as CallToolResult,
  };
}
