/*
 * Tool bridge: the loopback HTTP endpoint through which the MCP server process reaches host tools.
 * Owns: one node:http server per session on 127.0.0.1:<ephemeral>, its bearer token, request limits.
 * Does not own: MCP framing (mcp-server.ts) or tool semantics (registry.ts).
 * Wire: every request needs `Authorization: Bearer <token>` (else 401).
 *   GET /health → {ok:true}; GET /tools → {tools: ListedTool[]};
 *   POST /call {name, arguments} → MCP CallToolResult (tool failures are `isError` results with 200).
 *   Body over maxBodyBytes → 413; bad JSON or shape → 400 {error}. An abandoned request aborts the tool's signal.
 *   A call the session's permission decision refuses (`authorize`) → 403 {error, code: "PERMISSION_DENIED"};
 *   the tool's execute is not run. The token alone never bypasses a policy that blocks or asks for `mcp`.
 * Invariant: only the per-session random token is accepted, compared in constant time; nothing but loopback listens.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { SeatError, messageOf } from "../errors.js";
import type { ToolRegistry } from "./registry.js";

/** Options of startBridge. */
export interface BridgeOptions {
  /** Largest accepted request body in bytes (default 4 MiB). */
  maxBodyBytes?: number;
  /** Port to bind on 127.0.0.1; 0 (default) picks an ephemeral one. */
  port?: number;
  /** Asked before every /call with the bare tool name; false refuses it (403 PERMISSION_DENIED). Default: allow. */
  authorize?: (toolName: string) => boolean | Promise<boolean>;
}

/** A running bridge: where it listens, the token it accepts, and how to stop it. */
export interface Bridge {
  url: string;
  token: string;
  /** Stops listening, aborts in-flight calls and drops open connections. Idempotent. */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? 0);
    if (declared > maxBytes) return reject(new HttpError(413, `Request body exceeds ${maxBytes} bytes.`));
    const chunks: Buffer[] = [];
    let size = 0;
    // Past the cap we keep draining (discarding) so the 413 answer can still be delivered.
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    req.on("end", () => {
      if (size > maxBytes) reject(new HttpError(413, `Request body exceeds ${maxBytes} bytes.`));
      else resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
  });
}

function parseCall(text: string): { name: string; args: unknown } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, `Request body is not valid JSON: ${messageOf(error)}`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, 'Request body must be a JSON object {"name", "arguments"}.');
  }
  const { name, arguments: args } = body as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || name.length === 0) throw new HttpError(400, 'Request body needs a string "name".');
  return { name, args: args ?? {} };
}

/**
 * Starts a bridge for `registry` on loopback with a fresh 256-bit token. Rejects with TOOL_BRIDGE_FAILED
 * (context.reason "bridge-start-failed") when the server cannot listen.
 */
export async function startBridge(registry: ToolRegistry, options: BridgeOptions = {}): Promise<Bridge> {
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const token = randomBytes(32).toString("base64url");
  const expected = digest(`Bearer ${token}`);
  const inFlight = new Set<AbortController>();

  const authorized = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization;
    return typeof header === "string" && timingSafeEqual(digest(header), expected);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!authorized(req)) {
      res.setHeader("www-authenticate", "Bearer");
      return sendJson(res, 401, { error: "Missing or wrong bearer token." });
    }
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/health" && req.method === "GET") return sendJson(res, 200, { ok: true });
    if (path === "/tools" && req.method === "GET") return sendJson(res, 200, { tools: registry.tools });
    if (path === "/call" && req.method === "POST") {
      const { name, args } = parseCall(await readBody(req, maxBodyBytes));
      const allowed = options.authorize ? await Promise.resolve(options.authorize(name)).catch(() => false) : true;
      if (!allowed)
        return sendJson(res, 403, {
          error: `The session's permission policy refuses the MCP call to "${name}".`,
          code: "PERMISSION_DENIED",
        });
      const controller = new AbortController();
      inFlight.add(controller);
      // The MCP server aborts its HTTP request when grok cancels the call; pass that on to the tool.
      res.on("close", () => {
        if (!res.writableFinished) controller.abort(new Error("the tool call was abandoned by its caller"));
      });
      try {
        const result = await registry.call(name, args, controller.signal);
        if (!res.destroyed) sendJson(res, 200, result);
      } finally {
        inFlight.delete(controller);
      }
      return;
    }
    if (["/health", "/tools", "/call"].includes(path))
      return sendJson(res, 405, { error: `Method ${req.method} not allowed on ${path}.` });
    return sendJson(res, 404, { error: `No bridge endpoint ${path}.` });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent || res.destroyed) return;
      const status = error instanceof HttpError ? error.status : 500;
      sendJson(res, status, { error: messageOf(error) });
    });
  });
  server.headersTimeout = 10_000;

  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen({ host: "127.0.0.1", port: options.port ?? 0 }, () => {
        server.off("error", reject);
        resolve();
      });
    });
  } catch (error) {
    throw new SeatError(
      "TOOL_BRIDGE_FAILED",
      `GROK_SEAT_TOOL_BRIDGE_FAILED: bridge-start-failed — the host-tools bridge could not listen on 127.0.0.1 (${messageOf(error)}). ` +
        "The host-tools MCP entry is omitted; check loopback networking and retry.",
      { context: { reason: "bridge-start-failed" }, cause: error, retryable: true },
    );
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;

  return {
    url: `http://127.0.0.1:${port}`,
    token,
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const controller of inFlight) controller.abort(new Error("the host-tools bridge closed"));
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
