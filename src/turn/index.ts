/*
 * turn/ front door: the supervised turn every door runs (docs/supervision.md).
 */
export {
  NOTIFY_CLOSE_GRACE_MS,
  prepareSupervisedTurn,
  type ClosedTurn,
  type PreparedTurn,
  type SupervisedTurn,
  type SupervisedTurnOptions,
} from "./supervised-turn.js";
export { runSupervisedTurn, type SupervisedTurnOutcome } from "./run-turn.js";
export type { TurnLedger } from "./turn-ledger.js";
