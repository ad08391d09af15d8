/*
 * ACP method names: the one place wire method strings appear.
 * Owns: the SDK's method table (mirrored here so that importing grok-seat does not load the SDK; methods.test.ts
 *   checks it equals the SDK's own `methods`), and grok's `_x.ai/*` extension names.
 * Does not own: handling them (connection.ts, updates.ts).
 * Invariant: client→agent extension methods are sent `_`-prefixed (bare `x.ai/*` gets -32601).
 * Spec: shared reference grok-wire.md §10.1.
 */
/** The SDK's stable ACP method constants (`methods` of @agentclientprotocol/sdk 2.4, checked by methods.test.ts). */
export const ACP = {
  agent: {
    initialize: "initialize",
    authenticate: "authenticate",
    logout: "logout",
    session: {
      new: "session/new",
      load: "session/load",
      list: "session/list",
      delete: "session/delete",
      resume: "session/resume",
      close: "session/close",
      setMode: "session/set_mode",
      setConfigOption: "session/set_config_option",
      prompt: "session/prompt",
      cancel: "session/cancel",
    },
  },
  client: {
    session: { requestPermission: "session/request_permission", update: "session/update" },
    fs: { writeTextFile: "fs/write_text_file", readTextFile: "fs/read_text_file" },
    terminal: {
      create: "terminal/create",
      output: "terminal/output",
      release: "terminal/release",
      waitForExit: "terminal/wait_for_exit",
      kill: "terminal/kill",
    },
    elicitation: { create: "elicitation/create", complete: "elicitation/complete" },
  },
  protocol: { cancelRequest: "$/cancel_request" },
} as const;

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
