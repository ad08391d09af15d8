/*
 * notify/ front door: notifications a person away from the terminal receives, and can answer.
 * Spec: docs/notifications.md.
 */
export { buildRequest, signBody, type NotifyRequest } from "./payloads.js";
export { ATTEMPT_TIMEOUT_MS, RETRY_DELAYS_MS, attemptDelivery, deliver, type DeliveryOutcome } from "./deliver.js";
export { DEFAULT_COALESCE_MS, createNotifier, foldEvents, type Notifier, type NotifierOptions } from "./notifier.js";
export { terminalSequence } from "./terminal.js";
export { approvalCommand, notifyFromEvents, type EventNotificationOptions } from "./from-events.js";
export { NOTIFY_EVENT_SCHEMA } from "./schema.js";
export { loadUserNotifyConfig, resolveTargetNames, secretEnvNamesOf } from "./user-config.js";
