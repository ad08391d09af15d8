/*
 * Manage: what `seat sessions list|show|history|close|rm` and `seat cancel -s` do with a named session.
 * Owns: looking a name up in its scope, summaries (turns, usage totals, last stop reason, who runs it),
 *   and the guarded close / rm / cancel operations.
 * Does not own: printing (cli/), rows (session-store/store.ts), proving a holder (session-store/lease.ts), the
 *   control socket (control/).
 * Invariant: close and rm take the lease first, so they never act under a running turn; cancel reaches only a
 *   holder proven alive whose control socket it proved to hold.
 */
import { SeatError } from "../errors.js";
import { platformIdentitySource, type IdentitySource } from "../identity/index.js";
import { closeAgentSession, type CloseOutcome } from "./close.js";
import { requestCancel } from "../control/index.js";
import { acquireLease, judgeHolder } from "../session-store/index.js";
import { scopeFor } from "../names/index.js";
import type { LeaseRecord, SessionRecord, SessionStore, TurnRecord } from "../session-store/index.js";

/** A session with what is known about it now. */
export interface SessionSummary extends SessionRecord {
  turns: number;
  interruptedTurns: number;
  usage: Record<string, number>;
  lastStopReason: string | null;
  /** The process running a turn now, when a lease is held. */
  running: { pid: number; since: string } | null;
}

/** Finds `name` in the cwd's scope (or the global one with `global`); SESSION_NOT_FOUND otherwise. */
export function lookup(store: SessionStore, name: string, where: { cwd: string; global?: boolean }): SessionRecord {
  const record = where.global
    ? store.find(scopeFor(where.cwd, true), name)
    : store.resolve(scopeFor(where.cwd, false), name);
  if (!record) {
    throw new SeatError(
      "SESSION_NOT_FOUND",
      `No session named "${name}" ${where.global ? "in the global scope" : `for ${where.cwd} (or global)`}. List them with \`seat sessions list\`.`,
      { context: { name, cwd: where.cwd, global: where.global === true } },
    );
  }
  return record;
}

/** Turns, usage totals, last stop reason and the current holder of one session. */
export function summarize(store: SessionStore, record: SessionRecord): SessionSummary {
  const turns: TurnRecord[] = store.turns(record.row);
  const usage: Record<string, number> = {};
  for (const turn of turns)
    for (const [k, v] of Object.entries(turn.usage ?? {})) if (typeof v === "number") usage[k] = (usage[k] ?? 0) + v;
  const ended = turns.filter((t) => t.stopReason !== null);
  const lease: LeaseRecord | null = store.lease(record.row);
  return {
    ...record,
    turns: turns.length,
    interruptedTurns: turns.filter((t) => t.state === "interrupted").length,
    usage,
    lastStopReason: ended.at(-1)?.stopReason ?? null,
    running: lease ? { pid: lease.holderPid, since: lease.since } : null,
  };
}

/** Closes the agent session (session/close where advertised) under the lease; the record stays, closed. */
export async function closeNamed(
  store: SessionStore,
  record: SessionRecord,
  agent: { grokCliBinaryPath?: string; env?: NodeJS.ProcessEnv; agentEnv?: Record<string, string> },
): Promise<CloseOutcome> {
  const lease = await acquireLease(store, record);
  try {
    const outcome = record.agentSessionId
      ? await closeAgentSession({ ...agent, agentSessionId: record.agentSessionId, cwd: record.cwd })
      : { closed: false, outcome: "no agent session was ever created" };
    store.markClosed(record.row);
    return outcome;
  } finally {
    lease.release();
  }
}

/** Deletes the record and its history under the lease (grok's own session files are left alone). */
export async function removeNamed(store: SessionStore, record: SessionRecord): Promise<void> {
  const lease = await acquireLease(store, record);
  store.remove(record.row);
  lease.release();
}

/**
 * Cancels the running turn of `record` from another process: the lease holder must be proven alive and
 * to hold the control socket it recorded. SESSION_IDLE when no turn runs; IDENTITY_* when unproven.
 */
export async function cancelNamed(
  store: SessionStore,
  record: SessionRecord,
  source: IdentitySource = platformIdentitySource(),
): Promise<{ holderPid: number }> {
  const lease = store.lease(record.row);
  if (!lease)
    throw new SeatError("SESSION_IDLE", `Session "${record.name}" has no running turn.`, {
      context: { name: record.name },
    });
  const judged = await judgeHolder(lease, source);
  if (judged.verdict === "mismatch") {
    throw new SeatError(
      "SESSION_IDLE",
      `Session "${record.name}" has no running turn: its last holder (pid ${lease.holderPid}) is gone; the next run reclaims it.`,
      { context: { name: record.name, holderPid: lease.holderPid } },
    );
  }
  if (judged.verdict === "unknown" || !lease.controlSocket) {
    throw new SeatError(
      "IDENTITY_UNKNOWN",
      `The holder of session "${record.name}" (pid ${lease.holderPid}) cannot be proven${lease.controlSocket ? "" : " or has no control socket yet"}; nothing was sent. ${judged.reasons.join("; ")}`,
      { context: { name: record.name, holderPid: lease.holderPid } },
    );
  }
  const holds = await source.checkSocketHolder(lease.holderPid, lease.controlSocket);
  if (holds.check.verdict !== "match") {
    throw new SeatError(
      holds.check.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN",
      `The control socket of session "${record.name}" is not proven to belong to pid ${lease.holderPid} (${holds.check.reason}); nothing was sent.`,
      { context: { name: record.name, holderPid: lease.holderPid } },
    );
  }
  const answer = await requestCancel(lease.controlSocket);
  if (!answer.ok)
    throw new SeatError(
      "SESSION_IDLE",
      `The holder of session "${record.name}" refused the cancel: ${answer.error ?? "no reason"}.`,
      { context: { name: record.name } },
    );
  return { holderPid: lease.holderPid };
}
