/*
 * CLI config: the defaults a user sets once — a user file and a project file — under the flags.
 * Owns: finding and validating $XDG_CONFIG_HOME/grok-seat/config.json (default ~/.config/grok-seat/config.json)
 *   and the nearest .grok-seat.json from the current directory upward; the precedence
 *   flag > env > project > user > default; the flags a config adds to a verb's argv.
 * Does not own: what the values mean (the verbs), parsing flags (args.ts).
 * Invariant: a malformed file is CLI_CONFIG_INVALID naming the file and the key, before anything runs;
 *   relative paths in a file are relative to that file's directory.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, parse, resolve } from "node:path";
import { SeatError, isSeatError, messageOf } from "../errors.js";
// The single file, not the front door: reading the config does not load the notification delivery.
import { parseNotifyConfig, type NotifyConfig } from "../notify-config/index.js";
import { userConfigPath } from "../internal/user-config-path.js";

/** Every key a config file may set. */
export const CONFIG_KEYS = [
  "agent",
  "model",
  "policy",
  "agentsDir",
  "redis",
  "prices",
  "redisCa",
  "redisCert",
  "redisKey",
] as const;

/** One config key. */
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Where an effective value came from. */
export type ConfigSource = "flag" | "env" | "project" | "user" | "default";

/** One key's effective value and its origin (`file` for project/user). */
export interface ConfigEntry {
  key: ConfigKey;
  value: string | null;
  source: ConfigSource;
  file?: string;
}

/** The environment variable that sets a key, where there is one (it beats both files). */
const ENV_OF: Partial<Record<ConfigKey, string>> = {
  agentsDir: "GROK_SEAT_AGENTS_DIR",
  redis: "GROK_SEAT_REDIS_URL",
  redisCa: "GROK_SEAT_REDIS_CA",
  redisCert: "GROK_SEAT_REDIS_CERT",
  redisKey: "GROK_SEAT_REDIS_KEY",
};

/** Keys whose value is a path: resolved against the directory of the file that names it. */
const PATH_KEYS: readonly ConfigKey[] = ["policy", "agentsDir", "prices", "redisCa", "redisCert", "redisKey"];

export { userConfigPath };

/** The nearest .grok-seat.json in `cwd` or a parent directory, if any. */
export function projectConfigPath(cwd: string = process.cwd()): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, ".grok-seat.json");
    if (existsSync(candidate)) return candidate;
    if (dir === parse(dir).root) return undefined;
    dir = dirname(dir);
  }
}

function invalid(file: string, key: string | undefined, detail: string): SeatError {
  const where = key === undefined ? file : `${file}, key "${key}"`;
  return new SeatError(
    "CLI_CONFIG_INVALID",
    `Config file ${where}: ${detail}. Fix or remove it; \`seat config\` shows the effective settings.`,
    { context: { file, ...(key !== undefined ? { key } : {}) } },
  );
}

/**
 * Reads and checks one config file; throws CLI_CONFIG_INVALID naming the file and the key. A project file (one a
 * cloned repository may carry) may not hold a `notify` section: it could name a program to run or a URL that
 * receives approval text, so targets come only from the user's own file.
 */
export function readConfigFile(file: string, kind: "user" | "project" = "user"): Partial<Record<ConfigKey, string>> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw invalid(file, undefined, `not readable JSON (${messageOf(error)})`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    throw invalid(file, undefined, "the file must hold one JSON object");
  const out: Partial<Record<ConfigKey, string>> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === "notify") {
      if (kind === "project")
        throw invalid(
          file,
          key,
          "notification targets may be set only in your user config file (a project file could name a program to run or a URL that receives approval text); move the section there",
        );
      readNotifySection(file, value);
      continue;
    }
    if (!(CONFIG_KEYS as readonly string[]).includes(key))
      throw invalid(file, key, `unknown key (known: ${[...CONFIG_KEYS, "notify"].join(", ")})`);
    if (typeof value !== "string" || value.trim() === "")
      throw invalid(file, key, `must be a non-empty string, got ${JSON.stringify(value)}`);
    if (key === "redis" && !/^rediss?(\+sentinel)?:\/\//.test(value))
      throw invalid(file, key, "must be a redis://, rediss:// or redis+sentinel:// URL");
    out[key as ConfigKey] = PATH_KEYS.includes(key as ConfigKey) ? resolve(dirname(file), value) : value;
  }
  return out;
}

