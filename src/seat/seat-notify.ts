/*
 * Seat notifications: what a visible seat tells the person's notification targets — the TUI asking its owner
 *   (`waiting`), a delivered turn's end (`done`, `failed`, `cancelled`, `uncertain`), the connection to its TUI
 *   lost (`lost`) — with subject `{"kind": "seat", "name": <seat id>}`.
 * Owns: turning a VisibleSeat's changes (seat.watch) into NotifyEvents, each once, with ids derived from the seat,
 *   the delivery or interaction and the state (so a retry, or the same change seen twice, carries the same id).
 * Does not own: delivery, retries and coalescing (notify/notifier.ts), the targets (the controller resolves the
 *   names recorded at hire from the user config), the attention vocabulary (attention/states.ts).
 * Invariant: it only reads the seat; notify() never throws and never waits, so a notification never holds up a
 *   delivery; a delivery that had already ended when watching began is not told again (a restored seat's old turns).
 */
import { createHash } from "node:crypto";
import type { DeliveryRecord, DeliveryState } from "../journal/index.js";
import { messageOf } from "../errors.js";
import { createNotifier, loadUserNotifyConfig, resolveTargetNames, type Notifier } from "../notify/index.js";
import { createNotifyEvent, type NotifyEventName } from "../notify-config/index.js";
import type { ControllerConfig } from "./controller.js";
import { observeExit } from "./proof.js";
import type { VisibleSeat } from "./visible-seat.js";

/** How often the seat's TUI is looked at for an exit nobody announced. */
const TUI_WATCH_MS = 1_000;

/** The notification a delivery's state calls for; the states in between call for none. */
const END_EVENT: Partial<Record<DeliveryState, NotifyEventName>> = {
  completed: "done",
  failed: "failed",
  uncertain: "uncertain",
  submitted: "cancelled",
};

/** A seat event's id: the same for the same change of the same seat, on every retry. */
export function seatEventId(seatId: string, ...parts: string[]): string {
  return createHash("sha256")
    .update(["grok-seat.seat-notify.v1", seatId, ...parts].join("\n"))
    .digest("hex")
    .slice(0, 32);
}

/** Watches `seat` and hands `notifier` what a person away from the terminal should hear. Returns the stop. */
export function notifySeatChanges(seat: VisibleSeat, notifier: Notifier): () => void {
  const subject = { kind: "seat", name: seat.seatId };
  const journal = seat.parts.journal;
  /** The last state told (or seen at the start) per delivery of this seat. */
  const seen = new Map<string, DeliveryState>();
  for (const d of journal.listDeliveries(seat.seatId)) seen.set(d.promptId, d.state);
  const askedOwner = new Set<string>();
  let lostTold = false;

  const tell = (event: NotifyEventName, id: string, text: string) =>
    notifier.notify(createNotifyEvent({ id, event, subject, text }));

  const delivery = (record: Pick<DeliveryRecord, "promptId" | "state" | "failureReason">) => {
    if (seen.get(record.promptId) === record.state) return;
    seen.set(record.promptId, record.state);
    const event = END_EVENT[record.state];
    if (event === undefined) return;
    const why = record.failureReason ? ` (${record.failureReason})` : "";
    const text =
      event === "done"
        ? `finished the turn of delivery ${record.promptId}`
        : event === "cancelled"
          ? `delivery ${record.promptId} was cancelled`
          : `delivery ${record.promptId} ${event}${why}${event === "uncertain" ? "; it is never re-sent: `seat send` again if it should run" : ""}`;
    tell(event, seatEventId(seat.seatId, "delivery", record.promptId, record.state), text);
  };

  const check = (written?: DeliveryRecord) => {
    if (written !== undefined && written.seatId === seat.seatId) delivery(written);
    // Deliveries still open may have moved without a record in hand (the leader's close, a release).
    for (const [promptId, state] of seen) {
      if (state === "completed" || state === "failed") continue;
      if (written?.promptId === promptId) continue;
      const now = journal.deliveryState(promptId);
      if (now && now.state !== state) {
        const full = journal.getDelivery(promptId);
        if (full) delivery(full);
      }
    }
    for (const open of seat.parts.interactions?.list() ?? []) {
      if (askedOwner.has(open.toolCallId)) continue;
      askedOwner.add(open.toolCallId);
      const what = open.kind === "permission" ? "a permission request" : `a ${open.kind}`;
      tell(
        "waiting",
        seatEventId(seat.seatId, "interaction", seat.sessionId, open.toolCallId),
        `waits for you in its TUI: ${what} — answer there (\`seat attach ${seat.seatId}\`); a seat never answers for you`,
      );
    }
    const lost = seat.connectionLost;
    if (lost !== null) tellLost(lost.message);
  };
  const tellLost = (why: string) => {
    if (lostTold) return;
    lostTold = true;
    tell(
      "lost",
      seatEventId(seat.seatId, "lost", seat.sessionId),
      `lost its TUI: ${why} Nothing in flight is re-sent; \`seat status ${seat.seatId}\` shows what is left.`,
    );
  };
  // The TUI can go (its pane closed, its tmux server killed) while its leader keeps the connection open: its
  // exit is observed by pid and birth, never guessed, and a released seat is not lost.
  const tuiWatch = setInterval(() => {
    if (lostTold || seat.isReleased) return;
    void observeExit(seat.parts.tui).then((state) => {
      if (state === "exited" && !seat.isReleased)
        tellLost(`its TUI (pid ${seat.parts.tui.pid}) exited without a release.`);
    });
  }, TUI_WATCH_MS);
  tuiWatch.unref();
  const unwatch = seat.watch(check);
  return () => {
    clearInterval(tuiWatch);
    unwatch();
  };
}

/** A seat's running notifier: close() sends what is held and waits at most `graceMs` for deliveries in flight. */
export interface SeatNotifier {
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts telling the targets `config.notify` names about `seat`: resolved against the user config now (names only
 * were recorded), each problem (a name no longer there, a secret unset, a malformed section) a log line, never the
 * seat's failure. Nothing is started when no target is named.
 */
export function startSeatNotifier(
  config: Pick<ControllerConfig, "notify" | "notifyCoalesceMs">,
  seat: VisibleSeat,
  log: (line: string) => void,
): SeatNotifier {
  const names = config.notify ?? [];
  if (names.length === 0) return { close: async () => undefined };
  let resolved: ReturnType<typeof resolveTargetNames>;
  try {
    resolved = resolveTargetNames(loadUserNotifyConfig(), names);
  } catch (error) {
    log(`the user config's notify section cannot be read: ${messageOf(error)}; this seat tells no one`);
    return { close: async () => undefined };
  }
  for (const problem of resolved.problems) log(problem);
  if (resolved.targets.length === 0) return { close: async () => undefined };
  const notifier = createNotifier({
    targets: resolved.targets,
    ...(config.notifyCoalesceMs !== undefined ? { coalesceMs: config.notifyCoalesceMs } : {}),
    onOutcome: (outcome) => {
      if (!outcome.ok) log(`not delivered: ${JSON.stringify(outcome)}`);
    },
  });
  const stop = notifySeatChanges(seat, notifier);
  return {
    async close(graceMs = 3_000) {
      stop();
      await notifier.close(graceMs);
    },
  };
}
