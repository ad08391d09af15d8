/*
 * Mock model server: a scripted OpenAI Chat Completions endpoint on loopback that the real grok accepts,
 *   plus the OpenAI Responses (Codex) and Anthropic Messages (Claude) dialects of the same script.
 * Owns: the HTTP listener (`GET /`, `GET /v1/models`, `POST /v1/chat/completions` streamed or plain,
 *   `POST /v1/responses`, `POST /v1/messages[/count_tokens]`, Gemini `…:generateContent|streamGenerateContent`), Chat SSE encoding, and the request log
 *   (auth headers removed). A Responses or Messages call without tools is a side call (title) and gets text.
 * Does not own: what to answer (script.ts).
 * Invariant: listens on 127.0.0.1 only; accepts any model name and unknown body keys.
 * Spec: shared reference mock-model.md.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { appendFileSync } from "node:fs";
import {
  chooseReply,
  classifyRequest,
  lastUserQuery,
  withQueryTags,
  type ChatRequest,
  type MockReply,
  type MockScript,
  type RequestKind,
} from "./script.js";
import { responsesToChat, streamResponses, type ResponsesRequest } from "./responses.js";
import {
  fillSchema as fillSchemaValue,
  geminiResponseSchema,
  geminiToChat,
  plainGemini,
  streamGemini,
  type GeminiRequest,
} from "./gemini.js";
import { messagesToChat, plainMessages, streamMessages, type MessagesRequest } from "./messages.js";

/** One request the mock received. */
export interface LoggedRequest {
  t: number;
  method: string;
  url: string;
  kind: RequestKind | "probe" | "models";
  /** Which API the call spoke (absent for GETs). */
  dialect?: "chat" | "responses" | "messages" | "gemini";
  /** `x-grok-req-id`: the promptId that reached the model — the direct evidence of model awareness. */
  reqId?: string;
  headers: Record<string, string>;
  body?: unknown;
  /** The last user query the script matched its rules on (scripted kinds of every dialect). */
  query?: string;
  /** Chat Completions: the usage the mock reported for this call, once its answer was written in full. */
  served?: { promptTokens: number; completionTokens: number };
}

/** A running mock model server. */
export interface MockModelServer {
  /** Base URL ending in `/v1`, for `[model.<id>] base_url`. */
  readonly baseUrl: string;
  readonly port: number;
  /** Every request so far, in arrival order. */
  readonly requests: LoggedRequest[];
  /** Replaces the script for subsequent requests. */
  setScript(script: MockScript): void;
  close(): Promise<void>;
}

/** Options for startMockModel. */
export interface MockModelOptions {
  script?: MockScript;
  port?: number;
  /** Append each logged request as a JSON line to this file. */
  logFile?: string;
  /** The model id reported by `GET /v1/models`. */
  modelId?: string;
  /**
   * Chat Completions: report `prompt_tokens` as the request body's size / 4 (rounded up) instead of a fixed 11,
   * so a call that re-sends a long conversation costs what it sent (the spend tests measure against it).
   */
  promptTokensFromBody?: boolean;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error("request body too large"));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function chunkObject(id: string, model: string, delta: unknown, finish: string | null): string {
  const choice = { index: 0, delta, finish_reason: finish };
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices: [choice] })}\n\n`;
}

function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

async function streamReply(
  res: ServerResponse,
  reply: MockReply,
  model: string,
  counter: number,
  promptTokens: number,
  served: (usage: { promptTokens: number; completionTokens: number }) => void,
): Promise<void> {
  const id = `chatcmpl-mock-${counter}`;
  const delay = reply.chunkDelayMs ?? 0;
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  let sent = 0;
  const send = async (payload: string): Promise<boolean> => {
    if (reply.cutAfterChunks !== undefined && sent >= reply.cutAfterChunks) {
      res.destroy();
      return false;
    }
    if (delay > 0) await sleep(delay);
    if (res.destroyed) return false;
    res.write(payload);
    sent += 1;
    return true;
  };
  res.write(chunkObject(id, model, { role: "assistant", content: "" }, null));
  for (const word of words(reply.reasoning ?? "")) {
    if (!(await send(chunkObject(id, model, { reasoning_content: word }, null)))) return;
  }
  for (const word of words(reply.text ?? "")) {
    if (!(await send(chunkObject(id, model, { content: word }, null)))) return;
  }
  const calls = reply.toolCalls ?? [];
  for (const [index, call] of calls.entries()) {
    const delta = {
      tool_calls: [
        {
          index,
          id: `call_mock_${counter}_${index}`,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        },
      ],
    };
    if (!(await send(chunkObject(id, model, delta, null)))) return;
  }
  res.write(chunkObject(id, model, {}, calls.length > 0 ? "tool_calls" : "stop"));
  const completion = words(reply.text ?? "").length + calls.length;
  res.write(
    `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion } })}\n\n`,
  );
  res.end("data: [DONE]\n\n");
  served({ promptTokens, completionTokens: completion });
}

function plainReply(
  res: ServerResponse,
  reply: MockReply,
  model: string,
  counter: number,
  promptTokens: number,
  served: (usage: { promptTokens: number; completionTokens: number }) => void,
): void {
  const calls = (reply.toolCalls ?? []).map((call, index) => ({
    id: `call_mock_${counter}_${index}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  const message = {
    role: "assistant",
    content: reply.text ?? null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `chatcmpl-mock-${counter}`,
      object: "chat.completion",
      created: 0,
      model,
      choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 3, total_tokens: promptTokens + 3 },
    }),
  );
  served({ promptTokens, completionTokens: 3 });
}

