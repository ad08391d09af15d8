/*
 * Session store front door: the named sessions' SQLite rows and the lease that says which process holds one;
 *   read by `seat ps` and restore without loading the runtime that opens a session (sessions/).
 * Owns: the list of names other rooms may import from session-store/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../session-store/index.js", never a file inside session-store/.
 */
export { SessionStore } from "./store.js";
export type { SessionRecord, TurnRecord, TurnState, LeaseRecord } from "./store.js";
export { acquireLease, judgeHolder, selfHolder } from "./lease.js";
export type { HeldLease, Holder } from "./lease.js";
