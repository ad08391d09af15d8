/*
 * Notifier: the events of one run (or one worker) fanned out to its targets, without spamming and without
 *   ever holding up the turn.
 * Owns: choosing the targets that want an event, warming the HTTP client when there is an HTTP target, coalescing bursts (at most one message per target per
 *   `coalesceMs`; what arrives in between is folded into the next message as "N more"), the terminal target,
 *   and closing with a bounded grace (a run exits on time even when a receiver never answers).
 * Does not own: the request bytes (payloads.ts), one delivery's retries (deliver.ts), what produces events.
 * Invariant: notify() is synchronous and never throws; a failed delivery is reported through onOutcome, never
 *   to the turn; a folded message carries a deterministic id (from the ids it folds), so its retries dedupe too.
 */
import { createHash } from "node:crypto";
import type { NotifyTarget, NotifyEvent, NotifyEventName } from "../notify-config/index.js";
import { deliver, type DeliveryOutcome, RETRY_DELAYS_MS } from "./deliver.js";
import { terminalSequence } from "./terminal.js";

/** The default coalescing window per target. */
export const DEFAULT_COALESCE_MS = 10_000;

/** Options of createNotifier. */
export interface NotifierOptions {
  targets: readonly NotifyTarget[];
  /** At most one message per target per this many ms (default 10 s); 0 sends every event at once. */
  coalesceMs?: number;
  /** A terminal to ring with BEL + OSC 9/777 for every event (an interactive run's stderr). */
  terminal?: { write(text: string): unknown };
  /** Each delivery's outcome, for a diagnostic line; never called for the terminal. */
  onOutcome?: (outcome: DeliveryOutcome) => void;
  retryDelaysMs?: readonly number[];
  fetch?: typeof fetch;
}

/** A running notifier. */
export interface Notifier {
  /** Hands an event to every target that wants it. Never throws, never waits. */
  notify(event: NotifyEvent): void;
  /** Sends what is held at once, waits up to `graceMs` for deliveries in flight, then abandons them. */
  close(graceMs?: number): Promise<DeliveryOutcome[]>;
}

/** Folds several events into one message: the newest event, its text followed by what else happened. */
export function foldEvents(events: readonly NotifyEvent[]): NotifyEvent {
  const newest = events[events.length - 1] as NotifyEvent;
  if (events.length === 1) return newest;
  const rest = events.slice(0, -1);
  const counts: Partial<Record<NotifyEventName, number>> = {};
  for (const e of rest) counts[e.event] = (counts[e.event] ?? 0) + 1;
  const summary = Object.entries(counts)
    .map(([name, n]) => `${n} more ${name}`)
    .join(", ");
  const id = createHash("sha256")
    .update(events.map((e) => e.id).join("\n"))
    .digest("hex")
    .slice(0, 32);
  return {
    ...newest,
    id,
    text: `${newest.text} (${summary})`,
    more: { count: rest.length, events: counts, ids: rest.map((e) => e.id) },
  };
}

/**
 * Loads the HTTP client (Node's fetch loads it on its first call) and lets it settle now, off the turn's path, so
 * the first notification of a fresh process (every `seat run`) does not pay for it. A `data:` URL: no request leaves.
 */
function warmHttpClient(fetchImpl: typeof fetch): void {
  try {
    void fetchImpl("data:,")
      .then(
        (response) => response.arrayBuffer(),
        () => undefined,
      )
      .catch(() => undefined);
  } catch {
    // a warm-up is never the turn's failure
  }
}

interface Lane {
  target: NotifyTarget;
  lastSentAt: number;
  held: NotifyEvent[];
  timer?: NodeJS.Timeout;
}

/** Creates a notifier for `targets`. */
export function createNotifier(options: NotifierOptions): Notifier {
  const coalesceMs = options.coalesceMs ?? DEFAULT_COALESCE_MS;
  const stop = new AbortController();
  const inFlight = new Set<Promise<DeliveryOutcome>>();
  const outcomes: DeliveryOutcome[] = [];
  const lanes = options.targets.map((target): Lane => ({ target, lastSentAt: -Infinity, held: [] }));
  let closed = false;
  if (options.targets.some((target) => target.type !== "command")) warmHttpClient(options.fetch ?? fetch);

  const send = (lane: Lane, event: NotifyEvent): void => {
    lane.lastSentAt = Date.now();
    const delivery = deliver(lane.target, event, {
      signal: stop.signal,
      delaysMs: options.retryDelaysMs ?? RETRY_DELAYS_MS,
      fetch: options.fetch,
    }).then((outcome) => {
      inFlight.delete(delivery);
      outcomes.push(outcome);
      try {
        options.onOutcome?.(outcome);
      } catch {
        // a reporter's failure is not the turn's
      }
      return outcome;
    });
    inFlight.add(delivery);
  };

  const flush = (lane: Lane): void => {
    if (lane.timer !== undefined) clearTimeout(lane.timer);
    lane.timer = undefined;
    if (lane.held.length === 0) return;
    const folded = foldEvents(lane.held);
    lane.held = [];
    send(lane, folded);
  };

  return {
    notify(event) {
      if (closed) return;
      try {
        options.terminal?.write(terminalSequence(event));
      } catch {
        // a closed terminal is not the turn's failure
      }
      const now = Date.now();
      for (const lane of lanes) {
        if (!lane.target.events.includes(event.event)) continue;
        if (lane.held.length === 0 && now - lane.lastSentAt >= coalesceMs) {
          send(lane, event);
          continue;
        }
        lane.held.push(event);
        lane.timer ??= setTimeout(() => flush(lane), Math.max(0, lane.lastSentAt + coalesceMs - now));
        lane.timer.unref?.();
      }
    },
    async close(graceMs = 3_000) {
      closed = true;
      for (const lane of lanes) flush(lane);
      if (inFlight.size > 0) {
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, graceMs);
        });
        await Promise.race([Promise.allSettled([...inFlight]), grace]);
        clearTimeout(timer);
        stop.abort();
        await Promise.allSettled([...inFlight]);
      }
      return outcomes;
    },
  };
}
