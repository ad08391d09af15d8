/*
 * Sessions front door: named headless sessions that outlive one command (no daemon).
 * Owns: the list of names siblings and users may import from sessions/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../sessions/index.js", never a file inside sessions/.
 */
export { openSession, openStore } from "./open.js";
export type { OpenSessionOptions, OpenedSession } from "./open.js";
export { lookup, summarize, closeNamed, removeNamed, cancelNamed } from "./manage.js";
export type { SessionSummary } from "./manage.js";
export { closeAgentSession } from "./close.js";
export type { CloseOutcome } from "./close.js";
