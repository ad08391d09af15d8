/*
 * Gemini profile: `@google/gemini-cli` (`gemini --acp`).
 * Owns: how it is launched (host Node + its bundle), its env and auth.
 * Invariant: GEMINI_CLI_NO_RELAUNCH keeps it from re-executing itself in a child; it still ignores SIGTERM,
 *   so dispose relies on the process-group SIGKILL escalation. MCP servers load only in a trusted folder.
 */
import { join } from "node:path";
import { BASE_ENV_ALLOW, BASE_ENV_PREFIXES } from "./common.js";
import { requireInstalledFile } from "./install.js";
import type { AgentProfile, PinnedPackage } from "./profile.js";

const PIN: PinnedPackage = { dir: "gemini", package: "@google/gemini-cli", version: "0.61.0", bin: "gemini" };

/** The gemini profile. */
export const geminiProfile: AgentProfile = {
  name: "gemini",
  title: "Gemini CLI (gemini --acp)",
  pinned: PIN,
  launchArgv: (ctx) => [
    process.execPath,
    requireInstalledFile("gemini", ctx, PIN, join("bundle", "gemini.js")),
    "--acp",
  ],
  envAllow: [...BASE_ENV_ALLOW, "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_MODEL"],
  envPrefixes: BASE_ENV_PREFIXES,
  keyVars: ["GEMINI_API_KEY"],
  envForced: { GEMINI_CLI_NO_RELAUNCH: "true" },
  chooseAuth: (advertised, _default, env) => {
    const ids = new Set(advertised.map((m) => m.id));
    if (env.GEMINI_API_KEY && ids.has("gemini-api-key"))
      return { methodId: "gemini-api-key", why: "GEMINI_API_KEY is set" };
    return {
      methodId: undefined,
      why: `not authenticated: set GEMINI_API_KEY (gemini offered: ${[...ids].join(", ") || "none"})`,
    };
  },
  waitsForMcpInitialized: false,
  projection: "object-with-unions",
  modelToolName: (server, tool) => `mcp_${server}_${tool}`,
  skills: "rules",
  // GEMINI.md in a private dir that a session-scoped system settings file adds as an include directory whose
  // memory files Gemini loads (context.loadMemoryFromIncludeDirectories); the model through --model.
  rulesDelivery: "rules-file",
  rulesFileName: "GEMINI.md",
  sessionLaunch: ({ model, rulesDir, rulesFile }) => {
    const args = model ? ["--model", model] : [];
    if (!rulesFile || !rulesDir) return { args };
    return {
      args: [...args, "--include-directories", rulesDir],
      env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: join(rulesDir, "system-settings.json") },
      files: { "system-settings.json": JSON.stringify({ context: { loadMemoryFromIncludeDirectories: true } }) },
    };
  },
  // Gemini names a chat file by the UTC minute its recording starts and the session id's first 8 characters, and
  // session/load starts a fresh recording of the loaded id before it reads the old one.
  attachRefused:
    "Gemini CLI 0.61.0 loses a session it loads: a load in the session's first UTC minute resets it, and a later one leaves an empty chat file by which Gemini's next start deletes it",
  quirks: [
    "Ignores SIGTERM; dispose escalates to SIGKILL of the process group.",
    "Ignores session MCP servers unless the cwd is a trusted folder.",
    "Sends a permission request with no preceding tool_call.",
  ],
};
