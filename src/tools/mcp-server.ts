/*
 * Host-tools MCP server: the stdio process grok starts for a session's host tools (entry point, not a library).
 * Owns: MCP over stdio via the SDK's LOW-LEVEL Server (schemas are served verbatim; McpServer.registerTool
 *   would reject raw JSON Schemas or flatten unions), forwarding tools/list and tools/call to the bridge.
 * Does not own: tool logic, validation or auth decisions — the bridge in the host process does all of that.
 * Env: GROK_SEAT_BRIDGE_URL, GROK_SEAT_BRIDGE_TOKEN (required); GROK_SEAT_BRIDGE_HEALTH_MS (default 2000).
 * Invariants: stdout carries MCP only (diagnostics go to stderr). The process exits when stdin closes
 *   (grok starts MCP servers in their own process group, so a group kill misses us) and when the bridge
 *   is gone (refused/unauthorized health check or call), so it never outlives its session.
 * Transport: node:http over a keep-alive Agent with TCP_NODELAY, not fetch — undici's per-call machinery
 *   (web streams, Request/Response objects) was most of this process's CPU per call (BENCHMARKS.md P3).
 */
import { Agent, request as httpRequest } from "node:http";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

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

/** Reused loopback connections (one per concurrent request); idle ones are dropped before the bridge's keep-alive timeout. */
const agent = new Agent({ keepAlive: true, noDelay: true });
const bridgeTarget = new URL(bridgeUrl);
const authorization = `Bearer ${bridgeToken}`;

/** A bridge answer: its status and parsed JSON body (undefined when the body is not JSON). */
interface BridgeAnswer {
  status: number;
  body: unknown;
}

/** True when a request failure means nobody listens at the bridge address any more. */
function isBridgeGone(error: unknown): boolean {
  return ["ECONNREFUSED", "ECONNRESET", "EPIPE"].includes((error as { code?: string } | undefined)?.code ?? "");
}

function sendOnce(
  path: string,
  method: "GET" | "POST",
  body: string | undefined,
  signal: AbortSignal | undefined,
): Promise<BridgeAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization };
    if (body !== undefined) {
      headers["content-type"] = "application/json";
      headers["content-length"] = Buffer.byteLength(body);
    }
    let answered = false;
    const req = httpRequest(
      {
        agent,
        host: bridgeTarget.hostname,
        port: bridgeTarget.port,
        path,
        method,
        headers,
        ...(signal ? { signal } : {}),
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", reject);
        res.on("end", () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          } catch {
            parsed = undefined;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      },
    );
    // Retrying is only safe when the bridge never answered on a reused socket (see bridgeRequest).
    req.on("error", (error) => reject(Object.assign(error, { retryable: req.reusedSocket && !answered })));
    req.end(body);
  });
}

async function bridgeRequest(
  path: string,
  method: "GET" | "POST",
  body?: string,
  signal?: AbortSignal,
): Promise<BridgeAnswer> {
  let answer: BridgeAnswer;
  try {
    answer = await sendOnce(path, method, body, signal);
  } catch (error) {
    // A kept-alive socket the bridge closed while idle fails before the request was read; retry once on a
    // fresh connection, which fails with ECONNREFUSED when the bridge itself is gone.
    if (!(error as { retryable?: boolean }).retryable || !isBridgeGone(error) || signal?.aborted) throw error;
    answer = await sendOnce(path, method, body, signal);
  }
  // 401 means our token is no longer the bridge's: the session that started us is gone.
  if (answer.status === 401) exit(0, "the bridge no longer accepts our token");
  return answer;
}

function errorResult(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

const server = new Server({ name: "grok-seat-host-tools", version: "1.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => {
  const { status, body } = await bridgeRequest("/tools", "GET");
  if (status !== 200) throw new Error(`host-tools bridge answered ${status} to /tools`);
  return { tools: (body as { tools: Tool[] }).tools };
});

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const { name, arguments: args } = request.params;
  try {
    const { status, body } = await bridgeRequest(
      "/call",
      "POST",
      JSON.stringify({ name, arguments: args ?? {} }),
      extra.signal,
    );
    if (status !== 200) {
      return errorResult(
        `host-tools bridge refused the call (${status}): ${(body as { error?: string } | undefined)?.error ?? ""}`,
      );
    }
    if (body === undefined) throw new Error("host-tools bridge answered a call with a body that is not JSON");
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
  bridgeRequest("/health", "GET", undefined, AbortSignal.timeout(Math.max(1000, healthMs)))
    .then(() => {
      healthTimeouts = 0;
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
