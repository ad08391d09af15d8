/*
 * Callback queue: hands SeatEvents to an embedder's callbacks one at a time, in arrival order.
 * Owns: ordering, the mapping from an event to its named callbacks, isolation of throwing callbacks, and
 *   abandoning a callback that does not return in time (reported as ACP_CALLBACK_STUCK).
 * Does not own: producing events (session-core.ts, updates.ts) or deciding the time limits (the callers of
 *   settle(): a turn's deadline, a report's patience).
 * Invariant: a callback never overlaps another; a callback that returns a promise is awaited before the next
 *   one runs; synchronous callbacks run inline without a microtask per event (this is the hot path of a
 *   streamed turn); a throwing or rejecting callback is dropped for that event and delivery goes on.
 *   A callback abandoned by settle() is skipped (never called again) until its pending call settles, so no
 *   callback ever runs twice at once; settle() always finishes within its deadline plus one grace per
 *   abandoned callback, and after interrupt() every settle() is bounded.
 */
import type { Diagnostic, SeatCallbacks, SeatEvent, SeatEventType } from "./events.js";

/** How long a callback may keep the queue once its deadline has passed (or after interrupt()). */
export const CALLBACK_GRACE_MS = 1_000;

/** A callback that was abandoned because it did not return in time. */
export interface StuckCallback {
  /** The callback's name (`onText`, `onEvent`, …). */
  callback: string;
  /** The event it was handling. */
  event: SeatEventType;
}

/** The named callback each event type goes to (besides onEvent); diagnostics may also go to onText. */
const SPECIFIC: Partial<Record<SeatEventType, keyof SeatCallbacks>> = {
  text: "onText",
  thinking: "onThinking",
  tool_start: "onToolStart",
  tool_end: "onToolEnd",
  plan: "onPlan",
  usage: "onUsage",
  retry: "onRetry",
  diagnostic: "onDiagnostic",
  state: "onState",
};

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** The diagnostic reported for an abandoned callback. */
export function stuckDiagnostic(stuck: StuckCallback): Diagnostic {
  return {
    code: "ACP_CALLBACK_STUCK",
    message:
      `The ${stuck.callback} callback did not return while handling a "${stuck.event}" event within the time limit; ` +
      `it was abandoned and is skipped until that call returns. Callbacks must not block.`,
  };
}

/** Serial delivery of events to one set of callbacks. */
export class CallbackQueue {
  private readonly pending: SeatEvent[] = [];
  private running = false;
  private readonly idle: Array<() => void> = [];
  private readonly waiters = new Set<() => void>();
  /** The async callback being awaited, and how to stop awaiting it. */
  private current: (StuckCallback & { release: () => void }) | undefined;
  /** Callbacks abandoned whose call has not settled yet. */
  private readonly stuck = new Set<string>();
  private interrupted = false;
  /** Callback names per event type (diagnostics excluded: onText depends on the event). */
  private readonly names = new Map<SeatEventType, readonly string[]>();

  constructor(
    private readonly callbacks: SeatCallbacks,
    private readonly diagnosticsAsText: boolean,
    /** Told about every abandoned callback (after its diagnostic was queued). */
    private readonly onAbandon?: (diagnostic: Diagnostic) => void,
  ) {}

  /** Queues one event; delivers it at once (synchronously, no promise) when nothing is in flight. */
  push(event: SeatEvent): void {
    if (this.running) {
      this.pending.push(event);
      return;
    }
    // The hot path of a streamed turn: an idle queue and synchronous callbacks deliver inline; the async pump
    // starts only once a callback returned a promise or a callback queued more events meanwhile.
    this.running = true;
    let waiting: Promise<void> | undefined;
    try {
      waiting = this.deliver(event);
    } catch {
      // A throwing callback loses its own event, never the ones after it.
    }
    if (waiting !== undefined || this.pending.length > 0) {
      void this.pump(waiting);
      return;
    }
    this.running = false;
    if (this.idle.length > 0) for (const wake of this.idle.splice(0)) wake();
  }

