/*
 * CLI arguments: strict parsing of one verb's flags with node's parseArgs, turned into clear usage errors.
 * Owns: flag parsing helpers (strings, positive numbers, CSV lists).
 * Does not own: what the flags mean (commands/).
 * Invariant: an unknown flag, a missing value or a malformed number is a CLI_USAGE error naming it; nothing runs.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { SeatError, messageOf } from "../errors.js";

/** Flag definitions in parseArgs' format. */
export type FlagSpec = NonNullable<ParseArgsConfig["options"]>;

/** Parsed flags and positionals of one verb. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}

/** Parses argv strictly against `spec`; throws CLI_USAGE on anything unexpected. */
export function parseFlags(verb: string, argv: string[], spec: FlagSpec): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (error) {
    throw new SeatError("CLI_USAGE", `seat ${verb}: ${messageOf(error)}. See \`seat ${verb} --help\`.`, { cause: error });
  }
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

/**
 * Gives a flag an optional value: `--NAME` alone becomes `--NAME=<fallback>`, `--NAME <digits>` becomes
 * `--NAME=<digits>` (parseArgs has no optional values; without this the next positional would be taken).
 */
export function optionalNumberFlag(argv: string[], name: string, fallback: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (arg !== `--${name}`) out.push(arg);
    else if (/^\d+$/.test(argv[i + 1] ?? "")) out.push(`--${name}=${argv[++i]}`);
    else out.push(`--${name}=${fallback}`);
  }
  return out;
}

/** Reads a whole number ≥ 1 from a string flag; undefined when the flag is absent. */
export function countFlag(verb: string, args: ParsedArgs, name: string): number | undefined {
  const raw = stringFlag(args, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new SeatError("CLI_USAGE", `seat ${verb}: --${name} takes a whole number of at least 1, got "${raw}".`);
  return Number(raw);
}

/** Reads a comma-separated list flag (repeatable). */
export function listFlag(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  const parts = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return parts.flatMap((p) => p.split(",")).map((p) => p.trim()).filter((p) => p !== "");
}
