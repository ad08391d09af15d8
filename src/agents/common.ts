/*
 * Shared profile pieces: the base env allow-list every agent gets and the env builder that applies a profile.
 * Owns: BASE_ENV_ALLOW, BASE_ENV_PREFIXES, buildProfileEnv() and throwawayHomeEnv().
 * Does not own: any one agent's variables (each profile lists its own).
 * Invariant: the child env is built from an explicit allow-list, never copied wholesale; forced values win last.
 */
import type { AgentProfile } from "./profile.js";

/** Variables every agent may receive (identity, locale, paths). */
export const BASE_ENV_ALLOW: readonly string[] = Object.freeze([
  "HOME",
  "PATH",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "TZ",
  "TMPDIR",
]);

/** Prefixes every agent may receive (locale and XDG base directories). */
export const BASE_ENV_PREFIXES: readonly string[] = Object.freeze(["LC_", "XDG_"]);

/** True when `name` passes the profile's allow-list (exact name or prefix). */
export function profileAllows(profile: Pick<AgentProfile, "envAllow" | "envPrefixes">, name: string): boolean {
  return (
    profile.envAllow.includes(name) || profile.envPrefixes.some((p) => name.startsWith(p) && name.length > p.length)
  );
}

/**
 * The agent's env: the allow-listed part of `source`, then `extra` verbatim (the caller's explicit choice;
 * `undefined` removes), then the profile's forced values.
 */
export function buildProfileEnv(
  profile: Pick<AgentProfile, "envAllow" | "envPrefixes" | "envForced">,
  source: NodeJS.ProcessEnv,
  extra: Record<string, string | undefined> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && profileAllows(profile, name)) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return { ...env, ...profile.envForced };
}

/** True when this process runs as root (some agents refuse their unattended modes as root without a flag). */
export function runningAsRoot(): boolean {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Variables that point an agent at a config or state dir of the user's, dropped by throwawayHomeEnv. */
const CONFIG_DIR_VARS = [
  "CODEX_HOME",
  "CLAUDE_CONFIG_DIR",
  "GEMINI_CLI_HOME",
  "OPENCODE_CONFIG",
  "OPENCODE_CONFIG_DIR",
  "GROK_HOME",
];

/**
 * `env` with HOME and the XDG base dirs moved into `home` (a throwaway dir) and the agents' own config-dir
 * variables removed, so an agent started only to be probed creates nothing under the user's real HOME.
 */
export function throwawayHomeEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {
    ...env,
    HOME: home,
    XDG_CONFIG_HOME: `${home}/.config`,
    XDG_DATA_HOME: `${home}/.local/share`,
    XDG_CACHE_HOME: `${home}/.cache`,
    XDG_STATE_HOME: `${home}/.local/state`,
  };
  for (const name of CONFIG_DIR_VARS) delete out[name];
  return out;
}