/** The OpenAI error type for a status: a 4xx is the client's fault (agents such as OpenCode retry "server_error"). */
function errorType(status: number): string {
  return status >= 500 ? "server_error" : "invalid_request_error";
}

function json(res: ServerResponse, status: number, body: unknown, retryAfterSeconds?: number): void {
  res.writeHead(status, {
    "content-type": "application/json",
    ...(retryAfterSeconds === undefined ? {} : { "retry-after": String(retryAfterSeconds) }),
  });
  res.end(JSON.stringify(body));
}

/** Starts the mock on 127.0.0.1 (port 0 = ephemeral) and resolves once it listens. */
export async function startMockModel(options: MockModelOptions = {}): Promise<MockModelServer> {
  let script: MockScript = options.script ?? {};
  const requests: LoggedRequest[] = [];
  const open = new Set<ServerResponse>();
  let counter = 0;
  const log = (entry: LoggedRequest) => {
    requests.push(entry);
    if (options.logFile) appendFileSync(options.logFile, `${JSON.stringify(entry)}\n`);
  };

  const server: Server = createServer((req, res) => {
    open.add(res);
    res.on("close", () => open.delete(res));
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent)
        json(res, 400, {
          error: { message: error instanceof Error ? error.message : String(error), type: "invalid_request_error" },
        });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? "/";
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (key !== "authorization" && typeof value === "string") headers[key] = value;
    }
    const reqId =
      typeof req.headers["x-grok-req-id"] === "string" && req.headers["x-grok-req-id"] !== ""
        ? req.headers["x-grok-req-id"]
        : undefined;
    if (req.method === "GET" && url.endsWith("/models")) {
      log({ t: Date.now(), method: "GET", url, kind: "models", headers });
      json(res, 200, {
        object: "list",
        data: [{ id: options.modelId ?? "mock-model", object: "model", created: 0, owned_by: "mock" }],
      });
      return;
    }
    if (req.method === "POST" && url.endsWith("/chat/completions")) {
      const text = await readBody(req);
      const body = JSON.parse(text) as ChatRequest;
      if (typeof body !== "object" || body === null) throw new Error("body must be a JSON object");
      // grok marks its queries and its side calls; another agent's call without tools is a side call (a title).
      const scripted = reqId === undefined ? withQueryTags(body) : body;
      const sideCall = reqId === undefined && scripted !== body && (body.tools?.length ?? 0) === 0;
      const kind: RequestKind = sideCall ? "title" : classifyRequest(reqId, scripted);
      const entry: LoggedRequest = {
        t: Date.now(),
        method: "POST",
        url,
        kind,
        dialect: "chat",
        reqId,
        headers,
        body,
        query: lastUserQuery(scripted.messages ?? []),
      };
      log(entry);
      const promptTokens = options.promptTokensFromBody ? Math.ceil(Buffer.byteLength(text) / 4) : 11;
      const served = (usage: { promptTokens: number; completionTokens: number }) => void (entry.served = usage);
      const reply = sideCall ? { text: "Mock session" } : chooseReply(script, kind, scripted);
      counter += 1;
      if (reply.hang) return; // left open until the client or close() ends it
      if (reply.errorStatus) {
        json(
          res,
          reply.errorStatus,
          { error: { message: `mock error ${reply.errorStatus}`, type: errorType(reply.errorStatus) } },
          reply.retryAfterSeconds,
        );
        return;
      }
      const model = body.model ?? "mock-model";
      if (body.stream === false) plainReply(res, reply, model, counter, promptTokens, served);
      else await streamReply(res, reply, model, counter, promptTokens, served);
      return;
    }
    const path = url.split("?")[0] ?? url;
    if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
      await readBody(req);
      log({ t: Date.now(), method: "POST", url, kind: "other", dialect: "messages", headers });
      json(res, 200, { input_tokens: 10 });
      return;
    }
    if (req.method === "POST" && /:(stream)?[gG]enerateContent$/.test(path)) {
      const body = JSON.parse(await readBody(req)) as GeminiRequest;
      if (typeof body !== "object" || body === null) throw new Error("body must be a JSON object");
      const chat = geminiToChat(body);
      const schema = geminiResponseSchema(body);
      const kind: RequestKind = schema !== undefined || !chat.hasTools ? "title" : classifyRequest(undefined, chat);
      log({
        t: Date.now(),
        method: "POST",
        url,
        kind,
        dialect: "gemini",
        headers,
        body,
        query: lastUserQuery(chat.messages ?? []),
      });
      const reply = kind === "title" ? { text: "Mock session" } : chooseReply(script, kind, chat);
      counter += 1;
      if (reply.hang) return;
      if (reply.errorStatus) {
        json(res, reply.errorStatus, {
          error: { code: reply.errorStatus, message: `mock error ${reply.errorStatus}`, status: "INTERNAL" },
        });
        return;
      }
      if (path.endsWith(":streamGenerateContent"))
        await streamGemini(res, schema !== undefined ? { text: JSON.stringify(fillSchemaValue(schema)) } : reply);
      else plainGemini(res, reply, schema);
      return;
    }
    if (req.method === "POST" && (path.endsWith("/responses") || path.endsWith("/messages"))) {
      const dialect = path.endsWith("/responses") ? "responses" : "messages";
      const body = JSON.parse(await readBody(req)) as ResponsesRequest & MessagesRequest;
      if (typeof body !== "object" || body === null) throw new Error("body must be a JSON object");
      const chat = dialect === "responses" ? responsesToChat(body) : messagesToChat(body);
      const kind: RequestKind = chat.hasTools ? classifyRequest(undefined, chat) : "title";
      log({
        t: Date.now(),
        method: "POST",
        url,
        kind,
        dialect,
        headers,
        body,
        query: lastUserQuery(chat.messages ?? []),
      });
      const reply = chat.hasTools ? chooseReply(script, kind, chat) : { text: "Mock session" };
      counter += 1;
      if (reply.hang) return;
      if (reply.errorStatus) {
        json(res, reply.errorStatus, {
          error: { message: `mock error ${reply.errorStatus}`, type: errorType(reply.errorStatus) },
        });
        return;
      }
      const model = body.model ?? "mock-model";
      if (dialect === "responses") await streamResponses(res, reply, model, counter);
      else if (body.stream === true) await streamMessages(res, reply, model, counter);
      else plainMessages(res, reply, model, counter);
      return;
    }
    log({ t: Date.now(), method: req.method ?? "?", url, kind: "probe", headers });
    json(res, 404, { error: { message: "not found" } });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    setScript(next) {
      script = next;
    },
    close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
