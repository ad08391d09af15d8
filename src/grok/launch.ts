/*
 * Grok launch: the argv and the environment for `grok agent --no-leader … stdio`.
 * Owns: flag order (top-level flags before `agent`, agent flags before the mode) and the env allow-list.
 * Does not own: spawning (process.ts) or choosing the model (models.ts normalises a selection).
 * Invariant: the child env is built from an explicit allow-list, never copied from process.env wholesale;
 *   auto-update and telemetry are always off; its secret values are registered for redaction.
 */
import { registerSecrets } from "../internal/redact.js";

/** Inputs for buildAgentArgv; `model` is a bare grok model id (see normalizeModelSelection). */
export interface AgentArgvOptions {
  binary: string;
  model?: string;
  pluginDirs?: readonly string[];
}

/** Builds `[binary, "--no-auto-update", "agent", "--no-leader", --plugin-dir…, -m model?, "stdio"]`. */
export function buildAgentArgv(options: AgentArgvOptions): string[] {
  const { binary, model, pluginDirs = [] } = options;
  return [
    binary,
    "--no-auto-update",
    "agent",
    "--no-leader",
    ...pluginDirs.flatMap((d) => ["--plugin-dir", d]),
    ...(model ? ["-m", model] : []),
    "stdio",
  ];
}

/** Variable names copied from the source env when present (exact names). */
export const AGENT_ENV_ALLOW_LIST: readonly string[] = Object.freeze([
  "HOME",
  "PATH",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "TZ",
  "TMPDIR",
  "GROK_HOME",
  "XAI_API_KEY",
  "GROK_API_KEY",
  "GROK_CODE_XAI_API_KEY",
  "GROK_XAI_API_BASE_URL",
  "GROK_MODELS_BASE_URL",
  "GROK_MODELS_LIST_URL",
  "GROK_CLI_CHAT_PROXY_BASE_URL",
  "GROK_CONFIG",
  "GROK_CONFIG_PATH",
  "GROK_LEADER_LOG",
]);

/** Variable-name prefixes copied from the source env (locale and XDG base directories). */
export const AGENT_ENV_ALLOW_PREFIXES: readonly string[] = Object.freeze(["LC_", "XDG_"]);

/** Always set in the child env, overriding the source. */
export const AGENT_ENV_FORCED: Readonly<Record<string, string>> = Object.freeze({
  GROK_DISABLE_AUTOUPDATER: "1",
  GROK_TELEMETRY_ENABLED: "0",
});

/** True when `name` passes the allow-list (exact name or allowed prefix). */
export function isAllowedAgentEnvName(name: string): boolean {
  return (
    AGENT_ENV_ALLOW_LIST.includes(name) ||
    AGENT_ENV_ALLOW_PREFIXES.some((p) => name.startsWith(p) && name.length > p.length)
  );
}

/**
 * Builds the child env from the allow-list of `source` plus `extra` (taken verbatim, caller's explicit choice),
 * then forces auto-update and telemetry off. `undefined` values in `extra` remove a variable.
 */
export function buildAgentEnv(
  source: NodeJS.ProcessEnv = process.env,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && isAllowedAgentEnvName(name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return registerSecrets({ ...env, ...AGENT_ENV_FORCED });
}
