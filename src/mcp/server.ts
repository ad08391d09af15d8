/*
 * The seat as an MCP server: an McpServer from the official SDK whose tools drive seats under the
 *   limits the server was started with.
 * Owns: creating the server, registering every tool group (tools/index.ts) through our tool registry (which checks
 *   every call's arguments itself: tool-registry.ts), and the orderly shutdown (abort every call, wait until each
 *   turn's agent is disposed).
 * Does not own: the stdio process (cli/commands/mcp.ts), the limits' checks (boundaries.ts), any tool (tools/).
 * Not to be confused with tools/mcp-server.ts: that is the host-tools bridge's MCP server, which grok starts.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createToolContext, type McpServerOptions, type ServerContext } from "./context.js";
import { TOOL_GROUPS } from "./tools/index.js";
import { createToolRegistry } from "./tool-registry.js";

/** The server's name and version as `initialize` reports them. */
export const SERVER_INFO = { name: "grok-seat", version: "0.1.0" } as const;

/** A created server: connect it to a transport, close it to end every call and dispose every agent. */
export interface SeatMcpServer {
  server: McpServer;
  connect(transport: Transport): Promise<void>;
  /** Aborts every running call, waits until each turn's agent is disposed, then closes the transport. */
  close(): Promise<void>;
}

/** Creates the server with every tool group its options serve. */
export async function createSeatMcpServer(options: McpServerOptions): Promise<SeatMcpServer> {
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: {}, logging: {} },
    instructions:
      "grok-seat: hand a task to an agent seat (grok by default) with `run`; the server's permission policy, roots and agents bound every call.",
  });
  const registry = createToolRegistry(server);
  const context: ServerContext = createToolContext(server, options, registry);
  for (const group of TOOL_GROUPS) if (group.when?.(context) ?? true) await group.register(context);
  // Every tool is registered: from here on tools/call is ours, whatever the SDK's own call path does.
  registry.install();
  let closed: Promise<void> | undefined;
  return {
    server,
    connect: (transport) => server.connect(transport),
    close() {
      closed ??= (async () => {
        context.shutdown();
        // Closing the transport aborts every handler's signal (the SDK's own on-close), which cancels each turn.
        await server.close().catch(() => undefined);
        await context.drain();
      })();
      return closed;
    },
  };
}
