/*
 * Journal front door: the durable delivery fence.
 * Owns: the list of names siblings may import from journal/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../journal/index.js", never a file inside journal/.
 */
export { openJournal, Journal } from "./journal.js";
export type { RecoveryReport } from "./journal.js";
export { JOURNAL_SCHEMA, SEAT_STATES } from "./schema.js";
/** @internal The sqlite handle is better-sqlite3's, whose types are a devDependency: not in the published .d.ts. */
export { openDatabase } from "./schema.js";
export { MIGRATIONS } from "./migrations.js";
/** @internal As openDatabase. */
export { applyMigrations, hasPendingMigrations } from "./migrations.js";
export { JOURNAL_BUSY_WAIT_MS, isSqliteBusy, journalBusy, withBusyRetry } from "./busy.js";
export type { Migration } from "./migrations.js";
export {
  DELIVERY_STATES,
  DELIVERY_TRANSITIONS,
  canTransition,
  assertTransition,
  assertEvidenceEchoes,
  evidenceTarget,
} from "./states.js";
export type { DeliveryState, DeliveryEvidence, EvidenceKind } from "./states.js";
export type { DeliveryRecord, NewSeat, SeatPatch, SeatProof, SeatRecord, SeatState } from "./records.js";
export { claimSocketPath, restoreClaimOf, unclaimedSocketPath, type RestoreClaim } from "./restore-claim.js";
