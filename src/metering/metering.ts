/*
 * Metering: what each agent reports about its usage while a turn runs, and so which budgets can be kept.
 * Owns: the per-agent table of usage reporting, and the BUDGET_UNMETERED refusal of a budget nobody can check.
 * Does not own: the budget check itself (budget.ts) or launching agents (agents/).
 * Invariant: a budget is refused before anything is sent unless every limit it names can be checked during the
 *   turn (or the caller accepted that with allowUnmetered); an unmetered budget is never silently ignored.
 * Spec: docs/spend.md#what-each-agent-reports.
 */
import type { TurnBudget } from "./budget.js";

/** What an agent reports during a turn. */
export interface Metering {
  /** Tokens of every model call as it completes (grok: `_x.ai/session_notification response_completed`). */
  tokensPerCall: boolean;
  /** The cost of every model call as it completes (no agent we drive does; a price table can stand in). */
  costPerCall: boolean;
}

const GROK: Metering = { tokensPerCall: true, costPerCall: false };
const UNMETERED: Metering = { tokensPerCall: false, costPerCall: false };

/**
 * The metering of an agent: grok (the default, `agent` undefined or "grok") reports tokens per model call;
 * the other ACP agents we drive report nothing we can check during a turn, so far as we have seen.
 */
export function meteringOf(agent: string | undefined, agentCommand?: unknown): Metering {
  if (agentCommand !== undefined) return UNMETERED;
  return agent === undefined || agent === "grok" ? GROK : UNMETERED;
}

/**
 * Why `budget` cannot be checked on an agent with `metering` (undefined when it can). `hasPrices`: a price table
 * turns reported tokens into a cost, so a cost budget is checkable wherever tokens are.
 */
export function unmeteredProblem(
  budget: TurnBudget,
  metering: Metering,
  agentName: string,
  hasPrices: boolean,
): string | undefined {
  if (budget.maxTokens !== undefined && !metering.tokensPerCall) {
    return `${agentName} reports no token usage while a turn runs, so --max-tokens ${budget.maxTokens} cannot be kept. Drop the budget, or pass --allow-unmetered (library: allowUnmetered) to run without it.`;
  }
  if (budget.maxCostUsd !== undefined && !metering.costPerCall && !(hasPrices && metering.tokensPerCall)) {
    return `${agentName} reports no cost while a turn runs${metering.tokensPerCall ? " (only tokens; give a price file with --prices to turn them into a cost)" : ""}, so --max-cost ${budget.maxCostUsd} cannot be kept. Pass --allow-unmetered (library: allowUnmetered) to run anyway.`;
  }
  return undefined;
}
