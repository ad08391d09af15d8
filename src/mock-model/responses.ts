/*
 * OpenAI Responses dialect of the mock model (Codex: `POST /v1/responses`).
 * Owns: reading a Responses request into the script's chat shape, and streaming a reply as Responses SSE
 *   (`response.created`, `response.output_text.delta`, `response.output_item.added|done`, `response.completed`).
 * Does not own: what to answer (script.ts).
 * Invariant: the user's query is the newest user message; a run of assistant items (message, reasoning,
 *   function_call) counts as one model round, so scripts work the same as with Chat Completions.
 * Spec: shared reference mock-model.md §6.
 */
import type { ServerResponse } from "node:http";
import type { ChatRequest, MockReply } from "./script.js";
import { openSse, words } from "./sse-writer.js";

interface ResponsesItem {
  type?: string;
  role?: string;
  content?: unknown;
  output?: unknown;
}

/** A parsed Responses request (lenient). */
export interface ResponsesRequest {
  model?: string;
  input?: ResponsesItem[] | string;
  tools?: unknown[];
  stream?: boolean;
}

function itemText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p && typeof p === "object" && "text" in p ? String((p as { text: unknown }).text) : ""))
    .join("");
}

/** Reads a Responses request as the script's chat shape (user queries wrapped in `<user_query>`). */
export function responsesToChat(body: ResponsesRequest): ChatRequest & { hasTools: boolean } {
  const items =
    typeof body.input === "string" ? [{ type: "message", role: "user", content: body.input }] : (body.input ?? []);
  const messages: Array<{ role: string; content: string }> = [];
  for (const item of items) {
    const type = item.type ?? "message";
    if (type === "message" && item.role === "user") {
      messages.push({ role: "user", content: `<user_query>${itemText(item.content)}</user_query>` });
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      const output =
        typeof item.output === "string"
          ? item.output
          : itemText((item.output as { content?: unknown })?.content ?? item.output);
      messages.push({ role: "tool", content: output });
    } else if (
      (type === "message" && item.role === "assistant") ||
      type === "function_call" ||
      type === "custom_tool_call" ||
      type === "reasoning"
    ) {
      const last = messages[messages.length - 1];
      if (last?.role === "assistant") last.content += itemText(item.content);
      else messages.push({ role: "assistant", content: itemText(item.content) });
    }
  }
  return { model: body.model, messages, hasTools: (body.tools?.length ?? 0) > 0 };
}

/** Streams `reply` as a Responses SSE stream. */
export async function streamResponses(
  res: ServerResponse,
  reply: MockReply,
  model: string,
  counter: number,
): Promise<void> {
  const id = `resp_mock_${counter}`;
  const send = openSse(res, reply);
  const event = (type: string, data: Record<string, unknown>, paced = true) => send({ type, ...data }, type, paced);
  await event(
    "response.created",
    { response: { id, object: "response", model, status: "in_progress", output: [] } },
    false,
  );
  let outputIndex = 0;
  const text = reply.text ?? "";
  if (text !== "") {
    const itemId = `msg_mock_${counter}`;
    await event(
      "response.output_item.added",
      {
        output_index: outputIndex,
        item: { type: "message", id: itemId, role: "assistant", status: "in_progress", content: [] },
      },
      false,
    );
    for (const word of words(text)) {
      if (
        !(await event("response.output_text.delta", {
          item_id: itemId,
          output_index: outputIndex,
          content_index: 0,
          delta: word,
        }))
      )
        return;
    }
    await event(
      "response.output_item.done",
      {
        output_index: outputIndex,
        item: {
          type: "message",
          id: itemId,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text, annotations: [] }],
        },
      },
      false,
    );
    outputIndex += 1;
  }
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const item = {
      type: "function_call",
      id: `fc_mock_${counter}_${index}`,
      call_id: `call_mock_${counter}_${index}`,
      name: call.name,
      ...(call.namespace ? { namespace: call.namespace } : {}),
      arguments: JSON.stringify(call.arguments),
      status: "completed",
    };
    await event(
      "response.output_item.added",
      { output_index: outputIndex, item: { ...item, arguments: "", status: "in_progress" } },
      false,
    );
    if (!(await event("response.output_item.done", { output_index: outputIndex, item }))) return;
    outputIndex += 1;
  }
  const output = words(text).length + (reply.toolCalls?.length ?? 0);
  await event(
    "response.completed",
    {
      response: {
        id,
        object: "response",
        model,
        status: "completed",
        usage: {
          input_tokens: 11,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 11 + output,
        },
      },
    },
    false,
  );
  res.end();
}
