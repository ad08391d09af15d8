/*
 * MCP tool results: how every tool of `seat mcp` answers — structured content plus text, or a tool error that
 *   carries our code — and how a running tool reports progress.
 * Owns: toolResult / toolError / guarded (a handler that never throws past the SDK), the progress sender
 *   (`notifications/progress` with a chunk of text as `message` and the event as `_meta["grok-seat/event"]`).
 * Does not own: what any tool does (tools/).
 * Invariant: everything that leaves through a result or a notification passes through redact() / redactText();
 *   a tool error is `isError: true`, its text ends with `[CODE]`, and `_meta["grok-seat/error"]` holds the code.
 */
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { isSeatError, messageOf } from "../errors.js";
import { redact, redactText } from "../internal/redact.js";

/** The extra argument the SDK hands a tool handler (signal, progress token, sendNotification). */
export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The `_meta` key of a tool error's code and of a progress notification's event. */
export const ERROR_META_KEY = "grok-seat/error";
export const EVENT_META_KEY = "grok-seat/event";

/** A successful result: `structured` (redacted) as structured content, and `text` (redacted) as its text. */
export function toolResult(structured: Record<string, unknown>, text: string, isError = false): CallToolResult {
  return {
    content: [{ type: "text", text: redactText(text) }],
    structuredContent: redact(structured),
    ...(isError ? { isError: true } : {}),
  };
}

/** A tool error from anything thrown: our SeatError keeps its code; anything else is INTERNAL. */
export function toolError(error: unknown): CallToolResult {
  const code = isSeatError(error) ? error.code : "INTERNAL";
  const message = bounded(isSeatError(error) ? error.message : `internal error: ${messageOf(error)} [INTERNAL]`);
  return {
    content: [{ type: "text", text: redactText(message) }],
    isError: true,
    _meta: {
      [ERROR_META_KEY]: redact({ code, message, ...(isSeatError(error) ? { retryable: error.retryable } : {}) }),
    },
  };
}

/** The longest tool error text; a message that quotes a huge argument keeps its head and its tail (the code). */
export const MAX_ERROR_CHARS = 2_000;

function bounded(message: string): string {
  if (message.length <= MAX_ERROR_CHARS) return message;
  const cut = message.length - MAX_ERROR_CHARS;
  return `${message.slice(0, MAX_ERROR_CHARS - 200)} … (${cut} characters left out) … ${message.slice(-200)}`;
}

/** Runs a tool body; whatever it throws becomes a tool error (the server never crashes on a call). */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (error) {
    return toolError(error);
  }
}

/** Sends one progress notification per call; a no-op when the client sent no progress token. */
export type ProgressSender = (message: string, event?: unknown) => void;

/**
 * A progress sender for one call: `progress` counts up from 1 per notification (the spec asks it to increase);
 * a failed send (the host is gone) is dropped — the call's own signal ends the work.
 */
export function progressSender(extra: ToolExtra): ProgressSender {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => undefined;
  let progress = 0;
  return (message, event) => {
    progress += 1;
    const params = {
      progressToken: token,
      progress,
      message: redactText(message),
      ...(event === undefined ? {} : { _meta: { [EVENT_META_KEY]: redact(event) } }),
    };
    extra.sendNotification({ method: "notifications/progress", params } as ServerNotification).catch(() => undefined);
  };
}
