/*
 * Update mapping: ACP `session/update` and grok `_x.ai/*` notifications → SeatEvents.
 * Owns: which wire shapes become which events (text, thinking, tool_start/end, plan, usage, queue, …).
 * Does not own: ordering or delivery to callbacks (session-core.ts) or the transport.
 * Invariant: pure and synchronous — the same input always maps to the same events, for either seat.
 * Spec: seed 002 "Streamed update mapping"; grok-wire.md §8–§10.
 */
import type { SessionNotification } from "@agentclientprotocol/sdk";
import type { PlanEntry, SeatEvent, Usage } from "./events.js";
import { X_AI } from "./methods.js";

type Obj = Record<string, unknown>;

function isObj(value: unknown): value is Obj {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function textOfContent(content: unknown): string {
  if (isObj(content) && content.type === "text") return str(content.text) ?? "";
  return "";
}

/** Reads a usage object in either camelCase or snake_case into camelCase. */
export function readUsage(raw: unknown): Usage | undefined {
  if (!isObj(raw)) return undefined;
  const usage: Usage = {
    inputTokens: num(raw.inputTokens) ?? num(raw.input_tokens),
    outputTokens: num(raw.outputTokens) ?? num(raw.output_tokens),
    totalTokens: num(raw.totalTokens) ?? num(raw.total_tokens),
    // ACP's own `usage` says cachedReadTokens / thoughtTokens / cachedWriteTokens; Codex's and Claude's
    // `_meta.quota.token_count` says cachedInputTokens / reasoningOutputTokens / cacheWriteInputTokens.
    cachedReadTokens: num(raw.cachedReadTokens) ?? num(raw.cache_read_input_tokens) ?? num(raw.cachedInputTokens),
    reasoningTokens:
      num(raw.reasoningTokens) ?? num(raw.reasoning_tokens) ?? num(raw.thoughtTokens) ?? num(raw.reasoningOutputTokens),
    modelCalls: num(raw.modelCalls),
    cacheCreationTokens:
      num(raw.cacheCreationTokens) ??
      num(raw.cache_creation_input_tokens) ??
      num(raw.cachedWriteTokens) ??
      num(raw.cacheWriteInputTokens),
    costUsdTicks: num(raw.costUsdTicks),
  };
  for (const key of Object.keys(usage) as (keyof Usage)[]) if (usage[key] === undefined) delete usage[key];
  return Object.keys(usage).length > 0 ? usage : undefined;
}

function xaiToolName(meta: unknown): string | undefined {
  if (!isObj(meta)) return undefined;
  const tool = meta["x.ai/tool"];
  return isObj(tool) ? str(tool.name) : undefined;
}

/** True for a tool_call_update status that ends the call. */
export function isTerminalToolStatus(status: unknown): status is "completed" | "failed" {
  return status === "completed" || status === "failed";
}

/** The prompt ID a notification carries in `params._meta`, else in `update._meta`. */
function promptIdOf(notification: Obj, update: Obj): string | undefined {
  const meta = isObj(notification._meta) ? notification._meta : isObj(update._meta) ? update._meta : undefined;
  return meta === undefined ? undefined : str(meta.promptId);
}

/** A streamed text event: the hot path of a turn. */
export type TextEvent = Extract<SeatEvent, { type: "text" }>;

/**
 * Maps an `agent_message_chunk` notification to its text event (undefined when it carries no text) — the same
 * event mapSessionUpdate gives, without the array around it: a streamed turn is thousands of these.
 */
export function mapTextChunk(notification: SessionNotification): TextEvent | undefined {
  const update = notification.update as Obj;
  const text = textOfContent(update.content);
  if (text === "") return undefined;
  const promptId = promptIdOf(notification as Obj, update);
  // One object shape per case and no spread, so the callbacks' property loads stay monomorphic.
  return promptId === undefined ? { type: "text", text } : { type: "text", text, promptId };
}

/** Maps one `session/update` notification to zero or more events. */
export function mapSessionUpdate(notification: SessionNotification): SeatEvent[] {
  const update = notification.update as Obj & { sessionUpdate: string };
  if (update.sessionUpdate === "agent_message_chunk") {
    const event = mapTextChunk(notification);
    return event === undefined ? [] : [event];
  }
  const promptId = promptIdOf(notification as Obj, update);
  const withPrompt = promptId === undefined ? {} : { promptId };
  switch (update.sessionUpdate) {
    case "agent_thought_chunk": {
      const text = textOfContent(update.content);
      return text === "" ? [] : [{ type: "thinking", text, ...withPrompt }];
    }
    case "user_message_chunk": {
      const text = textOfContent(update.content);
      return text === "" ? [] : [{ type: "user_text", text, ...withPrompt }];
    }
    case "tool_call": {
      const event: SeatEvent = {
        type: "tool_start",
        toolCallId: str(update.toolCallId) ?? "",
        title: str(update.title) ?? "",
        kind: str(update.kind),
        toolName: xaiToolName(update._meta),
        rawInput: update.rawInput,
      };
      const events: SeatEvent[] = [event];
      // A tool_call may already carry a terminal status (agents that report finished calls at once).
      if (isTerminalToolStatus(update.status)) {
        events.push({
          type: "tool_end",
          toolCallId: event.toolCallId,
          title: event.title,
          status: update.status,
          rawOutput: update.rawOutput,
        });
      }
      return events;
    }
    case "tool_call_update": {
      if (!isTerminalToolStatus(update.status)) return [];
      return [
        {
          type: "tool_end",
          toolCallId: str(update.toolCallId) ?? "",
          title: str(update.title),
          status: update.status,
          rawOutput: update.rawOutput,
        },
      ];
    }
    case "plan": {
      const entries = Array.isArray(update.entries) ? update.entries : [];
      const plan: PlanEntry[] = entries.filter(isObj).map((e) => ({
        content: str(e.content) ?? "",
        priority: str(e.priority) ?? "medium",
        status: str(e.status) ?? "pending",
      }));
      return [{ type: "plan", entries: plan }];
    }
    case "usage_update": {
      const usage = readUsage(update);
      return usage ? [{ type: "usage", usage, ...withPrompt }] : [];
    }
    default:
      return [];
  }
}

/** Maps one `_x.ai/*` extension notification to zero or more events. */
export function mapExtNotification(method: string, params: unknown): SeatEvent[] {
  if (!isObj(params)) return [];
  switch (method) {
    case X_AI.mcpInitialized:
      return [
        { type: "mcp_initialized", sessionId: str(params.sessionId) ?? "", toolCount: num(params.mcpToolCount) ?? 0 },
      ];
    case X_AI.queueChanged: {
      const entries = Array.isArray(params.entries) ? params.entries.filter(isObj) : [];
      const running = str(params.runningPromptId);
      return [
        {
          type: "queue",
          queue: {
            sessionId: str(params.sessionId) ?? "",
            entryIds: entries.map((e) => str(e.id)).filter((id): id is string => id !== undefined),
            ...(running === undefined ? {} : { runningPromptId: running }),
          },
        },
      ];
    }
    case X_AI.sessionNotification: {
      // grok reports each model call's usage as it completes (grok-wire.md §8); no prompt id rides along.
      const update = isObj(params.update) ? params.update : undefined;
      if (update?.sessionUpdate !== "response_completed") return [];
      const usage = readUsage(update.usage);
      return usage ? [{ type: "model_usage", usage: { ...usage, modelCalls: 1 } }] : [];
    }
    case X_AI.promptComplete:
      return [
        {
          type: "prompt_complete",
          sessionId: str(params.sessionId) ?? "",
          promptId: str(params.promptId) ?? "",
          stopReason: str(params.stopReason) ?? "",
        },
      ];
    default:
      return [];
  }
}

/** The sessionId an extension notification is about, when it names one. */
export function sessionIdOf(params: unknown): string | undefined {
  return isObj(params) ? str(params.sessionId) : undefined;
}
