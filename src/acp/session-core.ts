/*
 * Session core: turns of one ACP session, shared by the headless and the visible seat.
 * Owns: sending prompts with caller-created prompt IDs, attributing streamed updates to turns,
 *   turn/idle timeouts with cancel, the diagnostics invariant, and serialized callback delivery.
 * Does not own: how the stream was obtained or proven (runtime/, seat/), permission policy (permissions/).
 * Invariant: prompt() never rejects, whatever it is given; callbacks run one at a time in arrival order; a
 *   turn's result is resolved only after every callback for it has run or, past the turn's deadline (or after
 *   close()), was abandoned and reported as ACP_CALLBACK_STUCK. An already-aborted signal sends nothing.
 *   close() ends a running turn as cancelled with ACP_SESSION_DISPOSED, never as a prompt failure.
 */
import { randomUUID } from "node:crypto";
import type { ContentBlock, PromptResponse, SessionNotification } from "@agentclientprotocol/sdk";
import { ERROR_CODES, type ErrorCode, messageOf } from "../errors.js";
import type { AcpPeer } from "./connection.js";
import { CALLBACK_GRACE_MS, CallbackQueue, stuckDiagnostic } from "./callback-queue.js";
import { checkPromptInput } from "./prompt-input.js";
import { turnDiagnostic } from "./diagnostics.js";
import type { Diagnostic, SeatCallbacks, SeatEvent, Usage } from "./events.js";
import { ACP } from "./methods.js";
import { mapExtNotification, mapSessionUpdate, mapTextChunk, readUsage, sessionIdOf } from "./updates.js";
// budget.ts alone, not the usage front door: the turn engine must not load the ledger's SQLite.
import { createTurnMeter, TICKS_PER_USD, type TurnBudget, type TurnMeter } from "../metering/index.js";
import type { SideCallUsage } from "../metering/index.js";

/** Per-turn options. */
export interface PromptOptions {
  /** Caller-created prompt ID (echoed by grok everywhere). Default: `seat-<uuid>`. */
  promptId?: string;
  /** Cancel the turn when it runs longer than this. Off when undefined or 0. */
  turnTimeoutMs?: number;
  /** Cancel the turn when no update arrives for this long. Off when undefined or 0. */
  idleTimeoutMs?: number;
  /** Aborting cancels the turn (like cancel()); aborting with a Diagnostic as the reason ends it with that diagnostic. */
  signal?: AbortSignal;
  /**
   * Cancel the turn at once (stop reason `cancelled`, diagnostic BUDGET_EXCEEDED, text kept) when the usage the
   * agent reports per model call goes over this budget. Checked on every report; see docs/spend.md.
   */
  budget?: TurnBudget;
  /** With a cost budget: the USD cost of one model call's usage when the agent reported none (a price table). */
  costOf?: (usage: Usage) => number | undefined;
}

/** How one turn ended. Always produced; never thrown. */
export interface TurnResult {
  promptId: string;
  /** The agent's stop reason, when it answered. */
  stopReason?: string;
  /** Assistant text streamed during the turn (kept even when the turn failed). */
  text: string;
  diagnostic?: Diagnostic;
  usage?: Usage;
  /** True when the final result echoed this session's id and this prompt ID. */
  echoed: boolean;
  /** The raw `_meta` of the prompt response, when there was one. */
  responseMeta?: Record<string, unknown>;
  /**
   * Model calls of the turn its agent did not report in `usage` (grok's turn summary and titles), read at the
   * seat's metering point or estimated; `usage` plus these is what the turn spent. See docs/spend.md.
   */
  sideCalls?: SideCallUsage[];
}

interface Turn {
  promptId: string;
  text: string;
  lastActivity: number;
  touch(): void;
  /** A host-side diagnostic about this turn (a denial nobody could be asked about), reported even when text streamed. */
  hostDiagnostic?: Diagnostic;
  /** Held approvals of this turn: while any is pending the idle timeout does not run. */
  holds?: number;
  /** The turn's budget meter, when it has a budget. */
  meter?: TurnMeter;
  costOf?: (usage: Usage) => number | undefined;
}

/** How long to wait for the prompt response after sending session/cancel. */
const CANCEL_GRACE_MS = 5_000;

