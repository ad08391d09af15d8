/*
 * Sessions front door: named headless sessions that outlive one command (no daemon).
 * Owns: the list of names siblings and users may import from sessions/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../sessions/index.js", never a file inside sessions/.
 */
export { agentLabel, openSession, openStore, promptText } from "./open.js";
export type { OpenSessionOptions, OpenedSession } from "./open.js";
export { SessionStore } from "./store.js";
export type { SessionRecord, TurnRecord, TurnState, LeaseRecord } from "./store.js";
export { acquireLease, judgeHolder, selfHolder } from "./lease.js";
export type { HeldLease, Holder } from "./lease.js";
export { assertSessionName, scopeFor, GLOBAL_SCOPE } from "./names.js";
export { planRunControl, startRunControl, startTurnControl } from "./turn-control.js";
export type { RunControlPlan } from "./turn-control.js";
export { lookup, summarize, closeNamed, removeNamed, cancelNamed } from "./manage.js";
export type { SessionSummary } from "./manage.js";
export { closeAgentSession } from "./close.js";
export type { CloseOutcome } from "./close.js";
