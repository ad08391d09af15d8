/*
 * Journal busy: what happens when another process holds the sqlite write lock.
 * Owns: recognising SQLITE_BUSY / SQLITE_LOCKED, the bounded retry around one journal operation, and the
 *   JOURNAL_BUSY error that ends it.
 * Does not own: the operations themselves (journal.ts, schema.ts, session-store/store.ts).
 * Invariant: a busy journal is never reported as corrupt (busy is not broken, and "move it aside" would
 *   discard good records); the wait is bounded, so no command hangs on a lock it cannot get.
 */
import { SeatError } from "../errors.js";

/** sqlite's own wait per attempt (PRAGMA busy_timeout); an operation's total wait is bounded by withBusyRetry. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;

/** How long an operation waits for the write lock in total before JOURNAL_BUSY. */
export const JOURNAL_BUSY_WAIT_MS = 5_000;

/** True for sqlite's "the database is locked" family (SQLITE_BUSY*, SQLITE_LOCKED*), by code, never by text. */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** The JOURNAL_BUSY error for `what` on the journal at `path`, after waiting `waitedMs`. */
export function journalBusy(path: string, what: string, waitedMs: number, cause?: unknown): SeatError {
  return new SeatError(
    "JOURNAL_BUSY",
    `The journal at ${path} stayed locked by another process for ${Math.round(waitedMs / 100) / 10} s while ${what}; nothing was changed. The file is fine: retry shortly.`,
    { retryable: true, context: { path, what, waitedMs }, cause },
  );
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs the synchronous `work`, retrying while sqlite reports the database busy (a deferred transaction that
 * must upgrade gets SQLITE_BUSY at once, without sqlite's own wait), until `waitMs` has passed; then throws
 * JOURNAL_BUSY (so the total wait is at most about `waitMs` plus one busy timeout). Any other error passes
 * through unchanged. Blocks the thread between attempts (50 ms), as
 * sqlite's own busy wait does.
 */
export function withBusyRetry<T>(path: string, what: string, work: () => T, waitMs = JOURNAL_BUSY_WAIT_MS): T {
  const started = Date.now();
  for (;;) {
    try {
      return work();
    } catch (error) {
      if (!isSqliteBusy(error)) throw error;
      const waited = Date.now() - started;
      if (waited >= waitMs) throw journalBusy(path, what, waited, error);
      Atomics.wait(pause, 0, 0, Math.min(50, waitMs - waited));
    }
  }
}
