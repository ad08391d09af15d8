/*
 * Notification config: the `notify` section of a grok-seat config file, checked before anything runs.
 * Owns: parsing `{"targets": {NAME: {type, url, secret | secretEnv, command, events}}, "default": [NAME…]}` into
 *   NotifyTarget values, and choosing the targets of one run (`--notify NAME…`, `--notify none`, or the default).
 * Does not own: reading the file (cli/config.ts) or sending (notify/deliver.ts).
 * Invariant: a malformed section is NOTIFY_CONFIG_INVALID naming the target and the key; a target's secret is
 *   registered as a secret value the moment it is read, so no output can show it.
 */
import { SeatError } from "../errors.js";
import { registerSecrets } from "../internal/redact.js";
import { isNotifyEventName, NOTIFY_EVENTS, type NotifyEventName } from "./events.js";

/** The kinds of target; each is a plain HTTP POST or a local program. */
export const NOTIFY_TARGET_TYPES = ["webhook", "ntfy", "slack", "command"] as const;

/** One configured target. */
export type NotifyTarget =
  | {
      name: string;
      type: "webhook";
      url: string;
      secret: string;
      events: readonly NotifyEventName[];
      /** The environment variable `secretEnv` names (its name only), when the secret comes from there. */
      secretEnv?: string;
      /** Set when `secretEnv` named a variable this environment lacks: the target cannot be chosen. */
      unsetSecretEnv?: string;
    }
  | { name: string; type: "ntfy" | "slack"; url: string; events: readonly NotifyEventName[] }
  | { name: string; type: "command"; command: readonly string[]; events: readonly NotifyEventName[] };

/** The parsed section. */
export interface NotifyConfig {
  targets: Record<string, NotifyTarget>;
  default: readonly string[];
}

const NAME = /^[A-Za-z0-9._-]{1,64}$/;

function invalid(where: string, detail: string): SeatError {
  return new SeatError(
    "NOTIFY_CONFIG_INVALID",
    `Notification config ${where}: ${detail}. Fix the config file's "notify" section; docs/notifications.md lists the keys.`,
    { context: { where } },
  );
}

