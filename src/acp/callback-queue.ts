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

interface Step {
  name: string;
  run: () => unknown;
}

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

  constructor(
    private readonly callbacks: SeatCallbacks,
    private readonly diagnosticsAsText: boolean,
    /** Told about every abandoned callback (after its diagnostic was queued). */
    private readonly onAbandon?: (diagnostic: Diagnostic) => void,
  ) {}

  /** Queues one event; delivers it at once when nothing is in flight. */
  push(event: SeatEvent): void {
    this.pending.push(event);
    if (!this.running) void this.pump();
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

  private async pump(): Promise<void> {
    this.running = true;
    try {
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
    const steps = this.stepsFor(event);
    for (let i = 0; i < steps.length; i += 1) {
      const result = steps[i]!.run();
      if (isThenable(result)) {
        return (async () => {
          await this.awaitStep(steps[i]!.name, event.type, result);
          for (let j = i + 1; j < steps.length; j += 1) {
            if (this.stuck.has(steps[j]!.name)) continue;
            await this.awaitStep(steps[j]!.name, event.type, steps[j]!.run());
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

  private stepsFor(event: SeatEvent): Step[] {
    const cb = this.callbacks;
    const steps: Step[] = [];
    const add = (name: string, run: () => unknown) => {
      if (!this.stuck.has(name)) steps.push({ name, run });
    };
    if (cb.onEvent) add("onEvent", () => cb.onEvent!(event));
    switch (event.type) {
      case "text":
        if (cb.onText) add("onText", () => cb.onText!(event.text));
        break;
      case "thinking":
        if (cb.onThinking) add("onThinking", () => cb.onThinking!(event.text));
        break;
      case "tool_start":
        if (cb.onToolStart) add("onToolStart", () => cb.onToolStart!(event));
        break;
      case "tool_end":
        if (cb.onToolEnd) add("onToolEnd", () => cb.onToolEnd!(event));
        break;
      case "plan":
        if (cb.onPlan) add("onPlan", () => cb.onPlan!(event.entries));
        break;
      case "usage":
        if (cb.onUsage) add("onUsage", () => cb.onUsage!(event.usage));
        break;
      case "retry":
        if (cb.onRetry) add("onRetry", () => cb.onRetry!(event));
        break;
      case "diagnostic":
        if (cb.onDiagnostic) add("onDiagnostic", () => cb.onDiagnostic!(event.diagnostic));
        if (this.diagnosticsAsText && event.asText !== false && cb.onText) add("onText", () => cb.onText!(event.diagnostic.message));
        break;
      default:
        break;
    }
    return steps;
  }
}
