/*
 * A fresh session's turn in the usage ledger: the row(s) `seat usage` reads, written in the seat home's journal.
 * Owns: loadLedger (started as the turn is sent) and recordTurnUsage (its rows, written once it ended).
 * Does not own: the rows' shape (usage/ledger.ts); a named session's turns (sessions/ records them itself).
 * Invariant: never throws; a failed write is a JOURNAL_WRITE_FAILED diagnostic and the turn's answer stands.
 */
import type { Diagnostic, TurnResult } from "../acp/index.js";
import { messageOf } from "../errors.js";
import { ensurePrivateDir, journalPath } from "../home/index.js";

/** What a fresh session's ledger rows name: a plain run, or a fleet job (its id). */
export type TurnLedger = { source: "run" } | { source: "job"; jobId: string; session?: string };

type LedgerModule = typeof import("../usage/index.js");

/**
 * Starts loading the ledger (and its SQLite journal) as a turn is sent, so writing its rows once it ends does not
 * wait for the load. usage/ holds the ledger and a session's budget only: budgets, prices and metering, which the
 * turn has loaded already, are metering/.
 */
export function loadLedger(): Promise<LedgerModule> {
  const loading = import("../usage/index.js");
  loading.catch(() => undefined); // a failed load is reported where it is awaited (recordTurnUsage)
  return loading;
}

/** Writes the turn's ledger rows; resolves a diagnostic when they could not be written. */
export async function recordTurnUsage(
  ledgerModule: Promise<LedgerModule>,
  home: string,
  result: TurnResult,
  ledger: TurnLedger,
  agent: string,
  model: string | undefined,
): Promise<Diagnostic | undefined> {
  try {
    const { ledgerEntriesOf, recordUsage } = await ledgerModule;
    ensurePrivateDir(home);
    recordUsage(journalPath(home), ledgerEntriesOf(result, { ...ledger, agent, ...(model ? { model } : {}) }));
    return undefined;
  } catch (error) {
    return {
      code: "JOURNAL_WRITE_FAILED",
      message: `The turn's usage could not be added to the ledger: ${messageOf(error)}`,
    };
  }
}