function record(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function httpUrl(value: unknown, where: string): string {
  if (typeof value !== "string") throw invalid(where, `"url" must be a string`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid(where, `"url" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(where, `"url" must be http:// or https://, got ${url.protocol}`);
  // fetch refuses a URL with credentials, so such a target could never deliver; and a password there is not a secret we mask.
  if (url.username !== "" || url.password !== "")
    throw invalid(
      where,
      `"url" must not carry a user name or password (user:password@host); a webhook signs with "secret" or "secretEnv"`,
    );
  return url.href;
}

function events(value: unknown, where: string): readonly NotifyEventName[] {
  if (value === undefined) return NOTIFY_EVENTS;
  if (!Array.isArray(value) || value.length === 0)
    throw invalid(where, `"events" must be a non-empty list of ${NOTIFY_EVENTS.join(", ")}`);
  for (const name of value)
    if (!isNotifyEventName(name))
      throw invalid(where, `unknown event ${JSON.stringify(name)} (known: ${NOTIFY_EVENTS.join(", ")})`);
  return [...new Set(value as NotifyEventName[])];
}

const KEYS: Record<NotifyTarget["type"], readonly string[]> = {
  webhook: ["type", "url", "secret", "secretEnv", "events"],
  ntfy: ["type", "url", "events"],
  slack: ["type", "url", "events"],
  command: ["type", "command", "events"],
};

/** The webhook's secret, or the name of the unset variable `secretEnv` names (refused only when the target is chosen). */
function webhookSecret(
  raw: Record<string, unknown>,
  where: string,
  env: NodeJS.ProcessEnv,
): { secret: string } | { unset: string } {
  if (raw.secret !== undefined && raw.secretEnv !== undefined)
    throw invalid(where, `give "secret" or "secretEnv", not both`);
  let secret: unknown = raw.secret;
  if (raw.secretEnv !== undefined) {
    if (typeof raw.secretEnv !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(raw.secretEnv))
      throw invalid(where, `"secretEnv" must name an environment variable`);
    secret = env[raw.secretEnv];
    if (secret === undefined || secret === "") return { unset: raw.secretEnv };
  }
  if (typeof secret !== "string" || secret.length < 16)
    throw invalid(where, `a webhook needs "secret" (or "secretEnv") of at least 16 characters to sign its body`);
  return { secret };
}

/** Parses one target. */
function parseTarget(name: string, raw: unknown, env: NodeJS.ProcessEnv): NotifyTarget {
  const where = `target "${name}"`;
  if (!NAME.test(name)) throw invalid(where, "a target name is 1-64 of [A-Za-z0-9._-]");
  if (!record(raw)) throw invalid(where, "must be an object");
  const type = raw.type;
  if (typeof type !== "string" || !(NOTIFY_TARGET_TYPES as readonly string[]).includes(type))
    throw invalid(where, `"type" must be one of ${NOTIFY_TARGET_TYPES.join(", ")}`);
  const kind = type as NotifyTarget["type"];
  for (const key of Object.keys(raw))
    if (!KEYS[kind].includes(key))
      throw invalid(where, `unknown key "${key}" for a ${kind} target (known: ${KEYS[kind].join(", ")})`);
  const chosen = events(raw.events, where);
  if (kind === "command") {
    const command = raw.command;
    if (
      !Array.isArray(command) ||
      command.length === 0 ||
      !command.every((part) => typeof part === "string" && part !== "" && !part.includes("\0"))
    ) {
      throw invalid(where, `"command" must be a non-empty list of strings (program, then arguments; no shell)`);
    }
    return { name, type: kind, command: [...command] as string[], events: chosen };
  }
  const url = httpUrl(raw.url, where);
  if (kind === "webhook") {
    const found = webhookSecret(raw, where, env);
    const from = typeof raw.secretEnv === "string" ? { secretEnv: raw.secretEnv } : {};
    if ("unset" in found)
      return { name, type: kind, url, secret: "", events: chosen, ...from, unsetSecretEnv: found.unset };
    const secretName = `GROK_SEAT_NOTIFY_SECRET_${name.replace(/[^A-Za-z0-9]/g, "_").toUpperCase()}`;
    registerSecrets({ [secretName]: found.secret }, [secretName]);
    return { name, type: kind, url, secret: found.secret, events: chosen, ...from };
  }
  return { name, type: kind, url, events: chosen };
}

/** Parses a config file's `notify` value; throws NOTIFY_CONFIG_INVALID. */
export function parseNotifyConfig(raw: unknown, env: NodeJS.ProcessEnv = process.env): NotifyConfig {
  if (!record(raw)) throw invalid("section", `"notify" must be an object with "targets" (and optionally "default")`);
  for (const key of Object.keys(raw))
    if (key !== "targets" && key !== "default")
      throw invalid("section", `unknown key "${key}" (known: targets, default)`);
  const rawTargets = raw.targets ?? {};
  if (!record(rawTargets)) throw invalid("section", `"targets" must be an object of NAME → target`);
  const targets: Record<string, NotifyTarget> = {};
  for (const [name, target] of Object.entries(rawTargets)) targets[name] = parseTarget(name, target, env);
  const chosen = raw.default ?? [];
  if (!Array.isArray(chosen) || !chosen.every((n) => typeof n === "string"))
    throw invalid("section", `"default" must be a list of target names`);
  for (const name of chosen)
    if (targets[name] === undefined) throw invalid("section", `"default" names "${name}", which is not a target`);
  return { targets, default: [...new Set(chosen as string[])] };
}

/**
 * The targets of one run: `requested` from `--notify NAME` (repeatable; `none` alone means none), or the
 * config's default when nothing was requested. An unknown name is NOTIFY_TARGET_UNKNOWN.
 */
export function chooseTargets(
  config: NotifyConfig | undefined,
  requested: readonly string[] | undefined,
): NotifyTarget[] {
  const names = requested === undefined || requested.length === 0 ? (config?.default ?? []) : requested;
  if (names.includes("none")) {
    if (names.length > 1)
      throw new SeatError(
        "NOTIFY_TARGET_UNKNOWN",
        `--notify none cannot be combined with other targets (${names.filter((n) => n !== "none").join(", ")}).`,
        { context: { requested: [...names] } },
      );
    return [];
  }
  return [...new Set(names)].map((name) => {
    const target = config?.targets[name];
    if (target === undefined) {
      const known = Object.keys(config?.targets ?? {});
      throw new SeatError(
        "NOTIFY_TARGET_UNKNOWN",
        `No notification target "${name}" is configured (${known.length ? `known: ${known.join(", ")}` : "the config has no notify targets"}).`,
        { context: { name, known } },
      );
    }
    if (target.type === "webhook" && target.unsetSecretEnv !== undefined) {
      throw invalid(
        `target "${name}"`,
        `its secret comes from the environment variable ${target.unsetSecretEnv} ("secretEnv"), which is not set`,
      );
    }
    return target;
  });
}
