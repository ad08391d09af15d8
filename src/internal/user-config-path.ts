/*
 * User config path: where a person's own grok-seat config file lives.
 * Owns: $XDG_CONFIG_HOME/grok-seat/config.json (default ~/.config/grok-seat/config.json).
 * Does not own: reading or checking the file (cli/config.ts for the CLI's keys, notify/user-config.ts for the
 *   `notify` section a seat's controller reads).
 */
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** The user config file: $XDG_CONFIG_HOME/grok-seat/config.json, default ~/.config/grok-seat/config.json. */
export function userConfigPath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(env.HOME || homedir(), ".config");
  return join(base, "grok-seat", "config.json");
}