/** A failure that ended (or will end) a turn. */
type Failure = { code: ErrorCode; message: string };

/** Prompt content: plain text or ACP content blocks (images only when the agent advertises them). */
export type PromptContent = string | ContentBlock[];

function isPromptResponse(value: unknown): value is PromptResponse {
  return (
    typeof value === "object" && value !== null && typeof (value as { stopReason?: unknown }).stopReason === "string"
  );
}

/** The diagnostic an abort reason carries ({code, message} with a catalogued code), if any. */
function abortDiagnostic(reason: unknown): Diagnostic | undefined {
  if (typeof reason !== "object" || reason === null) return undefined;
  const { code, message } = reason as { code?: unknown; message?: unknown };
  return typeof code === "string" && Object.hasOwn(ERROR_CODES, code) && typeof message === "string"
    ? { code: code as ErrorCode, message }
    : undefined;
}

function preview(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** The turn engine over one connected ACP peer. */
export class SessionCore {
  private sessionId: string | undefined;
  private readonly turns = new Map<string, Turn>();
  private activeTurn: Turn | undefined;
  private readonly queue: CallbackQueue;
  private readonly mcpReady = new Set<string>();
  private readonly mcpWaiters: Array<() => void> = [];
  /** Latest title per tool call: terminal updates often omit it (e.g. MCP calls renamed after use_tool). */
  private readonly toolTitles = new Map<string, string>();
  /** Running turns: how to end each one early, and its settled result. */
  private readonly running = new Map<
    string,
    { end: (failure: Failure, graceMs: number) => void; settled: Promise<unknown> }
  >();
  private closing = false;

  constructor(
    private readonly peer: AcpPeer,
    callbacks: SeatCallbacks = {},
    /**
     * `queue`: share an existing callback queue (the headless seat reports its own diagnostics through it).
     * `onTurnEnd`: told how a turn ended just before its `done` event is queued (the seat's state follows it).
     */
    options: {
      diagnosticsAsText?: boolean;
      queue?: CallbackQueue;
      onTurnEnd?: (end: { stopReason?: string; diagnostic?: Diagnostic }) => void;
    } = {},
  ) {
    this.queue = options.queue ?? new CallbackQueue(callbacks, options.diagnosticsAsText !== false);
    this.onTurnEnd = options.onTurnEnd;
  }

  private readonly onTurnEnd: ((end: { stopReason?: string; diagnostic?: Diagnostic }) => void) | undefined;

  /** Names the ACP session this core drives (after session/new, load or resume). */
  bind(sessionId: string): void {
    this.sessionId = sessionId;
  }

  /** The bound session id. */
  get id(): string | undefined {
    return this.sessionId;
  }

  /** Feeds a `session/update` notification (synchronously, in arrival order). */
  handleUpdate(notification: SessionNotification): void {
    if (this.sessionId !== undefined && notification.sessionId !== this.sessionId) return;
    const update = notification.update as { sessionUpdate: string; toolCallId?: unknown; title?: unknown };
    if (update.sessionUpdate === "agent_message_chunk") {
      // The hot path of a streamed turn (P1): one event, no array, no tool-title bookkeeping; same event, same order.
      const event = mapTextChunk(notification);
      if (event === undefined) return;
      const turn = this.turnFor(event.promptId);
      if (turn) {
        turn.touch();
        turn.text += event.text;
      }
      this.queue.push(event);
      return;
    }
    if (
      update.sessionUpdate === "tool_call_update" &&
      typeof update.toolCallId === "string" &&
      typeof update.title === "string"
    ) {
      this.toolTitles.set(update.toolCallId, update.title);
    }
    for (let event of mapSessionUpdate(notification)) {
      if (event.type === "tool_start") this.toolTitles.set(event.toolCallId, event.title);
      if (event.type === "tool_end") {
        const title = this.toolTitles.get(event.toolCallId);
        if (title !== undefined) event = { ...event, title };
        this.toolTitles.delete(event.toolCallId);
      }
      const turn = this.turnFor("promptId" in event ? event.promptId : undefined);
      if (turn) {
        turn.touch();
        if (event.type === "text") turn.text += event.text;
      }
      this.emit(event);
    }
  }

  /** Feeds a `_x.ai/*` notification (synchronously, in arrival order). */
  handleExt(method: string, params: unknown): void {
    const about = sessionIdOf(params);
    if (about !== undefined && this.sessionId !== undefined && about !== this.sessionId) {
      // mcp_initialized may arrive before session/new answers; remember it by id either way.
      if (!method.endsWith("mcp_initialized")) return;
    }
    for (let event of mapExtNotification(method, params)) {
      if (event.type === "model_usage" && this.activeTurn) {
        const turn = this.activeTurn;
        event = { ...event, promptId: turn.promptId };
        this.emit(event);
        this.meterUsage(turn, event.usage);
        continue;
      }
      if (event.type === "mcp_initialized") {
        this.mcpReady.add(event.sessionId);
        for (const wake of this.mcpWaiters.splice(0)) wake();
      }
      if (event.type === "queue" || event.type === "prompt_complete") this.activeTurn?.touch();
      this.emit(event);
    }
  }

  /** Resolves true once grok reported `_x.ai/mcp_initialized` for the bound session, false on timeout. */
  async waitForMcpInitialized(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!(this.sessionId !== undefined && this.mcpReady.has(this.sessionId))) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.mcpWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return true;
  }

  /**
   * Attaches a host-side diagnostic to the running turn (the first one wins): the turn ends with it even when
   * text streamed, unless the turn itself failed (timeout, lost connection, …), whose diagnostic comes first.
   * Used for a tool call denied because nobody could be asked (PERMISSION_NO_APPROVER). No running turn: ignored.
   */
  noteTurnDiagnostic(diagnostic: Diagnostic): void {
    if (this.activeTurn && !this.activeTurn.hostDiagnostic) this.activeTurn.hostDiagnostic = diagnostic;
  }

  /**
   * Stops the running turn's idle timeout until the returned release runs (a held approval waits for a person,
   * not for grok); releasing counts as activity. The turn timeout still runs. No running turn: a no-op.
   */
  holdIdle(): () => void {
    const turn = this.activeTurn;
    if (!turn) return () => undefined;
    turn.holds = (turn.holds ?? 0) + 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      turn.holds = (turn.holds ?? 1) - 1;
      turn.touch();
    };
  }

  /** Counts one model call's usage against the turn's budget; a crossed budget cancels the turn at once. */
  private meterUsage(turn: Turn, usage: Usage): void {
    turn.touch();
    if (!turn.meter) return;
    const reported = usage.costUsdTicks === undefined ? undefined : usage.costUsdTicks / TICKS_PER_USD;
    const costUsd = reported ?? turn.costOf?.(usage);
    const crossed = turn.meter.add({ ...usage, ...(costUsd === undefined ? {} : { costUsd }) });
    if (crossed) this.cancelOverBudget(turn, crossed);
  }

  /**
   * Ends the running turn `promptId` over its budget, as a usage report over it does (`BUDGET_EXCEEDED`, stop
   * reason `cancelled`, the text kept): used when the seat's metering point refused the turn's next model call.
   * No such running turn: ignored; the first crossing is the one the turn reports.
   */
  endOverBudget(promptId: string, diagnostic: Diagnostic): void {
    const turn = this.turns.get(promptId);
    if (turn) this.cancelOverBudget(turn, diagnostic);
  }

  private cancelOverBudget(turn: Turn, crossed: Diagnostic): void {
    if (turn.hostDiagnostic?.code === "BUDGET_EXCEEDED") return;
    // The budget's diagnostic wins over a bare stop reason even when text streamed (the text is kept).
    turn.hostDiagnostic = crossed;
    this.running.get(turn.promptId)?.end(crossed, CANCEL_GRACE_MS);
  }

  /** Queues an event for the callbacks; they run one at a time, in order. */
  emit(event: SeatEvent): void {
    this.queue.push(event);
  }

  /** Resolves once every queued callback has run. */
  drain(): Promise<void> {
    return this.queue.drain();
  }

  /** Sends one prompt and resolves how the turn ended. Never rejects, whatever it is given. */
  prompt(content: PromptContent, options: PromptOptions = {}): Promise<TurnResult> {
    const given = options as unknown;
    const askedId =
      typeof given === "object" && given !== null ? (given as { promptId?: unknown }).promptId : undefined;
    const promptId = typeof askedId === "string" && askedId.length > 0 ? askedId : `seat-${randomUUID()}`;
    const turn: Turn = {
      promptId,
      text: "",
      lastActivity: Date.now(),
      touch() {
        this.lastActivity = Date.now();
      },
    };
    const refused = checkPromptInput(content, given);
    if (!refused && options?.budget) {
      turn.meter = createTurnMeter(options.budget);
      if (options.costOf) turn.costOf = options.costOf;
    }
    if (refused) return this.finish(turn, refused, undefined);
    const settled = this.runTurn(turn, content, options ?? {});
    return settled;
  }

  /** Ends every running turn as cancelled (ACP_SESSION_DISPOSED) and abandons stuck callbacks; waits up to graceMs. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    this.queue.interrupt();
    const turns = [...this.running.values()];
    for (const turn of turns)
      turn.end(
        {
          code: "ACP_SESSION_DISPOSED",
          message: "The session was disposed while the turn ran; the turn was cancelled.",
        },
        graceMs,
      );
    if (turns.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(turns.map((t) => t.settled)),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs + 2 * CALLBACK_GRACE_MS))),
    ]);
    clearTimeout(timer);
  }

  private async runTurn(turn: Turn, content: PromptContent, options: PromptOptions): Promise<TurnResult> {
    const { promptId } = turn;
    const deadline = options.turnTimeoutMs ? Date.now() + options.turnTimeoutMs : undefined;
    let failure: Failure | undefined;
    let response: PromptResponse | undefined;
    const sessionId = this.sessionId;
    if (sessionId === undefined || this.closing) {
      failure = { code: "ACP_SESSION_DEAD", message: "The session is not running; create a new one." };
      return this.finish(turn, failure, undefined);
    }
    if (options.signal?.aborted) {
      failure = {
        code: "ACP_PROMPT_ABORTED",
        message: "The prompt's AbortSignal was already aborted; nothing was sent.",
      };
      return this.finish(turn, failure, undefined, deadline, "cancelled");
    }
    this.turns.set(promptId, turn);
    this.activeTurn = turn;
    const blocks: ContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : content;
    const stop = new AbortController();
    const timers: NodeJS.Timeout[] = [];
    const fail = (code: ErrorCode, message: string, graceMs = CANCEL_GRACE_MS) => {
      if (failure) return;
      failure = { code, message };
      void this.cancelTurn(sessionId, promptId);
      // If the agent never answers the cancel, stop waiting after a grace period.
      timers.push(setTimeout(() => stop.abort(), graceMs));
    };
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    this.running.set(promptId, { end: (f, graceMs) => fail(f.code, f.message, graceMs), settled });
    if (options.turnTimeoutMs) {
      const ms = options.turnTimeoutMs;
      timers.push(
        setTimeout(() => fail("ACP_TURN_TIMEOUT", `The turn ran longer than ${ms} ms and was cancelled.`), ms),
      );
    }
    if (options.idleTimeoutMs) {
      const ms = options.idleTimeoutMs;
      const check = () => {
        if (failure) return;
        if ((turn.holds ?? 0) > 0) {
          timers.push(setTimeout(check, ms));
          return;
        }
        const idle = Date.now() - turn.lastActivity;
        if (idle >= ms) fail("ACP_IDLE_TIMEOUT", `Grok sent nothing for ${ms} ms; the turn was cancelled.`);
        else timers.push(setTimeout(check, ms - idle));
      };
      timers.push(setTimeout(check, ms));
    }
    const onAbort = () => {
      const reason = abortDiagnostic(options.signal?.reason);
      if (reason) fail(reason.code, reason.message);
      else void this.cancelTurn(sessionId, promptId);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const request = this.peer.request<PromptResponse>(ACP.agent.session.prompt, {
        sessionId,
        prompt: blocks,
        _meta: { promptId },
      });
      const gaveUp = new Promise<never>((_, reject) => {
        stop.signal.addEventListener("abort", () => reject(new Error("no answer after cancel")), { once: true });
      });
      const lost = this.peer.closed.then(() => {
        throw new Error("the connection to grok closed during the turn");
      });
      const answer: unknown = await Promise.race([request, gaveUp, lost]);
      // The SDK does not validate results of requests sent by method string; a result without a stop reason
      // (null, "", {}, a number) must not pass for a clean turn with no text.
      if (isPromptResponse(answer)) response = answer;
      else if (!failure) {
        failure = {
          code: "ACP_PROTOCOL_ERROR",
          message: `Grok answered session/prompt without a stop reason (result ${preview(answer)}); the turn's outcome is unknown. Check the grok version.`,
        };
      }
    } catch (error) {
      if (!failure) failure = { code: "ACP_PROMPT_FAILED", message: `The prompt failed: ${messageOf(error)}` };
    } finally {
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      this.turns.delete(promptId);
      if (this.activeTurn === turn) this.activeTurn = undefined;
    }
    try {
      // A disposed session's turn (or one over budget) was cancelled by us, whether or not grok answered the cancel in time.
      const cancelled =
        failure?.code === "ACP_SESSION_DISPOSED" || failure?.code === "BUDGET_EXCEEDED" ? "cancelled" : undefined;
      return await this.finish(turn, failure, response, deadline, cancelled);
    } finally {
      this.running.delete(promptId);
      settle();
    }
  }

  /** Asks the agent to cancel the running turn (best effort; never throws). */
  async cancel(): Promise<void> {
    if (this.sessionId === undefined) return;
    await this.cancelTurn(this.sessionId, this.activeTurn?.promptId);
  }

  private async cancelTurn(sessionId: string, promptId: string | undefined): Promise<void> {
    try {
      await this.peer.notify(ACP.agent.session.cancel, { sessionId, ...(promptId ? { _meta: { promptId } } : {}) });
    } catch {
      // The connection may already be gone; cancellation is best effort.
    }
  }

  private turnFor(promptId: string | undefined): Turn | undefined {
    const active = this.activeTurn;
    if (promptId === undefined) return active;
    // Nearly every update belongs to the running turn: one string comparison before a map lookup.
    if (active !== undefined && active.promptId === promptId) return active;
    return this.turns.get(promptId);
  }

  private async finish(
    turn: Turn,
    failure: Failure | undefined,
    response: PromptResponse | undefined,
    deadline?: number,
    stopFallback?: string,
  ): Promise<TurnResult> {
    const meta = (response?._meta ?? undefined) as Record<string, unknown> | undefined;
    // grok: `_meta.usage`; ACP's (unstable) `usage` on the response; Codex and Claude: `_meta.quota.token_count`.
    const quota = meta?.quota as { token_count?: unknown } | undefined;
    const usage =
      readUsage(meta?.usage) ??
      readUsage((response as { usage?: unknown } | undefined)?.usage) ??
      readUsage(quota?.token_count) ??
      readUsage(meta);
    if (usage) this.emit({ type: "usage", usage, promptId: turn.promptId });
    const stopReason = response?.stopReason ?? stopFallback;
    const own = turnDiagnostic({
      text: turn.text,
      ...(response?.stopReason === undefined ? {} : { stopReason: response.stopReason }),
      failure,
    });
    // A denial nobody could be asked about explains a bare stop reason better than the stop reason does.
    const diagnostic = own && own.code !== "ACP_STOP_REASON" ? own : (turn.hostDiagnostic ?? own);
    if (diagnostic) this.emit({ type: "diagnostic", diagnostic });
    this.onTurnEnd?.({ ...(stopReason === undefined ? {} : { stopReason }), ...(diagnostic ? { diagnostic } : {}) });
    this.emit({
      type: "done",
      stopReason: stopReason ?? (failure ? "error" : "unknown"),
      promptId: turn.promptId,
      text: turn.text,
    });
    // A stuck callback is the host's problem, not the agent's: it is reported even when text streamed.
    const stuck = await this.queue.settle(deadline);
    const reported = diagnostic ?? (stuck[0] ? stuckDiagnostic(stuck[0]) : undefined);
    const echoed = meta !== undefined && meta.promptId === turn.promptId && meta.sessionId === this.sessionId;
    return {
      promptId: turn.promptId,
      ...(stopReason === undefined ? {} : { stopReason }),
      text: turn.text,
      ...(reported ? { diagnostic: reported } : {}),
      ...(usage ? { usage } : {}),
      echoed,
      ...(meta ? { responseMeta: meta } : {}),
    };
  }
}
