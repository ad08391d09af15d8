/*
 * Notification schema: the JSON Schema of a webhook body (`NotifyEvent`), for receivers and for our own tests.
 * Owns: NOTIFY_EVENT_SCHEMA. Does not own: producing events (notify-config/events.ts).
 * Invariant: it matches notify-config/events.ts field for field; additional properties are refused, so a field added
 *   without updating the schema fails the receiver test.
 */
import { NOTIFY_EVENTS } from "../notify-config/index.js";

const text = { type: "string" } as const;

/** JSON Schema (draft 2020-12) of the webhook body. */
export const NOTIFY_EVENT_SCHEMA = {
  $id: "grok-seat.notify.v1",
  type: "object",
  additionalProperties: false,
  required: ["id", "event", "time", "subject", "text"],
  properties: {
    id: { type: "string", minLength: 1 },
    event: { enum: [...NOTIFY_EVENTS] },
    time: { type: "string", format: "date-time" },
    subject: {
      oneOf: [
        {
          type: "object",
          additionalProperties: false,
          required: ["kind", "name"],
          properties: { kind: text, name: text },
        },
        { type: "object", additionalProperties: false, required: ["kind", "id"], properties: { kind: text, id: text } },
      ],
    },
    text,
    approval: {
      type: "object",
      additionalProperties: false,
      required: ["id", "category", "command", "digest"],
      properties: {
        id: text,
        category: text,
        command: text,
        digest: text,
        approve_url: { type: "string", format: "uri" },
        deny_url: { type: "string", format: "uri" },
      },
    },
    more: {
      type: "object",
      additionalProperties: false,
      required: ["count", "events", "ids"],
      properties: {
        count: { type: "integer", minimum: 1 },
        events: {
          type: "object",
          propertyNames: { enum: [...NOTIFY_EVENTS] },
          additionalProperties: { type: "integer" },
        },
        ids: { type: "array", items: text },
      },
    },
  },
} as const;
