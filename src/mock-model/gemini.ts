/*
 * Gemini dialect of the mock model (Gemini CLI: `POST /v1beta/models/<m>:generateContent` and
 *   `:streamGenerateContent?alt=sse`).
 * Owns: reading a generateContent request into the script's chat shape, answering JSON-mode side calls
 *   (router, next-speaker) with a value shaped by their schema, and encoding replies as Gemini responses.
 * Does not own: what to answer (script.ts).
 * Invariant: a user turn made only of functionResponse parts is a tool result, not a new query; a call with a
 *   response schema always gets schema-shaped JSON (else the CLI loops); a call without tools gets plain text.
 * Spec: shared reference mock-model.md §5 (peers' multi-API mock) and the note at the end of §7.
 */
import type { ServerResponse } from "node:http";
import type { ChatRequest, MockReply } from "./script.js";
import { openSse, words } from "./sse-writer.js";

interface Part {
  text?: unknown;
  functionCall?: unknown;
  functionResponse?: { response?: unknown };
}

/** A parsed generateContent request (lenient). */
export interface GeminiRequest {
  contents?: Array<{ role?: string; parts?: Part[] }>;
  tools?: Array<{ functionDeclarations?: unknown[] }>;
  generationConfig?: { responseJsonSchema?: unknown; responseSchema?: unknown };
}

/** The JSON schema of a JSON-mode side call, if the request has one. */
export function geminiResponseSchema(body: GeminiRequest): unknown {
  return body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
}

/** A value that satisfies the simple schemas the CLI's side calls use (first enum value, empty-ish scalars). */
export function fillSchema(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return null;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const type = String(Array.isArray(s.type) ? s.type[0] : (s.type ?? "")).toLowerCase();
  if (type === "object" || s.properties) {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries((s.properties as Record<string, unknown>) ?? {}))
      out[key] = fillSchema(value);
    return out;
  }
  if (type === "array") return [];
  if (type === "string") return "mock";
  if (type === "number" || type === "integer") return 0;
  if (type === "boolean") return false;
  return null;
}

/** Reads a generateContent request as the script's chat shape (user queries wrapped in `<user_query>`). */
export function geminiToChat(body: GeminiRequest): ChatRequest & { hasTools: boolean } {
  const messages: Array<{ role: string; content: string }> = [];
  for (const c of body.contents ?? []) {
    const parts = c.parts ?? [];
    const text = parts.map((p) => (typeof p.text === "string" ? p.text : "")).join("");
    if (c.role === "model") {
      const last = messages[messages.length - 1];
      if (last?.role === "assistant") last.content += text;
      else messages.push({ role: "assistant", content: text });
    } else if (parts.length > 0 && parts.every((p) => p.functionResponse)) {
      for (const p of parts)
        messages.push({ role: "tool", content: JSON.stringify(p.functionResponse?.response ?? "") });
    } else {
      messages.push({ role: "user", content: `<user_query>${text}</user_query>` });
    }
  }
  const hasTools = (body.tools ?? []).some((t) => (t.functionDeclarations?.length ?? 0) > 0);
  return { messages, hasTools };
}

function candidate(parts: unknown[], finish?: string): Record<string, unknown> {
  return { content: { role: "model", parts }, index: 0, ...(finish ? { finishReason: finish } : {}) };
}

const USAGE = { promptTokenCount: 11, candidatesTokenCount: 3, totalTokenCount: 14 };

/** Answers one non-streamed generateContent call: schema-shaped JSON when asked, else the reply. */
export function plainGemini(res: ServerResponse, reply: MockReply, schema: unknown): void {
  const parts =
    schema !== undefined
      ? [{ text: JSON.stringify(fillSchema(schema)) }]
      : [
          ...(reply.text ? [{ text: reply.text }] : []),
          ...(reply.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.arguments ?? {} } })),
        ];
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify({ candidates: [candidate(parts, "STOP")], usageMetadata: USAGE, modelVersion: "mock-model" }));
}

/** Streams `reply` as `streamGenerateContent?alt=sse` chunks. */
export async function streamGemini(res: ServerResponse, reply: MockReply): Promise<void> {
  const send = openSse(res, reply);
  const all = words(reply.text ?? "");
  for (const word of all) {
    if (!(await send({ candidates: [candidate([{ text: word }])], modelVersion: "mock-model" }))) return;
  }
  const calls = (reply.toolCalls ?? []).map((c) => ({ functionCall: { name: c.name, args: c.arguments ?? {} } }));
  await send(
    {
      candidates: [candidate(calls.length > 0 ? calls : [{ text: "" }], "STOP")],
      usageMetadata: USAGE,
      modelVersion: "mock-model",
    },
    undefined,
    false,
  );
  res.end();
}
