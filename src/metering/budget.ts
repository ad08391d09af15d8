/*
 * Turn budgets: how much one turn may spend, and the check made on every usage report during it.
 * Owns: the TurnBudget shape, its validation (library; the CLI's flags are cli/budget-flags.ts), what counts as spent (tokens, USD), and the
 *   BUDGET_EXCEEDED diagnostic a crossed budget ends the turn with.
 * Does not own: cancelling the turn (acp/session-core.ts), which agents report usage (metering.ts), the ledger.
 * Invariant: a budget is crossed when what was spent is MORE than the limit (spending exactly the limit is
 *   allowed); what an agent did not report is unknown and never counted as zero spend toward a cost budget.
 * Spec: docs/spend.md#budgets.
 */
import type { ErrorCode } from "../errors.js";

/** A per-turn budget. Each limit is optional; a budget with neither limit is invalid. */
export interface TurnBudget {
  /** Most tokens (input + output, summed over the turn's model calls) the turn may use. */
  maxTokens?: number;
  /** Most US dollars the turn may cost (reported cost, or computed from a price table). */
  maxCostUsd?: number;
}

/** One usage report as the meter reads it: tokens of one model call, and its cost when known. */
export interface UsageReport {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** Cost of this report in USD, when the agent reported it or a price table computed it. */
  costUsd?: number;
}

/** 1 USD in grok's `costUsdTicks`. */
export const TICKS_PER_USD = 1e10;

function isPositive(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value > 0;
}

/**
 * The problem with a library-given budget, or undefined when it is valid (a positive whole number of tokens,
 * a positive number of USD, at least one of them).
 */
export function budgetProblem(budget: unknown): string | undefined {
  if (typeof budget !== "object" || budget === null || Array.isArray(budget))
    return `budget must be an object { maxTokens?, maxCostUsd? }, got ${JSON.stringify(budget)}`;
  const { maxTokens, maxCostUsd, ...rest } = budget as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) return `budget has unknown key "${unknown[0]}" (use maxTokens, maxCostUsd)`;
  if (maxTokens === undefined && maxCostUsd === undefined)
    return "budget names no limit (give maxTokens or maxCostUsd)";
  if (maxTokens !== undefined && !(isPositive(maxTokens) && Number.isInteger(maxTokens)))
    return `budget.maxTokens must be a whole number above 0, got ${JSON.stringify(maxTokens)}`;
  if (maxCostUsd !== undefined && !isPositive(maxCostUsd))
    return `budget.maxCostUsd must be a number of USD above 0, got ${JSON.stringify(maxCostUsd)}`;
  return undefined;
}

/** Tokens one report counts toward a budget: its total when given, else input + output; unknown → 0 known tokens. */
export function tokensOf(report: UsageReport): number {
  if (report.totalTokens !== undefined) return report.totalTokens;
  return (report.inputTokens ?? 0) + (report.outputTokens ?? 0);
}

/** What a turn has spent so far, as far as reports said. */
export interface Spend {
  tokens: number;
  /** Null while any report's cost was unknown: an unknown cost is never counted as zero. */
  costUsd: number | null;
  reports: number;
}

/** The running spend of one turn against its budget; `add` returns the diagnostic once the budget is crossed. */
export interface TurnMeter {
  readonly budget: TurnBudget;
  readonly spent: Spend;
  /** Adds one report; returns BUDGET_EXCEEDED the first time the spend goes over a limit, else undefined. */
  add(report: UsageReport): { code: ErrorCode; message: string } | undefined;
}

/** A meter for one turn. The check per report is a few additions and comparisons (bench: budget check). */
export function createTurnMeter(budget: TurnBudget): TurnMeter {
  const spent: Spend = { tokens: 0, costUsd: 0, reports: 0 };
  let crossed = false;
  return {
    budget,
    spent,
    add(report) {
      spent.reports += 1;
      spent.tokens += tokensOf(report);
      spent.costUsd = spent.costUsd === null || report.costUsd === undefined ? null : spent.costUsd + report.costUsd;
      if (crossed) return undefined;
      if (budget.maxTokens !== undefined && spent.tokens > budget.maxTokens) {
        crossed = true;
        return {
          code: "BUDGET_EXCEEDED",
          message: `The turn used ${spent.tokens} tokens over ${spent.reports} model call(s), more than its budget of ${budget.maxTokens}; it was cancelled (the text so far is kept).`,
        };
      }
      if (budget.maxCostUsd !== undefined && spent.costUsd !== null && spent.costUsd > budget.maxCostUsd) {
        crossed = true;
        return {
          code: "BUDGET_EXCEEDED",
          message: `The turn cost $${spent.costUsd.toFixed(6)} over ${spent.reports} model call(s), more than its budget of $${budget.maxCostUsd}; it was cancelled (the text so far is kept).`,
        };
      }
      return undefined;
    },
  };
}
