/*
 * ACP method names: the one place wire method strings appear.
 * Owns: the SDK's method table re-exported, and grok's `_x.ai/*` extension names.
 * Does not own: handling them (connection.ts, updates.ts).
 * Invariant: client→agent extension methods are sent `_`-prefixed (bare `x.ai/*` gets -32601).
 * Spec: shared reference grok-wire.md §10.1.
 */
import { methods } from "@agentclientprotocol/sdk";

/** The SDK's stable ACP method constants. */
export const ACP = methods;

/** grok's extension methods and notifications, as they appear on the wire. */
export const X_AI = {
  mcpInitialized: "_x.ai/mcp_initialized",
  queueChanged: "_x.ai/queue/changed",
  promptComplete: "_x.ai/session/prompt_complete",
  sessionNotification: "_x.ai/session_notification",
  sessionSetup: "_x.ai/session/setup",
  sessionsChanged: "_x.ai/sessions/changed",
  mcpServersUpdated: "_x.ai/mcp/servers_updated",
  sessionInfo: "_x.ai/session/info",
  commandsList: "_x.ai/commands/list",
  setModel: "session/set_model",
} as const;
