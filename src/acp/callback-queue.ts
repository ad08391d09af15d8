/*
 * Callback queue: hands SeatEvents to an embedder's callbacks one at a time, in arrival order.
 * Owns: ordering, the mapping from an event to its named callbacks, and isolation of throwing callbacks.
 * Does not own: producing events (session-core.ts, updates.ts).
 * Invariant: a callback never overlaps another; a callback that returns a promise is awaited before the next
 *   one runs; synchronous callbacks run inline without a microtask per event (this is the hot path of a
 *   streamed turn); a throwing or rejecting callback is dropped for that event and delivery goes on.
 */
import type { SeatCallbacks, SeatEvent } from "./events.js";

type Step = () => unknown;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";
}

/** Serial delivery of events to one set of callbacks. */
export class CallbackQueue {
  private readonly pending: SeatEvent[] = [];
  private running = false;
  private readonly idle: Array<() => void> = [];

  constructor(
    private readonly callbacks: SeatCallbacks,
    private readonly diagnosticsAsText: boolean,
  ) {}

  /** Queues one event; delivers it at once when nothing is in flight. */
  push(event: SeatEvent): void {
    this.pending.push(event);
    if (!this.running) void this.pump();
  }

  /** Resolves once every queued event has been delivered. */
  drain(): Promise<void> {
    if (!this.running && this.pending.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
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
      const result = steps[i]!();
      if (isThenable(result)) {
        return (async () => {
          await result;
          for (let j = i + 1; j < steps.length; j += 1) await steps[j]!();
        })();
      }
    }
    return undefined;
  }

  private stepsFor(event: SeatEvent): Step[] {
    const cb = this.callbacks;
    const steps: Step[] = [];
    if (cb.onEvent) steps.push(() => cb.onEvent!(event));
    switch (event.type) {
      case "text":
        if (cb.onText) steps.push(() => cb.onText!(event.text));
        break;
      case "thinking":
        if (cb.onThinking) steps.push(() => cb.onThinking!(event.text));
        break;
      case "tool_start":
        if (cb.onToolStart) steps.push(() => cb.onToolStart!(event));
        break;
      case "tool_end":
        if (cb.onToolEnd) steps.push(() => cb.onToolEnd!(event));
        break;
      case "plan":
        if (cb.onPlan) steps.push(() => cb.onPlan!(event.entries));
        break;
      case "usage":
        if (cb.onUsage) steps.push(() => cb.onUsage!(event.usage));
        break;
      case "retry":
        if (cb.onRetry) steps.push(() => cb.onRetry!(event));
        break;
      case "diagnostic":
        if (cb.onDiagnostic) steps.push(() => cb.onDiagnostic!(event.diagnostic));
        if (this.diagnosticsAsText && cb.onText) steps.push(() => cb.onText!(event.diagnostic.message));
        break;
      default:
        break;
    }
    return steps;
  }
}
