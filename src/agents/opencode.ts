/*
 * OpenCode profile: `opencode-ai` (`opencode acp`).
 * Owns: how it is launched (the package's native binary), its env and auth.
 * Invariant: auto-update and the models.dev fetch are always off; permissions come from its config file
 *   (`permission: {bash: "ask", edit: "ask"}`, as mock-model/agent-wiring.ts writes it) — without it OpenCode never asks.
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
    'Asks for permission only for what its config marks "ask" (bash, edit); MCP tools are not gated by default.',
    "Host tools are named <server>_<tool> (one underscore).",
    "Takes 3-5 s to start.",
  ],
};
