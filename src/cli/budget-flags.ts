/*
 * Budget flags: `--max-tokens N`, `--max-cost USD` and `--allow-unmetered`, shared by `seat run` and `seat submit`.
 * Owns: the flag specs and reading them into a TurnBudget (CLI_USAGE errors name the verb and the value).
 * Does not own: what a budget does (usage/, acp/session-core.ts).
 */
// budget.ts alone: a run parses budgets without loading the ledger (and its SQLite).
import type { TurnBudget } from "../metering/index.js";
import { SeatError } from "../errors.js";
import { rewriteFlag, stringFlag, type FlagSpec, type ParsedArgs } from "./args.js";

/** parseArgs specs of the budget flags. */
export const BUDGET_FLAG_SPEC: FlagSpec = {
  "max-tokens": { type: "string" },
  "max-cost": { type: "string" },
  "allow-unmetered": { type: "boolean" },
};

/** The --help lines of the budget flags. */
export const BUDGET_HELP = `  --max-tokens N        cancel the turn once it has used more than N tokens (checked on every model call)
  --max-cost USD        cancel the turn once it has cost more than USD (reported cost; see docs/spend.md)
  --allow-unmetered     run a budget even on an agent that does not report what it limits`;

/** The budget the flags give (undefined when none) and whether an unmetered budget may run. */
export function budgetFromArgs(verb: string, args: ParsedArgs): { budget?: TurnBudget; allowUnmetered: boolean } {
  const tokensRaw = stringFlag(args, "max-tokens");
  const costRaw = stringFlag(args, "max-cost");
  const budget: TurnBudget = {
    ...(tokensRaw === undefined ? {} : { maxTokens: parseMaxTokens(verb, tokensRaw) }),
    ...(costRaw === undefined ? {} : { maxCostUsd: parseMaxCost(verb, costRaw) }),
  };
  const allowUnmetered = args.values["allow-unmetered"] === true;
  return Object.keys(budget).length > 0 ? { budget, allowUnmetered } : { allowUnmetered };
}

/**
 * Joins `--max-tokens -5` into `--max-tokens=-5` so a negative budget reaches the check that names it (parseArgs
 * would otherwise refuse it as an ambiguous flag, without saying the value).
 */
export function joinBudgetValues(argv: string[]): string[] {
  return rewriteFlag(
    argv,
    ["--max-tokens", "--max-cost", "--session-max-tokens", "--session-max-cost"],
    (_flag, next) => (next !== undefined && /^-[\d.$]/.test(next) ? { value: next, consumesNext: true } : null),
  );
}

/** Reads `--max-tokens N` for verb `verb`; throws CLI_USAGE naming the value unless it is a whole number ≥ 1. */
export function parseMaxTokens(verb: string, raw: string, flag = "--max-tokens"): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new SeatError("CLI_USAGE", `seat ${verb}: ${flag} takes a whole number of tokens above 0, got "${raw}".`, {
      context: { value: raw },
    });
  }
  return Number(raw);
}

/** Reads `--max-cost USD` for verb `verb`; throws CLI_USAGE naming the value unless it is a number > 0. */
export function parseMaxCost(verb: string, raw: string, flag = "--max-cost"): number {
  const usd = Number(raw.startsWith("$") ? raw.slice(1) : raw);
  if (!/^\$?\d+(\.\d+)?$/.test(raw) || !(usd > 0) || !Number.isFinite(usd)) {
    throw new SeatError(
      "CLI_USAGE",
      `seat ${verb}: ${flag} takes a number of US dollars above 0 (e.g. 0.50), got "${raw}".`,
      { context: { value: raw } },
    );
  }
  return usd;
}
