/*
 * CLI arguments: strict parsing of one verb's flags with node's parseArgs, turned into clear usage errors.
 * Owns: flag parsing helpers (strings, positive numbers, CSV lists).
 * Does not own: what the flags mean (commands/).
 * Invariant: an unknown flag, a missing value or a malformed number is a CLI_USAGE error naming it; nothing runs.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { SeatError, messageOf } from "../errors.js";

/** Flag definitions in parseArgs' format. */
export type FlagSpec = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flags and positionals of one verb. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses argv strictly against `spec`; throws CLI_USAGE on anything unexpected, naming the flag in our words. */
export function parseFlags(verb: string, argv: string[], spec: FlagSpec): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (error) {
    // parseArgs' own text quotes unevenly and talks about its API; we say which flag and what to do instead.
    throw new SeatError(
      "CLI_USAGE",
      `seat ${verb}: ${flagProblem(argv, spec, verb) ?? `the flags could not be read (${messageOf(error)})`}. See \`seat ${verb} --help\`.`,
      { cause: error },
    );
  }
}

/** The first flag of `argv` that `spec` refuses, described for a person; undefined when none is found. */
export function flagProblem(argv: readonly string[], spec: FlagSpec, verb?: string): string | undefined {
  const byShort = new Map(Object.entries(spec).flatMap(([name, o]) => (o.short ? [[o.short, name] as const] : [])));
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") return undefined;
    if (!arg.startsWith("-") || arg === "-") continue;
    let name: string | undefined;
    let shown: string;
    let inline = false;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      shown = `--${name}`;
      inline = eq !== -1;
      if (!(name in spec)) return `unknown flag ${shown}${unknownHint(verb, shown)}`;
    } else {
      shown = `-${arg[1]}`;
      name = byShort.get(arg[1]!);
      if (name === undefined) return `unknown flag ${shown}${unknownHint(verb, shown)}`;
      inline = arg.length > 2;
    }
    const option = spec[name]!;
    if (option.type === "boolean") {
      if (inline) return `${shown} is a switch and takes no value`;
      continue;
    }
    if (inline) continue;
    const next = argv[i + 1];
    if (next === undefined) return `${shown} needs a value`;
    if (next.startsWith("-") && next !== "-")
      return `${shown} needs a value, got the flag "${next}" (write ${shown}=VALUE for a value that starts with "-")`;
    i += 1;
  }
  return undefined;
}

/** Verbs whose positionals are a prompt or a brief: an unknown flag there may be text meant for the agent. */
const PROMPT_VERBS = new Set(["run", "submit", "send", "hire", "compare"]);

function unknownHint(verb: string | undefined, flag: string): string {
  if (verb !== undefined && !PROMPT_VERBS.has(verb)) return "";
  return ` (a prompt that starts with "-" goes after "--", e.g. seat ${verb ?? "run"} -- "${flag} …")`;
}

/** Reads a string flag. */
export function stringFlag(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Reads a non-negative number of seconds and returns milliseconds; 0 means off. */
export function secondsFlag(verb: string, args: ParsedArgs, name: string, fallbackMs?: number): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return fallbackMs;
  const seconds = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !Number.isFinite(seconds)) {
    throw new SeatError("CLI_USAGE", `seat ${verb}: --${name} takes a number of seconds (0 = off), got "${raw}".`);
  }
  return Math.round(seconds * 1000);
}

/** What rewriteFlag puts in place of one `--NAME`: `--NAME=<value>`, and whether the word after it was the value. */
export interface FlagRewrite {
  value: string;
  consumesNext: boolean;
}

/**
 * Rewrites every `--NAME` (NAME one of `names`, written with its dashes) that comes before a lone `--`:
 * `decide(flag, next)` sees the flag and the word after it (undefined when last) and returns what stands in its
 * place (`--NAME=<value>`, swallowing `next` when `consumesNext`), or null to keep the flag as it is. It may
 * throw a usage error. The one loop behind optional flag values (parseArgs has none) and values that start
 * with "-".
 */
export function rewriteFlag(
  argv: readonly string[],
  names: readonly string[],
  decide: (flag: string, next: string | undefined) => FlagRewrite | null,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    const rewrite = names.includes(arg) ? decide(arg, argv[i + 1]) : null;
    if (rewrite === null) {
      out.push(arg);
      continue;
    }
    out.push(`${arg}=${rewrite.value}`);
    if (rewrite.consumesNext) i += 1;
  }
  return out;
}

/**
 * Gives a flag an optional value: `--NAME` alone (last, or before another flag or `--`) becomes
 * `--NAME=<fallback>`, `--NAME <digits>` becomes `--NAME=<digits>` (parseArgs has no optional values). Any other
 * word right after `--NAME` is CLI_USAGE: it is neither silently the count nor silently prompt text.
 */
export function optionalNumberFlag(verb: string, argv: string[], name: string, fallback: number): string[] {
  return rewriteFlag(argv, [`--${name}`], (_flag, next) => {
    if (next === undefined || next.startsWith("-")) return { value: String(fallback), consumesNext: false };
    if (/^\d+$/.test(next)) return { value: next, consumesNext: true };
    throw new SeatError(
      "CLI_USAGE",
      `seat ${verb}: --${name} takes an optional whole number, got "${next}". Write --${name}=N, or put the prompt before --${name} or after "--".`,
    );
  });
}

/** Reads a whole number ≥ 1 from a string flag; undefined when the flag is absent. */
export function countFlag(verb: string, args: ParsedArgs, name: string): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1)
    throw new SeatError("CLI_USAGE", `seat ${verb}: --${name} takes a whole number of at least 1, got "${raw}".`);
  return Number(raw);
}

/** Reads a comma-separated list flag (repeatable). */
export function listFlag(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  const parts = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return parts
    .flatMap((p) => p.split(","))
    .map((p) => p.trim())
    .filter((p) => p !== "");
}

/** Reads a directory flag (e.g. --cwd): CLI_USAGE unless it names an existing directory; the absolute path. */
export function directoryFlag(verb: string, args: ParsedArgs, name: string): string | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  let isDir: boolean;
  try {
    isDir = statSync(raw).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SeatError(
      "CLI_USAGE",
      `seat ${verb}: --${name} ${raw} ${code === "ENOENT" ? "does not exist" : `cannot be read (${code ?? "error"})`}; give an existing directory.`,
      { context: { [name]: raw } },
    );
  }
  if (!isDir)
    throw new SeatError("CLI_USAGE", `seat ${verb}: --${name} ${raw} is not a directory; give an existing directory.`, {
      context: { [name]: raw },
    });
  return resolve(raw);
}
