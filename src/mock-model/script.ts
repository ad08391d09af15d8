/*
 * Mock model script: what the scripted model answers to each kind of request grok sends.
 * Owns: classifying a Chat Completions request (title, main turn, tool follow-up, summary, title refresh)
 *   and choosing the scripted reply for it.
 * Does not own: HTTP or SSE encoding (server.ts, sse.ts).
 * Invariant: only main turns and tool follow-ups are scripted; title and summary calls always get
 *   plain text or the title tool, never a host tool call (their history still holds the trigger text).
 * Spec: shared reference mock-model.md §2.1 and §4.
 */

/** A tool call the mock model makes. */
export interface MockToolCall {
  name: string;
  /** OpenAI Responses only: the tool namespace (Codex lists MCP tools under `mcp__<server>`). */
  namespace?: string;
  arguments: unknown;
}

/** One model answer within a turn. */
export interface MockReply {
  /** Text streamed word by word; `{{last_tool_result}}` is replaced by the newest `role:"tool"` message. */
  text?: string;
  /** Reasoning streamed before the text (`reasoning_content` deltas). */
  reasoning?: string;
  /** Tool calls streamed after the text. */
  toolCalls?: MockToolCall[];
  /** Answer with this HTTP status and a JSON error body instead of a stream. */
  errorStatus?: number;
  /** With errorStatus: a `retry-after` header of this many seconds. */
  retryAfterSeconds?: number;
  /** Never answer: the request hangs until the client goes away. */
  hang?: boolean;
  /** Close the stream after this many content chunks, without `[DONE]`. */
  cutAfterChunks?: number;
  /** Delay before each streamed chunk. */
  chunkDelayMs?: number;
}

/** A scripted rule: when the last user query matches, answer the n-th model call of the turn with replies[n]. */
export interface MockRule {
  /** Substring of the last `<user_query>` (or a RegExp). */
  match: string | RegExp;
  /** replies[0] answers the first call; replies[k] the call after k rounds of tool results. */
  replies: MockReply[];
}

/** The whole script. Rules are tried in order; the first match wins. */
export interface MockScript {
  rules?: MockRule[];
  /** Answer when no rule matches. Default: "pong from mock". */
  fallback?: MockReply;
  /** Delay before each chunk for every reply without its own. */
  chunkDelayMs?: number;
}

/** How a request was classified. */
export type RequestKind = "title" | "main" | "tool_followup" | "summary" | "title_refresh" | "other";

interface ChatMessage {
  role?: string;
  content?: unknown;
}

/** A parsed Chat Completions request body (lenient: unknown keys are ignored). */
export interface ChatRequest {
  model?: string;
  messages?: ChatMessage[];
  tools?: unknown[];
  tool_choice?: unknown;
  stream?: boolean;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (part && typeof part === "object" && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

/** Classifies a request from its headers and body. */
export function classifyRequest(reqId: string | undefined, body: ChatRequest): RequestKind {
  const choice = body.tool_choice as { function?: { name?: string } } | undefined;
  if (choice?.function?.name === "session_title") return "title";
  if (reqId?.startsWith("xai-turn-summary-")) return "summary";
  if (reqId?.startsWith("xai-title-refresh-")) return "title_refresh";
  const messages = body.messages ?? [];
  if (messages.length === 0) return "other";
  return roundsAfterLastQuery(messages) > 0 ? "tool_followup" : "main";
}

/** The text inside the last `<user_query>` message, or the last user message. */
export function lastUserQuery(messages: ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m?.role !== "user") continue;
    const text = textOf(m.content);
    const found = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/.exec(text);
    if (found) return found[1] ?? "";
  }
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  return lastUser ? textOf(lastUser.content) : "";
}

/** How many assistant tool-call rounds came after the last user query. */
export function roundsAfterLastQuery(messages: ChatMessage[]): number {
  let index = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i];
    if (m?.role === "user" && textOf(m.content).includes("<user_query>")) {
      index = i;
      break;
    }
  }
  if (index < 0) return 0;
  return messages.slice(index + 1).filter((m) => m.role === "assistant").length;
}

/**
 * A Chat Completions request from an agent other than grok (OpenCode) has no `<user_query>` tags: wrap each
 * user message so the script's rules see its queries the same way. Grok's requests are returned unchanged.
 */
export function withQueryTags(body: ChatRequest): ChatRequest {
  const messages = body.messages ?? [];
  if (messages.some((m) => m.role === "user" && textOf(m.content).includes("<user_query>"))) return body;
  return {
    ...body,
    messages: messages.map((m) =>
      m.role === "user" ? { ...m, content: `<user_query>${textOf(m.content)}</user_query>` } : m,
    ),
  };
}

const LAST_TOOL_RESULT = "{{last_tool_result}}";

/** The text of the newest tool result in the history (what the model was just told), or "(none)". */
export function lastToolResult(messages: ChatMessage[]): string {
  const tool = [...messages].reverse().find((m) => m.role === "tool");
  return tool ? textOf(tool.content).trim() : "(none)";
}

function matches(rule: MockRule, query: string): boolean {
  return typeof rule.match === "string" ? query.includes(rule.match) : rule.match.test(query);
}

/** Picks the reply for a request, following the script. */
export function chooseReply(script: MockScript, kind: RequestKind, body: ChatRequest): MockReply {
  if (kind === "title") return { toolCalls: [{ name: "session_title", arguments: { session_title: "Mock session" } }] };
  if (kind === "summary") return { text: "Mock turn summary" };
  if (kind === "title_refresh") return { text: "Mock session" };
  const messages = body.messages ?? [];
  const query = lastUserQuery(messages);
  const round = roundsAfterLastQuery(messages);
  const rule = (script.rules ?? []).find((r) => matches(r, query));
  const base = rule
    ? (rule.replies[round] ?? rule.replies[rule.replies.length - 1] ?? {})
    : (script.fallback ?? { text: "pong from mock" });
  // A tool loop ends once the history holds the results of the scripted calls.
  if (rule && round >= rule.replies.length && base.toolCalls) return { text: "done" };
  const reply = { chunkDelayMs: script.chunkDelayMs, ...base };
  if (reply.text?.includes(LAST_TOOL_RESULT))
    reply.text = reply.text.split(LAST_TOOL_RESULT).join(lastToolResult(messages));
  return reply;
}

/** Reads a script from JSON, where `match` strings of the form "/re/flags" become RegExps. */
export function parseScript(json: string): MockScript {
  const raw = JSON.parse(json) as MockScript & { rules?: Array<MockRule & { match: string }> };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new TypeError("mock script must be a JSON object");
  const rules = (raw.rules ?? []).map((rule) => {
    if (typeof rule.match !== "string" || !Array.isArray(rule.replies)) {
      throw new TypeError("each mock rule needs a string `match` and a `replies` array");
    }
    const re = /^\/(.*)\/([a-z]*)$/s.exec(rule.match);
    return { ...rule, match: re ? new RegExp(re[1] ?? "", re[2]) : rule.match };
  });
  return { ...raw, rules };
}
