/*
 * Notification events: what a person away from the terminal is told, as one JSON shape every target carries.
 * Owns: the event names, the NotifyEvent shape (the webhook body's schema), and building one with a stable id.
 * Does not own: which state changes produce an event (the turn's owner), nor delivery (notify/deliver.ts).
 * Invariant: an event's `id` is fixed when it is made and every retry of every target carries the same id, so a
 *   receiver dedupes by it; the text is redacted before it leaves (the one redaction point, internal/redact.ts).
 */
import { randomUUID } from "node:crypto";
import { redactText } from "../internal/redact.js";

/** Every event a target may choose, in the order the docs list them. */
export const NOTIFY_EVENTS = ["waiting", "done", "failed", "cancelled", "uncertain", "budget", "lost"] as const;

/** One event name. */
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];

/** What the event is about: a named session or visible seat by name, anything else by id. */
export type NotifySubject = { kind: string; name: string } | { kind: string; id: string };

/** The approval a `waiting` event asks about, with the links that answer it (when a board serves them). */
export interface NotifyApproval {
  id: string;
  category: string;
  /** The exact command (or target) the person is asked about, secrets masked by value only. */
  command: string;
  /** sha256 of the exact target, as `seat approvals` shows it. */
  digest: string;
  approve_url?: string;
  deny_url?: string;
}

/** The webhook body (schema `grok-seat.notify.v1`, docs/notifications.md). */
export interface NotifyEvent {
  id: string;
  event: NotifyEventName;
  time: string;
  subject: NotifySubject;
  text: string;
  approval?: NotifyApproval;
  /** When several events were folded into this one message (coalescing): how many more, by event name. */
  more?: { count: number; events: Partial<Record<NotifyEventName, number>>; ids: string[] };
}

/** True when `name` is one of NOTIFY_EVENTS. */
export function isNotifyEventName(name: unknown): name is NotifyEventName {
  return typeof name === "string" && (NOTIFY_EVENTS as readonly string[]).includes(name);
}

/** Builds an event with a fresh id (or the caller's, e.g. a fleet-wide dedupe key) and redacted text. */
export function createNotifyEvent(input: {
  event: NotifyEventName;
  subject: NotifySubject;
  text: string;
  approval?: NotifyApproval;
  id?: string;
  time?: Date;
}): NotifyEvent {
  return {
    id: input.id ?? randomUUID(),
    event: input.event,
    time: (input.time ?? new Date()).toISOString(),
    subject: input.subject,
    text: redactText(input.text),
    ...(input.approval !== undefined
      ? { approval: { ...input.approval, command: redactText(input.approval.command) } }
      : {}),
  };
}
