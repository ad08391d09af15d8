/*
 * `seat config [--json]`: the effective value of every config key and where it came from
 *   (flag, env, project .grok-seat.json, user config.json, default).
 * Owns: showing the layers. Does not own: loading or validating them (config.ts).
 */
import { redactText, registerUrlPassword } from "../../internal/redact.js";
import { CONFIG_KEYS, loadConfig, type ConfigEntry } from "../config.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

/**
 * A value with any known secret masked by the one redaction point. A Redis URL in a config file may carry a
 * password: it is registered as the Redis password first, so the URL is shown with it masked.
 */
function shown(entry: ConfigEntry): string | null {
  if (entry.value === null) return null;
  // redis/connection.ts's REDIS_PASSWORD_ENV, named here so `seat config` does not load the Redis client.
  if (entry.key === "redis") registerUrlPassword(entry.value, "GROK_SEAT_REDIS_PASSWORD");
  return redactText(entry.value);
}

export const configCommand: Command = {
  name: "config",
  help: `Usage: seat config [--json] [--agent NAME] [--model ID] [--policy FILE] [--redis URL] [--prices FILE]

Shows each setting a config file can default, its effective value and where it came from:
flag > env > project > user > default.

  user file      $XDG_CONFIG_HOME/grok-seat/config.json (default ~/.config/grok-seat/config.json)
  project file   the nearest .grok-seat.json in the current directory or a parent
  keys           agent, model, policy (a permissions file), agentsDir, redis (a redis:// URL),
                 prices (a grok-seat.prices.v1 price file for seat run and seat usage),
                 redisCa, redisCert, redisKey (rediss:// CA, client certificate and key files);
                 relative paths are relative to the file that names them
  env            GROK_SEAT_AGENTS_DIR (agentsDir), GROK_SEAT_REDIS_URL (redis), GROK_SEAT_REDIS_CA (redisCa),
                 GROK_SEAT_REDIS_CERT (redisCert), GROK_SEAT_REDIS_KEY (redisKey)
  --json         one {"type":"config","key","value","source","file"} object per key
  --agent/--model/--policy/--redis/--prices   show what these flags would make of the layers

A malformed file, an unknown key or a value of the wrong type exits 2 naming the file and the key.

Examples:
  seat config
  seat config --json --model grok-4.6
  echo '{"agent":"codex","model":"gpt-5"}' > .grok-seat.json   # this project's defaults`,
  async run(argv) {
    const args = parseFlags("config", argv, {
      json: { type: "boolean" },
      agent: { type: "string" },
      model: { type: "string" },
      policy: { type: "string" },
      redis: { type: "string" },
      prices: { type: "string" },
    });
    const config = loadConfig();
    const entries = CONFIG_KEYS.map((key): ConfigEntry => {
      const flag = key === "agentsDir" ? undefined : stringFlag(args, key);
      return flag !== undefined ? { key, value: flag, source: "flag" } : config.entries[key];
    });
    if (args.values.json === true) {
      for (const e of entries)
        writeJson({
          type: "config",
          key: e.key,
          value: shown(e),
          source: e.source,
          ...(e.file ? { file: e.file } : {}),
        });
      return EXIT.ok;
    }
    const lines = entries.map(
      (e) => `${e.key.padEnd(10)} ${(shown(e) ?? "(unset)").padEnd(32)} ${e.source}${e.file ? ` ${e.file}` : ""}`,
    );
    lines.push(
      "",
      `user file:    ${config.userFile}`,
      `project file: ${config.projectFile ?? "(none found from here upward)"}`,
    );
    process.stdout.write(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
};
