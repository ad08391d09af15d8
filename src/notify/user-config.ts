/*
 * User notify config: the `notify` section of the person's own config file, read by a process that sends on their
 *   behalf later (a visible seat's controller), and the targets a list of recorded names stands for there.
 * Owns: reading that one file's section (never a project file: a cloned repository must not choose a program to
 *   run or a URL that receives approval text) and resolving recorded target names against it.
 * Does not own: the CLI's own config layering and its CLI_CONFIG_INVALID wording (cli/config.ts), choosing names
 *   from `--notify` (notify-config/config.ts chooseTargets).
 * Invariant: only names are recorded anywhere; a URL, command or secret comes from this file (and the secret from
 *   this process's environment) at the time of sending. A name the file no longer has is a problem line, never a throw.
 */
import { existsSync, readFileSync } from "node:fs";
import { SeatError, messageOf } from "../errors.js";
import { userConfigPath } from "../internal/user-config-path.js";
import { parseNotifyConfig, type NotifyConfig, type NotifyTarget } from "../notify-config/index.js";

/** The user config file's `notify` section (undefined when the file or the section is absent); NOTIFY_CONFIG_INVALID when malformed. */
export function loadUserNotifyConfig(env: NodeJS.ProcessEnv = process.env): NotifyConfig | undefined {
  const file = userConfigPath(env);
  if (!existsSync(file)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new SeatError(
      "NOTIFY_CONFIG_INVALID",
      `The config file ${file} is not readable JSON (${messageOf(error)}).`,
      {
        context: { file },
      },
    );
  }
  const section = (data as Record<string, unknown> | null)?.notify;
  return section === undefined ? undefined : parseNotifyConfig(section, env);
}

/** The environment variables the targets `names` take their secrets from (`secretEnv`), names only. */
export function secretEnvNamesOf(config: NotifyConfig | undefined, names: readonly string[]): string[] {
  const out = new Set<string>();
  for (const name of names) {
    const target = config?.targets[name];
    if (target?.type === "webhook" && target.secretEnv !== undefined) out.add(target.secretEnv);
  }
  return [...out];
}

/** The targets `names` stand for in `config`; each name it lacks (or whose secret is unset) is a problem line. */
export function resolveTargetNames(
  config: NotifyConfig | undefined,
  names: readonly string[],
): { targets: NotifyTarget[]; problems: string[] } {
  const targets: NotifyTarget[] = [];
  const problems: string[] = [];
  for (const name of new Set(names)) {
    const target = config?.targets[name];
    if (target === undefined)
      problems.push(`notification target "${name}" is no longer in the user config (NOTIFY_TARGET_UNKNOWN); not told`);
    else if (target.type === "webhook" && target.unsetSecretEnv !== undefined)
      problems.push(
        `notification target "${name}" needs ${target.unsetSecretEnv}, unset here (NOTIFY_CONFIG_INVALID); not told`,
      );
    else targets.push(target);
  }
  return { targets, problems };
}
