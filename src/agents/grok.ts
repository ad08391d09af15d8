/*
 * Grok profile: xAI's `grok agent --no-leader stdio`, the default agent and the reference.
 * Owns: the description of grok as a profile. The launch itself stays in grok/ (binary resolution, argv,
 *   env allow-list, plugin dirs) and runtime/session.ts keeps today's path for it unchanged.
 * Invariant: this profile only describes; it never changes grok's behaviour.
 */
import { AGENT_ENV_ALLOW_LIST, AGENT_ENV_ALLOW_PREFIXES, AGENT_ENV_FORCED } from "../grok/index.js";
import { chooseAuthMethod } from "./auth.js";
import type { AgentProfile } from "./profile.js";

/** The grok profile (launch handled by grok/ and runtime/). */
export const grokProfile: AgentProfile = {
  name: "grok",
  title: "Grok Build CLI (xAI)",
  launchArgv: () => {
    throw new Error("grok is launched by runtime/session.ts through grok/ (binary resolution and plugin dirs)");
  },
  envAllow: AGENT_ENV_ALLOW_LIST,
  envPrefixes: AGENT_ENV_ALLOW_PREFIXES,
  envForced: AGENT_ENV_FORCED,
  chooseAuth: chooseAuthMethod,
  waitsForMcpInitialized: true,
  projection: "object-with-unions",
  modelToolName: (server, tool) => `${server}__${tool}`,
  skills: "plugin-dir",
  rulesDelivery: "grok-meta",
  quirks: [
    "MCP tools are reached through use_tool {tool_name, tool_input}, not listed to the model directly.",
    "Reports MCP readiness with the _x.ai/mcp_initialized notification.",
  ],
};
