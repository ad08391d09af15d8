/*
 * Usage front door: the ledger of what turns spent (SQLite) and a named session's budget; budgets, prices and
 *   metering are metering/.
 * Owns: the public names of usage/ (siblings import from here, never from a file inside).
 * Does not own: anything else.
 */
export { emptyTotals, ledgerEntriesOf, queryUsage, recordUsage, totalsOf, USAGE_GROUPINGS } from "./ledger.js";
export type { FinishedTurn, LedgerEntry, UsageGrouping, UsageQuery, UsageTotals } from "./ledger.js";
export { nextTurnBudget, readSessionBudget, setSessionBudget } from "./session-budget.js";
export type { SessionSpend } from "./session-budget.js";
