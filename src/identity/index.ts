/*
 * Identity front door: process identity proof for the visible seat.
 * Owns: the list of names siblings may import from identity/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../identity/index.js"; every verdict is match | mismatch | unknown.
 */
export { assertMatch, check, combineChecks, compareField } from "./verdict.js";
export type { IdentityCheck, IdentityResult, Verdict } from "./verdict.js";
export { readProcessIdentity, socketListenerInodes, pidHoldsSocket, socketHolderPids } from "./linux.js";
export type { BirthResolution, ProcessIdentity } from "./linux.js";
export { parseProcStat, parseStatusUids, parseBootTime, parseNetUnix, socketInodeOfLink } from "./proc-text.js";
export type { ProcStat, UnixSocketRow } from "./proc-text.js";
export { proveLeader, compareIdentity, reproveIdentity, lockPathFor } from "./prove.js";
export type { BoundIdentity, LeaderProof, ProveLeaderInput } from "./prove.js";
export { linuxSource, platformIdentitySource } from "./source.js";
export { snapshotIdentitySource } from "./snapshot-source.js";
export type { IdentitySource, SocketHolderCheck } from "./source.js";
export {
  parsePsLine,
  parseLsofFields,
  parseLsofCwd,
  parseLsofExe,
  lsofHoldsSocketPath,
  identityFromMacOutputs,
} from "./macos.js";
export type { LsofFile, MacProcessIdentity } from "./macos.js";
export { macosSource, execFileRunner, PS_PATH, LSOF_PATH, PS_COLUMNS } from "./macos-source.js";
export type { CommandResult, CommandRunner } from "./macos-source.js";
export { sealLeader, checkSeal, socketFdOf, socketFileBefore } from "./seal.js";
export type { LeaderSeal, SealInput } from "./seal.js";
export { parseActiveSessions, readActiveSessions, findActiveSession } from "./active-sessions.js";
export type { ActiveSession, ActiveSessionEvidence } from "./active-sessions.js";
