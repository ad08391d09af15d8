/*
 * Anthropic Messages dialect of the mock model (Claude: `POST /v1/messages`, `/v1/messages/count_tokens`).
 * Owns: reading a Messages request into the script's chat shape, and answering as Messages SSE
 *   (`message_start`, `content_block_start|delta|stop`, `message_delta`, `message_stop`) or plain JSON.
 * Does not own: what to answer (script.ts).
 * Invariant: a user message made only of tool_result blocks is a tool result, not a new query; each
 *   assistant message is one model round, so scripts work the same as with Chat Completions.
 * Spec: shared reference mock-model.md §7.
 */
import type { ServerResponse } from "node:http";
import type { ChatRequest, MockReply } from "./script.js";
import { openSse, words } from "./sse-writer.js";

interface Block {
  type?: string;
  text?: unknown;
  content?: unknown;
}

/** A parsed Messages request (lenient). */
export interface MessagesRequest {
  model?: string;
  messages?: Array<{ role?: string; content?: string | Block[] }>;
  tools?: unknown[];
  stream?: boolean;
}

function blocksText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((b: Block) =>
      b && typeof b === "object"
        ? typeof b.text === "string"
          ? b.text
          : b.type === "tool_result"
            ? blocksText(b.content)
            : ""
        : "",
    )
    .join("\n");
}

/** Reads a Messages request as the script's chat shape (user queries wrapped in `<user_query>`). */
export function messagesToChat(body: MessagesRequest): ChatRequest & { hasTools: boolean } {
  const messages: Array<{ role: string; content: string }> = [];
  for (const m of body.messages ?? []) {
    const blocks = Array.isArray(m.content) ? m.content : [];
    if (m.role === "user" && blocks.length > 0 && blocks.every((b) => b?.type === "tool_result")) {
      for (const b of blocks) messages.push({ role: "tool", content: blocksText(b.content) });
    } else if (m.role === "user") {
      messages.push({ role: "user", content: `<user_query>${blocksText(m.content)}</user_query>` });
    } else if (m.role === "assistant") {
      messages.push({ role: "assistant", content: blocksText(m.content) });
    }
  }
  return { model: body.model, messages, hasTools: (body.tools?.length ?? 0) > 0 };
}

function contentBlocks(reply: MockReply, counter: number): Array<Record<string, unknown>> {
  const blocks: Array<Record<string, unknown>> = [];
  if (reply.text) blocks.push({ type: "text", text: reply.text });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    blocks.push({
      type: "tool_use",
      id: `toolu_mock_${counter}_${index}`,
      name: call.name,
      input: call.arguments ?? {},
    });
  }
  return blocks;
}

/** Answers `reply` as one non-streamed Messages JSON body. */
export function plainMessages(res: ServerResponse, reply: MockReply, model: string, counter: number): void {
  const content = contentBlocks(reply, counter);
  res.writeHead(200, { "content-type": "application/json" });
  res.end(
    JSON.stringify({
      id: `msg_mock_${counter}`,
      type: "message",
      role: "assistant",
      model,
      content,
      stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 11, output_tokens: 3 },
    }),
  );
}

/** Streams `reply` as a Messages SSE stream. */
export async function streamMessages(
  res: ServerResponse,
  reply: MockReply,
  model: string,
  counter: number,
): Promise<void> {
  const send = openSse(res, reply);
  const event = (type: string, data: Record<string, unknown>, paced = true) => send({ type, ...data }, type, paced);
  await event(
    "message_start",
    {
      message: {
        id: `msg_mock_${counter}`,
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 11, output_tokens: 1 },
      },
    },
    false,
  );
  let index = 0;
  if (reply.text) {
    await event("content_block_start", { index, content_block: { type: "text", text: "" } }, false);
    for (const word of words(reply.text)) {
      if (!(await event("content_block_delta", { index, delta: { type: "text_delta", text: word } }))) return;
    }
    await event("content_block_stop", { index }, false);
    index += 1;
  }
  for (const [n, call] of (reply.toolCalls ?? []).entries()) {
    await event(
      "content_block_start",
      { index, content_block: { type: "tool_use", id: `toolu_mock_${counter}_${n}`, name: call.name, input: {} } },
      false,
    );
    if (
      !(await event("content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(call.arguments ?? {}) },
      }))
    )
      return;
    await event("content_block_stop", { index }, false);
    index += 1;
  }
  const output = words(reply.text ?? "").length + (reply.toolCalls?.length ?? 0);
  await event(
    "message_delta",
    {
      delta: { stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: output },
    },
    false,
  );
  await event("message_stop", {}, false);
  res.end();
}
