/*
 * Codex profile: `@agentclientprotocol/codex-acp` (OpenAI Codex behind an ACP adapter).
 * Owns: how codex-acp is launched (host Node + its dist/index.js), its env and auth.
 * Does not own: the Codex binary (the adapter finds @openai/codex beside itself).
 * Invariant: INITIAL_AGENT_MODE defaults to workspace-write so approvals come to us as ACP permission
 *   requests instead of Codex's internal reviewer; `chatgpt` (a browser login) is never chosen.
 */
import { join } from "node:path";
import { BASE_ENV_ALLOW, BASE_ENV_PREFIXES } from "./common.js";
import { requireInstalledFile } from "./install.js";
import { noAuthenticate, type AgentProfile, type PinnedPackage } from "./profile.js";

const PIN: PinnedPackage = {
  dir: "codex",
  package: "@agentclientprotocol/codex-acp",
  version: "2.6.0",
  bin: "codex-acp",
};

/** The codex profile. */
export const codexProfile: AgentProfile = {
  name: "codex",
  title: "OpenAI Codex (codex-acp)",
  pinned: PIN,
  launchArgv: (ctx) => [process.execPath, requireInstalledFile("codex", ctx, PIN, join("dist", "index.js"))],
  envAllow: [
    ...BASE_ENV_ALLOW,
    "CODEX_HOME",
    "CODEX_API_KEY",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "INITIAL_AGENT_MODE",
    "MODEL_PROVIDER",
  ],
  envPrefixes: BASE_ENV_PREFIXES,
  envForced: { NO_BROWSER: "1" },
  keyVars: ["OPENAI_API_KEY", "CODEX_API_KEY"],
  chooseAuth: (advertised, _default, env) => {
    const ids = new Set(advertised.map((m) => m.id));
    // Older adapters offer codex-api-key/openai-api-key; codex-acp 2.6.0 offers a single "api-key".
    if (env.CODEX_API_KEY && ids.has("codex-api-key"))
      return { methodId: "codex-api-key", why: "CODEX_API_KEY is set" };
    if (env.OPENAI_API_KEY && ids.has("openai-api-key"))
      return { methodId: "openai-api-key", why: "OPENAI_API_KEY is set" };
    if ((env.CODEX_API_KEY || env.OPENAI_API_KEY) && ids.has("api-key"))
      return { methodId: "api-key", why: "CODEX_API_KEY/OPENAI_API_KEY is set" };
    return noAuthenticate(
      "no API key in the environment: Codex uses its own login or the provider in CODEX_HOME/config.toml",
    );
  },
  waitsForMcpInitialized: false,
  projection: "object-with-unions",
  modelToolName: (server, tool) => `mcp__${server.replace(/-/g, "_")}__${tool}`,
  skills: "rules",
  // codex-acp reads ACP's `systemPrompt: {mode: "append"}` on session/new into Codex's developer instructions.
  rulesDelivery: "acp-system-prompt",
  // CODEX_CONFIG is codex-acp's per-session Codex config (JSON); `model` picks the model of the provider.
  sessionLaunch: ({ model }) => (model ? { env: { CODEX_CONFIG: JSON.stringify({ model }) } } : {}),
  quirks: [
    "Without INITIAL_AGENT_MODE=workspace-write (set by default) approvals go to Codex's internal reviewer and never reach the gate.",
    "All its modes are on-request: a command inside its sandbox runs without asking; only escalations (outside the sandbox) come to the gate.",
    'MCP tool approvals arrive titled "Approve MCP tool call" with rawInput.server_name and no kind.',
    "Makes an extra title-generation model call per session.",
  ],
};
