/*
 * Seat events: the one vocabulary both seats (headless and visible) report in.
 * Owns: the SeatEvent union and the callback shape an embedder passes.
 * Does not own: producing events (acp/updates.ts maps ACP updates; runtime/ and seat/ add lifecycle).
 * Invariant: the same ACP update maps to the same event whichever seat received it.
 */
import type { ErrorCode } from "../errors.js";
import type { StateEvent } from "../attention/index.js";

/** One entry of an ACP plan. */
export interface PlanEntry {
  content: string;
  priority: string;
  status: string;
}

/** Token usage of a turn or of one model call, camelCase whatever the wire used. */
export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  cachedReadTokens?: number;
  reasoningTokens?: number;
  modelCalls?: number;
  /** Tokens written to the prompt cache (grok `cacheCreationTokens`). */
  cacheCreationTokens?: number;
  /** Cost the agent reported, in ticks (1 USD = 1e10 ticks); absent when it did not say. */
  costUsdTicks?: number;
}

/** A diagnostic: a stable code plus text a human can act on. */
export interface Diagnostic {
  code: ErrorCode;
  message: string;
}

/** Queue state as grok reports it in `_x.ai/queue/changed`. */
export interface QueueState {
  sessionId: string;
  entryIds: string[];
  runningPromptId?: string;
}

/**
 * A permission request held for a person (approvals/): what it would touch (redacted), whose it is, and its
 * deadline. Defined here because it travels as the `approval_asked` event; approvals/ owns the queue.
 */
export interface PendingApproval {
  /** Stable for the approval's life, url-safe (`ap_` + hex). */
  id: string;
  category: "read" | "edit" | "execute" | "network" | "mcp" | "other";
  /** The tool call's title, exactly as the agent sent it but for registered secret values (see `masked`). */
  title: string;
  /** The command, paths or tool name the call would touch: exact and never cut, but for registered secret values. */
  target: { command?: string; paths?: string[]; toolName?: string };
  /** sha256 (hex) of the exact, unmasked target's canonical serialisation (approvals/target.ts); an answer may carry it. */
  digest: string;
  /** The secret names whose values were replaced in the title or target; absent when nothing was. */
  masked?: string[];
  /** The session, named session or fleet job it belongs to, and the process holding it. */
  owner: { kind: "session" | "named-session" | "job"; id: string; name?: string; pid?: number; host?: string };
  /** ISO times. */
  askedAt: string;
  deadline: string;
}

/** Everything a seat reports, one object per happening, discriminated by `type`. */
export type SeatEvent =
  | { type: "text"; text: string; promptId?: string }
  | { type: "thinking"; text: string; promptId?: string }
  | { type: "user_text"; text: string; promptId?: string }
  | { type: "tool_start"; toolCallId: string; title: string; kind?: string; toolName?: string; rawInput?: unknown }
  | { type: "tool_end"; toolCallId: string; title?: string; status: "completed" | "failed"; rawOutput?: unknown }
  | { type: "plan"; entries: PlanEntry[] }
  | { type: "usage"; usage: Usage; promptId?: string }
  /** One model call's usage, reported while the turn runs (grok: `response_completed`); budgets are checked on it. */
  | { type: "model_usage"; usage: Usage; promptId?: string }
  | { type: "queue"; queue: QueueState }
  | { type: "mcp_initialized"; sessionId: string; toolCount: number }
  | { type: "prompt_complete"; sessionId: string; promptId: string; stopReason: string }
  | { type: "permission"; toolCallId: string; category: string; decision: string; optionId?: string }
  | { type: "approval_asked"; approval: PendingApproval }
  | {
      type: "approval_answered";
      id: string;
      toolCallId: string;
      decision: "allow" | "deny";
      via: "answer" | "timeout" | "expired";
      always?: boolean;
      by?: string;
    }
  | {
      type: "diagnostic";
      diagnostic: Diagnostic /** false: never delivered as onText (e.g. a host tool's own error). */;
      asText?: boolean;
    }
  /** grok retried its model request (from grok's own log, see health/): `reason` short, `detail` grok's text. */
  | { type: "retry"; attempt: number; max: number; reason: string; detail: string; promptId?: string }
  /** grok's model-catalogue refresh is retrying or gave up (from grok's own log). */
  | {
      type: "model_catalog";
      status: "retrying" | "failed";
      attempt?: number;
      max?: number;
      reason?: string;
      detail?: string;
    }
  | { type: "done"; stopReason: string; promptId?: string; text: string }
  /** The session's attention state changed (starting, idle, working, waiting, done, …; see attention/). */
  | StateEvent
  /**
   * The model answered with a limit status (429 rate limited, 503 unavailable, 529 overloaded, 402 out of credit),
   * from grok's own log: `final` false while grok retries (attempt/max), true when grok gave up on the request.
   */
  | {
      type: "rate_limited";
      statusCode: number;
      final: boolean;
      attempt?: number;
      max?: number;
      detail: string;
      promptId?: string;
    };

/** The type tags of SeatEvent. */
export type SeatEventType = SeatEvent["type"];

/**
 * Callbacks an embedder may pass; each is optional. `onEvent` sees every event;
 * the named ones see the events of their kind. Callbacks run in arrival order, one at a time per session.
 */
export interface SeatCallbacks {
  onEvent?: (event: SeatEvent) => void | Promise<void>;
  onText?: (text: string) => void | Promise<void>;
  onThinking?: (text: string) => void | Promise<void>;
  onToolStart?: (event: Extract<SeatEvent, { type: "tool_start" }>) => void | Promise<void>;
  onToolEnd?: (event: Extract<SeatEvent, { type: "tool_end" }>) => void | Promise<void>;
  onPlan?: (entries: PlanEntry[]) => void | Promise<void>;
  onUsage?: (usage: Usage) => void | Promise<void>;
  onDiagnostic?: (diagnostic: Diagnostic) => void | Promise<void>;
  /** grok is retrying its model request (attempt, max, reason). */
  onRetry?: (event: Extract<SeatEvent, { type: "retry" }>) => void | Promise<void>;
  /** The session's attention state changed (one call per change). */
  onState?: (event: StateEvent) => void | Promise<void>;
}
