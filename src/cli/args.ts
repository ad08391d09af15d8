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

/** Reads a comma-separated list flag (repeatable). */
export function listFlag(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  const parts = Array.isArray(value) ? value : typeof value === "string" ? [value] : [];
  return parts.flatMap((p) => p.split(",")).map((p) => p.trim()).filter((p) => p !== "");
}
