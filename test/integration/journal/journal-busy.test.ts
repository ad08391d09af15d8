/*
 * The delivery journal under another process's write lock (issue 14 §4), with a real second process holding
 * the lock on a real sqlite file: opening and reading work, a write waits a bounded time and then says
 * JOURNAL_BUSY (never JOURNAL_CORRUPT, never a raw "database is locked"), and it succeeds once the lock is gone.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { openJournal } from "../../../src/journal/index.js";
import { holdWriteLock } from "../../support/journal-lock.js";

test("with another process holding the journal's write lock, it opens and reads, a fence is JOURNAL_BUSY, and the fence succeeds after the lock is released", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-busy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, "seats.db");
  const setup = openJournal(path);
  setup.createSeat({ seatId: "s1", sessionId: "sid", socketPath: "/x.sock" });
  setup.close();
  const lock = await holdWriteLock(path, 30_000);
  t.after(() => lock.stop());

  const journal = openJournal(path);
  t.after(() => journal.close());
  assert.equal(journal.getSeat("s1")?.seatId, "s1", "reads answer under the lock");
  assert.throws(
    () => journal.fence({ seatId: "s1", promptId: "p1", text: "hello" }),
    (e: unknown) => isSeatError(e, "JOURNAL_BUSY") && e.retryable,
  );
  assert.equal(journal.getDelivery("p1"), null, "nothing was fenced");
  lock.stop();
  await lock.released;
  assert.equal(journal.fence({ seatId: "s1", promptId: "p1", text: "hello" }).state, "fenced");
});
