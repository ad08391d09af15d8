/*
 * OpenCode profile: `opencode-ai` (`opencode acp`).
 * Owns: how it is launched (the package's native binary), its env, auth and offline wiring.
 * Invariant: auto-update and the models.dev fetch are always off; permissions come from its config file
 *   (`permission: {bash: "ask", edit: "ask"}` in the offline wiring) — without it OpenCode never asks.
 */
import { join } from "node:path";
import { BASE_ENV_ALLOW, BASE_ENV_PREFIXES } from "./common.js";
import { requireInstalledFile } from "./install.js";
import { noAuthenticate, type AgentProfile, type PinnedPackage } from "./profile.js";

const PIN: PinnedPackage = { dir: "opencode", package: "opencode-ai", version: "1.18.33", bin: "opencode" };

/** The opencode profile. */
export const opencodeProfile: AgentProfile = {
  name: "opencode",
  title: "OpenCode (opencode acp)",
  pinned: PIN,
  launchArgv: (ctx) => [requireInstalledFile("opencode", ctx, PIN, join("bin", "opencode.exe")), "acp"],
  envAllow: [...BASE_ENV_ALLOW, "OPENCODE_CONFIG", "OPENCODE_CONFIG_DIR", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
  envPrefixes: BASE_ENV_PREFIXES,
  keyVars: ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"],
  envForced: { OPENCODE_DISABLE_AUTOUPDATE: "1", OPENCODE_DISABLE_MODELS_FETCH: "1" },
  chooseAuth: () => noAuthenticate("OpenCode takes its provider credentials from its config file"),
  waitsForMcpInitialized: false,
  projection: "object-with-unions",
  modelToolName: (server, tool) => `${server}_${tool}`,
  skills: "rules",
  // OpenCode's `instructions` (files loaded into the system prompt) and `model`, merged over the user's config
  // through OPENCODE_CONFIG_CONTENT; the model is "<provider>/<model>" as in its config.
  rulesDelivery: "rules-file",
  rulesFileName: "grok-seat-rules.md",
  sessionLaunch: ({ model, rulesFile }) => {
    const content: Record<string, unknown> = {};
    if (model) content.model = model;
    if (rulesFile) content.instructions = [rulesFile];
    return Object.keys(content).length > 0 ? { env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(content) } } : {};
  },
  quirks: [
    "Asks for permission only for what its config marks \"ask\" (bash, edit); MCP tools are not gated by default.",
    "Host tools are named <server>_<tool> (one underscore).",
    "Takes 3-5 s to start.",
  ],
  offline: {
    dialect: "chat",
    configure: ({ mockOrigin, home }) => ({
      env: { OPENCODE_CONFIG: join(home, "opencode.json"), XDG_CONFIG_HOME: join(home, ".config"), XDG_DATA_HOME: join(home, ".local", "share"), XDG_CACHE_HOME: join(home, ".cache"), XDG_STATE_HOME: join(home, ".local", "state") },
      files: {
        "opencode.json": JSON.stringify({
          $schema: "https://opencode.ai/config.json",
          provider: { mock: { npm: "@ai-sdk/openai-compatible", name: "mock", options: { baseURL: `${mockOrigin}/v1`, apiKey: "mock-key" }, models: { "mock-model": { name: "mock-model", tool_call: true }, "mock-model-2": { name: "mock-model-2", tool_call: true } } } },
          model: "mock/mock-model",
          small_model: "mock/mock-model",
          permission: { bash: "ask", edit: "ask" },
          autoupdate: false,
          share: "disabled",
        }, null, 2),
      },
    }),
    shellCall: (command) => ({ name: "bash", arguments: { command, description: "run a command" } }),
    hostToolCall: (server, tool, args) => ({ name: `${server}_${tool}`, arguments: args }),
  },
};