  /** Resolves once every queued event has been delivered (however long that takes). */
  drain(): Promise<void> {
    if (!this.running && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /**
   * Waits until every queued event was delivered. Past `deadline` (epoch ms; none = no limit until
   * interrupt()) the callback in flight is abandoned and reported, one grace period at a time. Never rejects.
   */
  async settle(deadline?: number): Promise<StuckCallback[]> {
    const abandoned: StuckCallback[] = [];
    for (;;) {
      const bounded = this.interrupted || deadline !== undefined;
      const wait = bounded ? Math.max((deadline ?? 0) - Date.now(), CALLBACK_GRACE_MS) : undefined;
      const outcome = await this.idleWithin(wait);
      if (outcome === "idle") return abandoned;
      if (outcome === "woken") continue; // interrupt(): re-check with a bounded wait before abandoning anything
      const stuck = this.abandon();
      if (stuck) abandoned.push(stuck);
    }
  }

  /** From now on every settle() is bounded and a waiting one re-checks at once (the session is going away). */
  interrupt(): void {
    this.interrupted = true;
    for (const wake of [...this.waiters]) wake();
  }

  private idleWithin(ms: number | undefined): Promise<"idle" | "timeout" | "woken"> {
    if (!this.running && this.pending.length === 0) return Promise.resolve("idle");
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = (idle: "idle" | "timeout" | "woken") => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        const at = this.idle.indexOf(onIdle);
        if (at >= 0) this.idle.splice(at, 1);
        resolve(idle);
      };
      const onIdle = () => done("idle");
      const wake = () => done("woken");
      this.idle.push(onIdle);
      this.waiters.add(wake);
      if (ms !== undefined) timer = setTimeout(() => done("timeout"), ms);
    });
  }

  /** Stops waiting for the callback in flight, skips it until its call settles, and reports it. */
  private abandon(): StuckCallback | undefined {
    const current = this.current;
    if (!current) return undefined;
    this.current = undefined;
    this.stuck.add(current.callback);
    const stuck: StuckCallback = { callback: current.callback, event: current.event };
    const diagnostic = stuckDiagnostic(stuck);
    this.pending.push({ type: "diagnostic", diagnostic });
    this.onAbandon?.(diagnostic);
    current.release();
    return stuck;
  }

  /** Delivers what is pending, one event at a time; `first` is a delivery already in flight. Sets running. */
  private async pump(first?: Promise<void>): Promise<void> {
    this.running = true;
    try {
      if (first !== undefined) {
        try {
          await first;
        } catch {
          // As below: the throwing callback loses only its own event.
        }
      }
      for (let event = this.pending.shift(); event !== undefined; event = this.pending.shift()) {
        try {
          const waiting = this.deliver(event);
          if (waiting) await waiting;
        } catch {
          // A throwing callback loses its own event, never the ones after it.
        }
      }
    } finally {
      this.running = false;
      for (const wake of this.idle.splice(0)) wake();
    }
  }

  /** Runs the event's callbacks in order; returns a promise only once one of them returned one. */
  private deliver(event: SeatEvent): Promise<void> | undefined {
    const names = this.namesFor(event);
    for (let i = 0; i < names.length; i += 1) {
      const result = this.invoke(names[i]!, event);
      if (isThenable(result)) {
        return (async () => {
          await this.awaitStep(names[i]!, event.type, result);
          for (let j = i + 1; j < names.length; j += 1) {
            if (this.stuck.has(names[j]!)) continue;
            await this.awaitStep(names[j]!, event.type, this.invoke(names[j]!, event));
          }
        })();
      }
    }
    return undefined;
  }

  /** Awaits one callback's result until it settles or is abandoned; rejects like the callback did. */
  private awaitStep(name: string, type: SeatEventType, result: unknown): Promise<void> {
    if (!isThenable(result)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const entry = { callback: name, event: type, release: resolve };
      this.current = entry;
      Promise.resolve(result).then(
        () => {
          this.settled(name, entry);
          resolve();
        },
        (error: unknown) => {
          this.settled(name, entry);
          reject(error);
        },
      );
    });
  }

  private settled(name: string, entry: StuckCallback): void {
    if (this.current === entry) this.current = undefined;
    this.stuck.delete(name);
  }

  /** The names of the callbacks an event goes to, in order; cached per event type while none is stuck. */
  private namesFor(event: SeatEvent): readonly string[] {
    if (this.stuck.size === 0 && event.type !== "diagnostic") {
      const cached = this.names.get(event.type);
      if (cached !== undefined) return cached;
      const names = this.collectNames(event);
      this.names.set(event.type, names);
      return names;
    }
    return this.collectNames(event).filter((name) => !this.stuck.has(name));
  }

  private collectNames(event: SeatEvent): string[] {
    const cb = this.callbacks;
    const names: string[] = [];
    if (cb.onEvent) names.push("onEvent");
    const specific = SPECIFIC[event.type];
    if (specific !== undefined && cb[specific]) names.push(specific);
    if (event.type === "diagnostic" && this.diagnosticsAsText && event.asText !== false && cb.onText)
      names.push("onText");
    return names;
  }

  /** Calls one named callback with what it takes of the event. */
  private invoke(name: string, event: SeatEvent): unknown {
    const cb = this.callbacks;
    if (name === "onEvent") return cb.onEvent!(event);
    switch (event.type) {
      case "text":
        return cb.onText!(event.text);
      case "thinking":
        return cb.onThinking!(event.text);
      case "tool_start":
        return cb.onToolStart!(event);
      case "tool_end":
        return cb.onToolEnd!(event);
      case "plan":
        return cb.onPlan!(event.entries);
      case "usage":
        return cb.onUsage!(event.usage);
      case "retry":
        return cb.onRetry!(event);
      case "state":
        return cb.onState!(event);
      case "diagnostic":
        return name === "onText" ? cb.onText!(event.diagnostic.message) : cb.onDiagnostic!(event.diagnostic);
      default:
        return undefined;
    }
  }
}
