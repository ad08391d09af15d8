/*
 * Owner interactions: what the visible TUI is asking its owner right now (a permission, a question), as the
 *   leader broadcasts it to every subscriber of the session.
 * Owns: reading `_x.ai/session_notification` `pending_interaction {tool_call_id, kind}` and
 *   `interaction_resolved {tool_call_id}` for one session, and the set of questions still open.
 * Does not own: answering anything (the owner answers in the TUI; the seat never does), the delivery journal
 *   (visible-seat.ts), the attention vocabulary (attention/states.ts).
 * Invariant: it only listens; an interaction is open from its pending_interaction until the matching
 *   interaction_resolved or the end of the connection, and nothing else closes it.
 * Spec: grok-wire.md §9 (pending_interaction / interaction_resolved), §12.3 (broadcast to subscribers).
 */
import { X_AI } from "../acp/index.js";
import type { WaitingOn } from "../attention/index.js";

/** One open question of the TUI to its owner. */
export interface OpenInteraction {
  toolCallId: string;
  /** grok's kind: `permission`, or a question (`question`, plan approval, …). */
  kind: string;
  /** When it was first broadcast (ISO 8601). */
  since: string;
}

/** What a seat waits on while the TUI asks its owner: the oldest open interaction. */
export interface OwnerWait {
  waitingOn: WaitingOn;
  since: string;
  toolCallId: string;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Follows one session's owner interactions from the leader's notifications. */
export class InteractionWatch {
  readonly #open = new Map<string, OpenInteraction & { sessionId?: string }>();
  #sessionId: string | undefined;

  /** `now` is for tests. */
  constructor(
    private readonly onChange: () => void = () => undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Listens to `sessionId` only (set once the seat attached; notifications before that are kept by their id). */
  bind(sessionId: string): void {
    this.#sessionId = sessionId;
    for (const [id, open] of this.#open)
      if (open.sessionId !== undefined && open.sessionId !== sessionId) this.#open.delete(id);
  }

  /** Feeds one extension notification (any method; only the two interaction updates count). */
  observe(method: string, params: unknown): void {
    if (method !== X_AI.sessionNotification) return;
    const body = record(params);
    const update = record(body?.update);
    const toolCallId = update?.tool_call_id;
    if (typeof toolCallId !== "string" || toolCallId === "") return;
    const sessionId = typeof body?.sessionId === "string" ? body.sessionId : undefined;
    if (this.#sessionId !== undefined && sessionId !== undefined && sessionId !== this.#sessionId) return;
    if (update?.sessionUpdate === "pending_interaction") {
      if (this.#open.has(toolCallId)) return;
      const kind = typeof update.kind === "string" ? update.kind : "question";
      this.#open.set(toolCallId, {
        toolCallId,
        kind,
        since: this.now().toISOString(),
        ...(sessionId ? { sessionId } : {}),
      });
      this.onChange();
    } else if (update?.sessionUpdate === "interaction_resolved") {
      if (this.#open.delete(toolCallId)) this.onChange();
    }
  }

  /** Forgets every open interaction (the connection to the leader is gone: nothing more can be known). */
  clear(): void {
    if (this.#open.size === 0) return;
    this.#open.clear();
    this.onChange();
  }

  /** The open interactions, oldest first. */
  list(): OpenInteraction[] {
    return [...this.#open.values()].map(({ toolCallId, kind, since }) => ({ toolCallId, kind, since }));
  }

  /** What the seat waits on now, or null when the TUI asks its owner nothing. */
  wait(): OwnerWait | null {
    const oldest = this.#open.values().next().value as OpenInteraction | undefined;
    if (!oldest) return null;
    return {
      waitingOn: oldest.kind === "permission" ? "approval" : "question",
      since: oldest.since,
      toolCallId: oldest.toolCallId,
    };
  }
}
