/*
 * Notification payloads: the exact HTTP request each kind of target receives for one event.
 * Owns: the webhook body and its `X-Seat-Signature` (HMAC-SHA256 over the raw body with the target's secret),
 *   the ntfy publish request (title, priority, tags, view actions for an approval's links), the Slack-style
 *   incoming-webhook body (text plus link buttons; Discord's /slack endpoint and Mattermost take it too).
 * Does not own: sending, retrying or coalescing (deliver.ts, notifier.ts).
 * Invariant: the body that is signed is the body that is sent, byte for byte; header values are printable ASCII,
 *   so model-chosen text can never inject a header or a line break (it travels in the body).
 */
import { createHmac } from "node:crypto";
import type { NotifyEvent, NotifyTarget } from "../notify-config/index.js";

/** One request, ready for fetch. */
export interface NotifyRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** `sha256=<hex>` of the raw body: the value of X-Seat-Signature. */
export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** A header value made of printable ASCII only (anything else becomes `?`), at most `max` characters. */
export function headerValue(text: string, max = 200): string {
  const clean = text.replace(/[^\x20-\x7e]/g, "?");
  return clean.length > max ? `${clean.slice(0, max - 1)}~` : clean;
}

/** A one-line title: what happened and to what. */
export function eventTitle(event: NotifyEvent): string {
  const who = "name" in event.subject ? event.subject.name : event.subject.id;
  return `grok-seat: ${event.subject.kind} ${who} ${event.event}`;
}

/** Slack refuses a section block whose text passes 3,000 characters (and a message of more than 50 blocks). */
export const SLACK_SECTION_MAX_CHARS = 3_000;
const SLACK_MAX_SECTIONS = 49;

/** `text` as consecutive mrkdwn sections of at most SLACK_SECTION_MAX_CHARS each, so a long command is shown whole. */
function slackSections(text: string): unknown[] {
  const chars = Array.from(text);
  const sections: unknown[] = [];
  for (let at = 0; at < chars.length && sections.length < SLACK_MAX_SECTIONS; at += SLACK_SECTION_MAX_CHARS) {
    sections.push({
      type: "section",
      text: { type: "mrkdwn", text: chars.slice(at, at + SLACK_SECTION_MAX_CHARS).join("") },
    });
  }
  const shown = sections.length * SLACK_SECTION_MAX_CHARS;
  if (chars.length > shown) {
    // Past what one Slack message can hold: said plainly, never cut silently (the board shows it whole).
    sections[sections.length - 1] = {
      type: "section",
      text: {
        type: "mrkdwn",
        text: `${chars.slice(shown - SLACK_SECTION_MAX_CHARS, shown - 100).join("")}\n… ${chars.length - shown + 100} more characters do not fit in one Slack message; the board shows all of it`,
      },
    };
  }
  return sections;
}

const NTFY_PRIORITY: Record<NotifyEvent["event"], string> = {
  waiting: "high",
  failed: "high",
  uncertain: "high",
  lost: "high",
  budget: "high",
  done: "default",
  cancelled: "low",
};
const NTFY_TAGS: Record<NotifyEvent["event"], string> = {
  waiting: "hourglass",
  done: "white_check_mark",
  failed: "x",
  cancelled: "no_entry_sign",
  uncertain: "question",
  budget: "moneybag",
  lost: "warning",
};

function approvalLines(event: NotifyEvent): string {
  if (event.approval === undefined) return "";
  return `\n\n${event.approval.category}: ${event.approval.command}\ndigest ${event.approval.digest}`;
}

/** The request a target receives for `event`; `command` targets take no request (see deliver.ts). */
export function buildRequest(target: Exclude<NotifyTarget, { type: "command" }>, event: NotifyEvent): NotifyRequest {
  switch (target.type) {
    case "webhook": {
      const body = JSON.stringify(event);
      return {
        url: target.url,
        headers: {
          "content-type": "application/json",
          "x-seat-signature": signBody(body, target.secret),
          "x-seat-event": event.event,
          "x-seat-event-id": event.id,
        },
        body,
      };
    }
    case "ntfy": {
      const headers: Record<string, string> = {
        "content-type": "text/plain; charset=utf-8",
        title: headerValue(eventTitle(event)),
        priority: NTFY_PRIORITY[event.event],
        tags: NTFY_TAGS[event.event],
      };
      const approve = event.approval?.approve_url;
      const deny = event.approval?.deny_url;
      if (approve !== undefined && deny !== undefined)
        headers.actions = headerValue(`view, Approve, ${approve}; view, Deny, ${deny}`, 2000);
      return { url: target.url, headers, body: `${event.text}${approvalLines(event)}` };
    }
    case "slack": {
      const text = `*${eventTitle(event)}*\n${event.text}${approvalLines(event)}`;
      const blocks: unknown[] = slackSections(text);
      const approve = event.approval?.approve_url;
      const deny = event.approval?.deny_url;
      if (approve !== undefined && deny !== undefined) {
        blocks.push({
          type: "actions",
          elements: [
            { type: "button", text: { type: "plain_text", text: "Approve" }, url: approve, style: "primary" },
            { type: "button", text: { type: "plain_text", text: "Deny" }, url: deny, style: "danger" },
          ],
        });
      }
      return {
        url: target.url,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text, blocks }),
      };
    }
  }
}
