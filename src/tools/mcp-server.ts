/*
 * Host-tools MCP server: the stdio process grok starts for a session's host tools (entry point, not a library).
 * Owns: MCP over stdio via the SDK's LOW-LEVEL Server (schemas are served verbatim; McpServer.registerTool
 *   would reject raw JSON Schemas or flatten unions), forwarding tools/list and tools/call to the bridge.
 * Does not own: tool logic, validation or auth decisions — the bridge in the host process does all of that.
 * Env: GROK_SEAT_BRIDGE_URL, GROK_SEAT_BRIDGE_TOKEN (required); GROK_SEAT_BRIDGE_HEALTH_MS (default 2000).
 * Invariants: stdout carries MCP only (diagnostics go to stderr). The process exits when stdin closes
 *   (grok starts MCP servers in their own process group, so a group kill misses us) and when the bridge
 *   is gone (refused/unauthorized health check or call), so it never outlives its session.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from "@modelcontextprotocol/sdk/types.js";

const bridgeUrl = process.env.GROK_SEAT_BRIDGE_URL ?? "";
const bridgeToken = process.env.GROK_SEAT_BRIDGE_TOKEN ?? "";
const healthMs = Math.max(50, Number(process.env.GROK_SEAT_BRIDGE_HEALTH_MS ?? "2000") || 2000);
/** Health-check timeouts tolerated in a row (a busy host event loop), before we give up on the bridge. */
const MAX_HEALTH_TIMEOUTS = 5;

function log(message: string): void {
  process.stderr.write(`grok-seat host-tools: ${message}\n`);
}

let exiting = false;
function exit(code: number, why: string): void {
  if (exiting) return;
  exiting = true;
  log(`exiting: ${why}`);
  // Let a pending stdout write (e.g. the error result of a failed call) drain first.
  setImmediate(() => process.exit(code));
}

if (!bridgeUrl || !bridgeToken) {
  log("GROK_SEAT_BRIDGE_URL and GROK_SEAT_BRIDGE_TOKEN must be set; this server is started by grok-seat.");
  process.exit(2);
}

/** True when a fetch failure means nobody listens at the bridge address any more. */
function isBridgeGone(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return ["ECONNREFUSED", "ECONNRESET", "EPIPE", "UND_ERR_SOCKET"].includes(cause?.code ?? "");
}

async function bridgeFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${bridgeUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${bridgeToken}`, "content-type": "application/json" },
  });
  // 401 means our token is no longer the bridge's: the session that started us is gone.
  if (response.status === 401) exit(0, "the bridge no longer accepts our token");
  return response;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

const server = new Server({ name: "grok-seat-host-tools", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => {
  const response = await bridgeFetch("/tools");
  if (!response.ok) throw new Error(`host-tools bridge answered ${response.status} to /tools`);
  const body = (await response.json()) as { tools: Tool[] };
  return { tools: body.tools };
});

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args } = request.params;
  try {
    const response = await bridgeFetch("/call", {
      method: "POST",
      body: JSON.stringify({ name, arguments: args ?? {} }),
      signal: extra.signal,
    });
    const body = (await response.json()) as CallToolResult | { error?: string };
    if (!response.ok) {
      return errorResult(`host-tools bridge refused the call (${response.status}): ${(body as { error?: string }).error ?? ""}`);
    }
    return body as CallToolResult;
  } catch (error) {
    if (isBridgeGone(error)) {
      exit(0, "the bridge is gone (call failed)");
      return errorResult(`Host tool "${name}" is unavailable: the grok-seat session that served it has ended.`);
    }
    throw error;
  }
});

let healthTimeouts = 0;
const health = setInterval(() => {
  bridgeFetch("/health", { signal: AbortSignal.timeout(Math.max(1000, healthMs)) })
    .then((response) => {
      healthTimeouts = 0;
      void response.body?.cancel();
    })
    .catch((error: unknown) => {
      if (isBridgeGone(error)) return exit(0, "the bridge is gone (health check refused)");
      healthTimeouts += 1;
      if (healthTimeouts >= MAX_HEALTH_TIMEOUTS) exit(0, `the bridge did not answer ${healthTimeouts} health checks`);
    });
}, healthMs);

process.stdin.on("end", () => exit(0, "stdin closed"));
process.stdin.on("close", () => exit(0, "stdin closed"));
server.onclose = () => {
  clearInterval(health);
  exit(0, "MCP transport closed");
};

await server.connect(new StdioServerTransport());
