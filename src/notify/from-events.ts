/*
 * From a turn's events to notifications: the one mapping every door uses, so a person hears the same things
 *   whether the turn came from `seat run`, a named session, `seat mcp` or a fleet job.
 * Owns: which SeatEvents become which NotifyEvents — a held approval is `waiting` (with the exact command and its
 *   digest), a turn's end is `done`, `failed`, `cancelled`, `uncertain`, or `budget` when BUDGET_EXCEEDED ended it.
 * Does not own: sending (notifier.ts) or the links that answer an approval (the board signs those; `linkFor`).
 *   Without links, a `waiting` message names the `seat approve` / `seat deny` commands that answer it.
 * Invariant: one turn's end is told once — the session's own end after it (state `done` at dispose) is not a
 *   second `done`.
 */
import type { PendingApproval, SeatEvent } from "../acp/index.js";
import {
  createNotifyEvent,
  type NotifyApproval,
  type NotifyEventName,
  type NotifySubject,
} from "../notify-config/index.js";
import type { Notifier } from "./notifier.js";

/** What a held approval's notification says the call would touch: its command, else its paths, else its tool. */
export function approvalCommand(approval: PendingApproval): string {
  return approval.target.command ?? approval.target.paths?.join(" ") ?? approval.target.toolName ?? approval.title;
}

/** Options of notifyFromEvents. */
export interface EventNotificationOptions {
  /** What the events are about; a function when it is known only once the session is up (its id). */
  subject: NotifySubject | (() => NotifySubject);
  /** The approve/deny links of a held approval, when a board can serve them. */
  linkFor?: (approval: PendingApproval) => Pick<NotifyApproval, "approve_url" | "deny_url"> | undefined;
}

function endEvent(
  state: string,
  reason: string | undefined,
  previous: string | undefined,
): NotifyEventName | undefined {
  if (reason === "BUDGET_EXCEEDED") return "budget";
  if (state === "failed" || state === "cancelled" || state === "uncertain") return state;
  // A turn that ended normally leaves its session idle (with the stop reason); the session's own end is not a turn.
  if (state === "idle" && reason !== undefined && (previous === "working" || previous === "waiting")) return "done";
  return undefined;
}

/** An onEvent hook that hands `notifier` the notifications a turn's events call for. */
export function notifyFromEvents(notifier: Notifier, options: EventNotificationOptions): (event: SeatEvent) => void {
  const subject = (): NotifySubject => (typeof options.subject === "function" ? options.subject() : options.subject);
  return (event) => {
    if (event.type === "approval_asked") {
      const approval = event.approval;
      const links = options.linkFor?.(approval);
      // Without a board to link to, the message says how to answer from a shell instead.
      const how =
        links === undefined
          ? ` — answer with \`seat approve ${approval.id} --digest ${approval.digest}\` or \`seat deny ${approval.id}\``
          : "";
      notifier.notify(
        createNotifyEvent({
          event: "waiting",
          subject: subject(),
          text: `waits for your approval: ${approval.category} ${approval.title}${how}`,
          approval: {
            id: approval.id,
            category: approval.category,
            command: approvalCommand(approval),
            digest: approval.digest,
            ...(links ?? {}),
          },
        }),
      );
      return;
    }
    if (event.type !== "state") return;
    const name = endEvent(event.state, event.reason, event.previous);
    if (name === undefined) return;
    const why = event.reason !== undefined && name !== "done" ? ` (${event.reason})` : "";
    notifier.notify(
      createNotifyEvent({
        event: name,
        subject: subject(),
        text: `${name === "done" ? "finished its turn" : name}${why}`,
      }),
    );
  };
}
