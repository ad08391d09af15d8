/*
 * Usage front door: budgets and the metering of what agents report.
 * Owns: the public names of usage/ (siblings import from here, never from a file inside).
 * Does not own: anything else.
 */
export { budgetProblem, createTurnMeter, tokensOf, TICKS_PER_USD } from "./budget.js";
export type { Spend, TurnBudget, TurnMeter, UsageReport } from "./budget.js";
export { meteringOf, unmeteredProblem } from "./metering.js";
export type { Metering } from "./metering.js";
export { computeCost, loadPrices, parsePrices } from "./prices.js";
export type { ModelPrice, PriceTable, PricedTokens } from "./prices.js";
export { emptyTotals, ledgerEntriesOf, queryUsage, recordUsage, totalsOf, USAGE_GROUPINGS } from "./ledger.js";
export type { FinishedTurn, LedgerEntry, UsageGrouping, UsageQuery, UsageTotals } from "./ledger.js";
export { nextTurnBudget, readSessionBudget, setSessionBudget } from "./session-budget.js";
export type { SessionSpend } from "./session-budget.js";
export { startMeteringPoint, readUsageInto } from "./metering-point.js";
export { admitCall } from "./call-admission.js";
export type { Admission, CallCostOf } from "./call-admission.js";
export type { MeteredCall, MeteringPoint, MeteringPointOptions, PendingCall } from "./metering-point.js";
export {
  BYTES_PER_TOKEN,
  estimateGrokSideCalls,
  meterMissedTurn,
  sideCallsFromMeter,
  sideCallTokens,
  SUMMARY_OUTPUT_TOKENS_ESTIMATE,
} from "./side-calls.js";
export type { ReportedTurn, SideCallUsage } from "./side-calls.js";
