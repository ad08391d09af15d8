/*
 * Metering front door: what a turn may spend and what it spent — budgets, prices, the metering of what agents
 *   report, the metering point on the model's route and the side calls it sees. No SQLite: the ledger that records
 *   it is usage/.
 * Owns: the list of names other rooms may import from metering/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../metering/index.js", never a file inside metering/.
 */
export { budgetProblem, createTurnMeter, tokensOf, TICKS_PER_USD } from "./budget.js";
export type { Spend, TurnBudget, TurnMeter, UsageReport } from "./budget.js";
export { meteringOf, unmeteredProblem } from "./metering.js";
export type { Metering } from "./metering.js";
export { computeCost, loadPrices, parsePrices } from "./prices.js";
export type { ModelPrice, PriceTable, PricedTokens } from "./prices.js";
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
