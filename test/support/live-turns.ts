/*
 * Live test helpers: run a body against a live rig (failing in required mode, else skipping, when the real grok is
 * unavailable, closing the rig even on failure), a one-rule script that has grok run a shell command, and read
 * what the mock model was sent back after tool calls.
 */
import { isDeepStrictEqual } from "node:util";
import type { LoggedRequest, MockScript } from "../../src/testing.js";
import { startLiveRig, type LiveRig } from "./live-rig.js";
import { gotLive, type TestLike } from "./requirements.js";

/** Starts a rig, runs `body`, and always closes the rig; when grok cannot be provisioned, see requirements.ts `gotLive`. */
export async function withLiveRig(
  t: TestLike,
  script: MockScript,
  body: (rig: LiveRig) => Promise<void>,
): Promise<void> {
  const rig = await startLiveRig(script);
  if (!gotLive(t, rig)) return;
  try {
    await body(rig);
  } finally {
    await rig.close();
  }
}

/**
 * A script whose one rule answers a prompt containing "run echo" with grok's shell tool running `command`
 * (`run_terminal_command`, described as writing a marker), then, after the tool's result, says `reply`.
 */
export function shellCommandScript(command: string, reply: string): MockScript {
  return {
    rules: [
      {
        match: "run echo",
        replies: [
          { toolCalls: [{ name: "run_terminal_command", arguments: { command, description: "write a marker" } }] },
          { text: reply },
        ],
      },
    ],
  };
}

/** One tool result as the model saw it in a follow-up request: the call it answers and the result text. */
export interface SeenToolResult {
  toolCallId: string;
  /** The function the model called (`use_tool` for MCP tools). */
  functionName: string;
  /** The call's parsed arguments (for `use_tool`: `{tool_name, tool_input}`). */
  arguments: Record<string, unknown>;
  /** The `role:"tool"` message content. */
  content: string;
}

interface WireMessage {
  role?: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: Array<{ id?: string; function?: { name?: string; arguments?: string } }>;
}

function messagesOf(request: LoggedRequest): WireMessage[] {
  const body = request.body as { messages?: WireMessage[] } | undefined;
  return Array.isArray(body?.messages) ? body.messages : [];
}

/** Every `role:"tool"` message in `request`, joined with the assistant tool call it answers. */
export function toolResultsIn(request: LoggedRequest): SeenToolResult[] {
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const results: SeenToolResult[] = [];
  for (const message of messagesOf(request)) {
    for (const call of message.tool_calls ?? []) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function?.arguments ?? "{}") as Record<string, unknown>;
      } catch {
        // Leave the arguments empty; the assertion on them will say so.
      }
      calls.set(String(call.id), { name: String(call.function?.name), args });
    }
    if (message.role === "tool") {
      const id = String(message.tool_call_id);
      const call = calls.get(id);
      results.push({
        toolCallId: id,
        functionName: call?.name ?? "(unknown)",
        arguments: call?.args ?? {},
        content: typeof message.content === "string" ? message.content : JSON.stringify(message.content),
      });
    }
  }
  return results;
}

/** The tool results of the last tool follow-up request the model got for `promptId`. */
export function lastFollowUpResults(rig: LiveRig, promptId: string): SeenToolResult[] {
  const followUps = rig.mock.requests.filter((r) => r.kind === "tool_followup" && r.reqId === promptId);
  const last = followUps[followUps.length - 1];
  return last ? toolResultsIn(last) : [];
}

/** The tool result for the MCP tool `qualifiedName` called with exactly `toolInput`, if any. */
export function resultFor(
  results: SeenToolResult[],
  qualifiedName: string,
  toolInput: unknown,
): SeenToolResult | undefined {
  return results.find(
    (r) =>
      r.functionName === "use_tool" &&
      r.arguments.tool_name === qualifiedName &&
      isDeepStrictEqual(r.arguments.tool_input, toolInput),
  );
}

/** The text of every message of the first main-turn request (what the model was told), as one string. */
export function mainRequestText(rig: LiveRig): string {
  const main = rig.mock.requests.find((r) => r.kind === "main");
  return main
    ? messagesOf(main)
        .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")))
        .join("\n")
    : "";
}
