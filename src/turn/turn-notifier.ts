/*
 * A supervised turn's notifications: the targets it tells when an approval waits and when the turn ends, with
 *   Approve/Deny links when a `seat board` serves the same seat home.
 * Owns: startTurnNotifier — the notifier and the event hook of one turn.
 * Does not own: which events become which notifications (notify/from-events.ts), delivery (notify/notifier.ts),
 *   the links' signing (approval-links/links.ts).
 * Invariant: loads notify/ (and the links) only for a turn that notifies; delivery never holds up the turn.
 */
import type { SeatEvent } from "../acp/index.js";
import type { DeliveryOutcome } from "../notify/index.js";
import type { NotifySubject, NotifyTarget } from "../notify-config/index.js";

/** The notifier of one turn: a hook for its events, and close() (outcomes of deliveries that failed). */
export interface TurnNotifier {
  hook(event: SeatEvent): void;
  close(graceMs: number): Promise<DeliveryOutcome[]>;
}

/** Starts the notifier of a turn whose subject is `subject` (or the one `notify` names). */
export async function startTurnNotifier(
  notify: {
    targets: readonly NotifyTarget[];
    terminal?: { write(text: string): unknown };
    subject?: NotifySubject;
    links?: boolean;
  },
  home: string,
  subject: () => NotifySubject,
): Promise<TurnNotifier | undefined> {
  if (notify.targets.length === 0 && notify.terminal === undefined) return undefined;
  const { createNotifier, notifyFromEvents } = await import("../notify/index.js");
  const links = notify.links === false ? undefined : await import("../approval-links/index.js");
  const notifier = createNotifier({
    targets: [...notify.targets],
    ...(notify.terminal ? { terminal: notify.terminal } : {}),
  });
  const hook = notifyFromEvents(notifier, {
    subject: () => notify.subject ?? subject(),
    ...(links ? { linkFor: (approval) => links.approvalLinks(home, approval) } : {}),
  });
  return {
    hook,
    async close(graceMs) {
      return (await notifier.close(graceMs)).filter((outcome) => !outcome.ok);
    },
  };
}
