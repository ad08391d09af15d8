/*
 * Offline wiring of the agents: how each agent is pointed at this mock model in a throwaway HOME, and which
 *   model-side tool calls run a shell command or a host tool in it. Test rigs only (grok-seat/testing).
 * Owns: the wiring table, one entry per agent that has one (name → dialect, env and files, tool calls).
 * Does not own: how an agent is launched or authenticated for real (agents/), the mock itself (server.ts).
 * Invariant: nothing the shipped CLI or library runs reads this table; only tests and benches do.
 */
import { join } from "node:path";
import type { MockToolCall } from "./script.js";

/** Which API the agent's model calls speak (the mock model serves each). */
export type ModelDialect = "chat" | "responses" | "messages" | "gemini";

/** What the offline test rig needs to point an agent at the scripted mock model. */
export interface OfflineWiring {
  dialect: ModelDialect;
  /** Env vars and files (paths relative to the temp HOME) that point the agent at `mockOrigin` (http://127.0.0.1:PORT). */
  configure(ctx: { mockOrigin: string; home: string; cwd: string }): {
    env: Record<string, string>;
    files: Record<string, string>;
  };
  /** The model-side tool call that runs `command` in the agent's shell tool. */
  shellCall(command: string): MockToolCall;
  /** The model-side tool call for host tool `tool` of MCP server `server`. */
  hostToolCall(server: string, tool: string, args: unknown): MockToolCall;
}

const GROK: OfflineWiring = {
  dialect: "chat",
  // The grok rig (src/sandbox/, test/support/live-rig.ts) writes config.toml; this wiring is the env form.
  configure: ({ mockOrigin }) => ({
    env: { GROK_XAI_API_BASE_URL: `${mockOrigin}/v1`, XAI_API_KEY: "mock-key" },
    files: {},
  }),
  shellCall: (command) => ({ name: "run_terminal_command", arguments: { command } }),
  hostToolCall: (server, tool, args) => ({
    name: "use_tool",
    arguments: { tool_name: `${server}__${tool}`, tool_input: args },
  }),
};

const CODEX: OfflineWiring = {
  dialect: "responses",
  configure: ({ mockOrigin, home }) => ({
    // Only allow-listed names, so `seat run --agent codex` in that environment reaches the mock too.
    env: { CODEX_HOME: join(home, ".codex"), INITIAL_AGENT_MODE: "workspace-write" },
    files: {
      ".codex/config.toml": [
        'model = "mock-model"',
        'model_provider = "mock"',
        "",
        "[model_providers.mock]",
        'name = "mock"',
        `base_url = "${mockOrigin}/v1"`,
        'wire_api = "responses"',
        'experimental_bearer_token = "mock-key"',
        "",
      ].join("\n"),
    },
  }),
  // Sandboxed commands run without asking; only an escalation request reaches the permission gate.
  shellCall: (command) => ({
    name: "exec_command",
    arguments: { cmd: command, sandbox_permissions: "require_escalated", justification: "grok-seat test command" },
  }),
  hostToolCall: (server, tool, args) => ({
    name: tool,
    namespace: `mcp__${server.replace(/-/g, "_")}`,
    arguments: args,
  }),
};

const CLAUDE: OfflineWiring = {
  dialect: "messages",
  configure: ({ mockOrigin, home }) => ({
    env: { ANTHROPIC_BASE_URL: mockOrigin, ANTHROPIC_API_KEY: "mock-key", CLAUDE_CONFIG_DIR: join(home, ".claude") },
    files: {},
  }),
  shellCall: (command) => ({ name: "Bash", arguments: { command, description: "run a command" } }),
  hostToolCall: (server, tool, args) => ({ name: `mcp__${server}__${tool}`, arguments: args }),
};

const OPENCODE: OfflineWiring = {
  dialect: "chat",
  configure: ({ mockOrigin, home }) => ({
    env: {
      OPENCODE_CONFIG: join(home, "opencode.json"),
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_DATA_HOME: join(home, ".local", "share"),
      XDG_CACHE_HOME: join(home, ".cache"),
      XDG_STATE_HOME: join(home, ".local", "state"),
    },
    files: {
      "opencode.json": JSON.stringify(
        {
          $schema: "https://opencode.ai/config.json",
          provider: {
            mock: {
              npm: "@ai-sdk/openai-compatible",
              name: "mock",
              options: { baseURL: `${mockOrigin}/v1`, apiKey: "mock-key" },
              models: {
                "mock-model": { name: "mock-model", tool_call: true },
                "mock-model-2": { name: "mock-model-2", tool_call: true },
              },
            },
          },
          model: "mock/mock-model",
          small_model: "mock/mock-model",
          permission: { bash: "ask", edit: "ask" },
          autoupdate: false,
          share: "disabled",
        },
        null,
        2,
      ),
    },
  }),
  shellCall: (command) => ({ name: "bash", arguments: { command, description: "run a command" } }),
  hostToolCall: (server, tool, args) => ({ name: `${server}_${tool}`, arguments: args }),
};

const GEMINI: OfflineWiring = {
  dialect: "gemini",
  configure: ({ mockOrigin, cwd }) => ({
    env: { GOOGLE_GEMINI_BASE_URL: mockOrigin, GEMINI_API_KEY: "mock-key" },
    files: {
      ".gemini/settings.json": JSON.stringify({
        security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: true } },
        privacy: { usageStatisticsEnabled: false },
      }),
      ".gemini/trustedFolders.json": JSON.stringify({ [cwd]: "TRUST_FOLDER" }),
    },
  }),
  shellCall: (command) => ({ name: "run_shell_command", arguments: { command } }),
  hostToolCall: (server, tool, args) => ({ name: `mcp_${server}_${tool}`, arguments: args }),
};

/** The offline wiring of every agent that has one, by agent name. */
export const OFFLINE_WIRING: Readonly<Record<string, OfflineWiring>> = {
  grok: GROK,
  codex: CODEX,
  claude: CLAUDE,
  opencode: OPENCODE,
  gemini: GEMINI,
};

/** The offline wiring of agent `name`, or undefined when it has none. */
export function offlineWiring(name: string): OfflineWiring | undefined {
  return Object.hasOwn(OFFLINE_WIRING, name) ? OFFLINE_WIRING[name] : undefined;
}