/** A file's `notify` section, checked (CLI_CONFIG_INVALID naming the file, key "notify" and the problem). */
function readNotifySection(file: string, value: unknown, env: NodeJS.ProcessEnv = process.env): NotifyConfig {
  try {
    return parseNotifyConfig(value, env);
  } catch (error) {
    if (isSeatError(error) && error.code === "NOTIFY_CONFIG_INVALID") throw invalid(file, "notify", error.message);
    throw error;
  }
}

/**
 * The notification targets of this invocation: the user config file's `notify` section, else none. A project
 * file's is refused (readConfigFile): a cloned repository must not choose programs or receivers.
 */
export function loadNotifyConfig(options: { env?: NodeJS.ProcessEnv } = {}): NotifyConfig | undefined {
  const env = options.env ?? process.env;
  for (const file of [userConfigPath(env)]) {
    if (!existsSync(file)) continue;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw invalid(file, undefined, `not readable JSON (${messageOf(error)})`);
    }
    const section = (data as Record<string, unknown> | null)?.notify;
    if (section !== undefined) return readNotifySection(file, section, env);
  }
  return undefined;
}

/** The layered config of one invocation: each key's value and source, without flags (see withFlag). */
export interface LoadedConfig {
  entries: Record<ConfigKey, ConfigEntry>;
  userFile: string;
  projectFile: string | undefined;
}

/** Loads both files (missing ones are fine) and the env; flags are layered on by the verb (withConfigDefaults). */
export function loadConfig(options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const userFile = userConfigPath(env);
  const projectFile = projectConfigPath(options.cwd);
  const user = existsSync(userFile) ? readConfigFile(userFile) : {};
  const project = projectFile ? readConfigFile(projectFile, "project") : {};
  const entries = {} as Record<ConfigKey, ConfigEntry>;
  for (const key of CONFIG_KEYS) {
    const envName = ENV_OF[key];
    if (envName && env[envName]) entries[key] = { key, value: env[envName]!, source: "env" };
    else if (project[key] !== undefined)
      entries[key] = { key, value: project[key]!, source: "project", file: projectFile! };
    else if (user[key] !== undefined) entries[key] = { key, value: user[key]!, source: "user", file: userFile };
    else entries[key] = { key, value: null, source: "default" };
  }
  return { entries, userFile, projectFile };
}

/** The TLS files of a rediss:// fleet, as the fleet verbs' flags. */
const REDIS_TLS_FLAGS_OF: Partial<Record<ConfigKey, string>> = {
  redisCa: "--redis-ca",
  redisCert: "--redis-cert",
  redisKey: "--redis-key",
};

/** The flag of each key a verb takes, by verb. */
const FLAG_OF: Record<string, Partial<Record<ConfigKey, string>>> = {
  run: { agent: "--agent", model: "--model", policy: "--policy", prices: "--prices" },
  submit: { agent: "--agent", model: "--model", policy: "--policy", redis: "--redis", ...REDIS_TLS_FLAGS_OF },
  worker: { redis: "--redis", ...REDIS_TLS_FLAGS_OF },
  jobs: { redis: "--redis", ...REDIS_TLS_FLAGS_OF },
  usage: { prices: "--prices" },
  sessions: { prices: "--prices" },
};

/** True when `argv` (before any `--`) gives `flag`, as `--flag V` or `--flag=V`. */
export function hasFlag(argv: readonly string[], flag: string): boolean {
  for (const arg of argv) {
    if (arg === "--") return false;
    if (arg === flag || arg.startsWith(`${flag}=`)) return true;
  }
  return false;
}

/**
 * The verb's argv with the config's defaults put in front as flags, for each key the verb takes and the
 * command line does not give (so a flag always wins). Values from the env are left to the verb (it reads them).
 */
export function withConfigDefaults(verb: string, argv: readonly string[], config: LoadedConfig): string[] {
  const flags = FLAG_OF[verb] ?? {};
  const added: string[] = [];
  for (const [key, flag] of Object.entries(flags) as [ConfigKey, string][]) {
    const entry = config.entries[key];
    if (entry.value === null || entry.source === "env" || hasFlag(argv, flag)) continue;
    // --agent-command names its own agent: a configured agent must not contradict it.
    if (key === "agent" && hasFlag(argv, "--agent-command")) continue;
    added.push(`${flag}=${entry.value}`);
  }
  return [...added, ...argv];
}

/** Puts the config's agentsDir where the agents code looks for it (GROK_SEAT_AGENTS_DIR), unless the env set it. */
export function applyConfigEnv(config: LoadedConfig, env: NodeJS.ProcessEnv = process.env): void {
  const dir = config.entries.agentsDir;
  if (dir.value !== null && dir.source !== "env") env.GROK_SEAT_AGENTS_DIR = dir.value;
}
