/*
 * Budget gate: whether a turn's budget may run on this session's agent, decided before anything is sent.
 * Owns: turning an invalid or unmetered budget into the diagnostic the turn ends with (ACP_PROMPT_INVALID,
 *   BUDGET_UNMETERED).
 * Does not own: the check during the turn (acp/session-core.ts with metering/budget.ts) or the metering table (usage/).
 */
import type { Diagnostic } from "../acp/index.js";
// The two files alone, not the usage front door: a session must not load the ledger's SQLite.
import { budgetProblem, type TurnBudget } from "../metering/index.js";
import { meteringOf, unmeteredProblem } from "../metering/index.js";
import type { SessionOptions } from "./options.js";

/** The diagnostic that refuses `budget` on this session, or undefined when the turn may run with it. */
export function budgetRefusal(budget: TurnBudget, options: SessionOptions, hasCostOf: boolean): Diagnostic | undefined {
  const problem = budgetProblem(budget);
  if (problem)
    return {
      code: "ACP_PROMPT_INVALID",
      message: `The prompt was given an invalid budget: ${problem}; nothing was sent.`,
    };
  if (options.allowUnmetered === true) return undefined;
  const agentName = options.agentCommand !== undefined ? "this agent" : (options.agent ?? "grok");
  const unmetered = unmeteredProblem(budget, meteringOf(options.agent, options.agentCommand), agentName, hasCostOf);
  return unmetered ? { code: "BUDGET_UNMETERED", message: `${unmetered} Nothing was sent.` } : undefined;
}
