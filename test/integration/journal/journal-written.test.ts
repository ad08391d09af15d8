/*
 * Journal records built from what was written (issue 14 §8, P4b): fence, dispatch, evidence and failure return the
 * record without reading the row back, so each must equal what a fresh read of the real sqlite row decodes to; and
 * deliveryState (the visible seat's per-event state read) agrees with the row, and refuses a corrupt one.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openJournal } from "../../../src/journal/index.js";
import { SeatError } from "../../../src/errors.js";
import { registerSecrets } from "../../../src/internal/redact.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

test("every record a write returns equals the row read back, through fence, dispatch, consumed, completed and a failure", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-written-"));
  // Values the seat knows as secrets: the reads below must come back masked as they were written.
  registerSecrets({ OPENAI_API_KEY: "sk-abcdefghijklmnop1234", GROK_SEAT_REDIS_PASSWORD: "hunter2" });
  try {
    let tick = Date.UTC(2026, 0, 1);
    const journal = openJournal(join(dir, "j.sqlite"), { now: () => new Date((tick += 1000)) });
    journal.createSeat({ seatId: "s", sessionId: SID, socketPath: "/x/s.sock" });
    const same = (written: unknown, promptId: string) => assert.deepEqual(written, journal.getDelivery(promptId));
    same(
      journal.relaxed(() => journal.fence({ seatId: "s", promptId: "p1", text: "brief with token=abc123secret" })),
      "p1",
    );
    same(journal.markDispatched("p1"), "p1");
    same(
      journal.relaxed(() =>
        journal.recordEvidence("p1", {
          kind: "consumed",
          source: "_x.ai/queue/changed",
          sessionId: SID,
          promptId: "p1",
          detail: "queue entry",
        }),
      ),
      "p1",
    );
    // Evidence that does not move the state (consumed again) keeps every stamp.
    same(
      journal.recordEvidence("p1", {
        kind: "consumed",
        source: "_x.ai/queue/changed",
        sessionId: SID,
        promptId: "p1",
        detail: { note: "password=hunter2", undef: undefined },
      }),
      "p1",
    );
    same(
      journal.recordEvidence("p1", {
        kind: "completed",
        source: "session/prompt result",
        sessionId: SID,
        promptId: "p1",
        detail: { stopReason: "end_turn" },
      }),
      "p1",
    );
    same(journal.fence({ seatId: "s", promptId: "p2", text: "second", deliveryId: "d2" }), "p2");
    same(journal.markFailed("p2", "never dispatched: api_key=sk-abcdefghijklmnop1234"), "p2");
    const failed = journal.getDelivery("p2")!;
    assert.equal(failed.failureReason?.includes("sk-abcdefghijklmnop1234"), false);
    assert.equal(JSON.stringify(journal.getDelivery("p1")!.evidence).includes("hunter2"), false);
    assert.deepEqual(journal.deliveryState("p1"), { seatId: "s", state: "completed" });
    assert.deepEqual(journal.deliveryState("p2"), { seatId: "s", state: "failed" });
    assert.equal(journal.deliveryState("nope"), null);
    assert.throws(
      () => journal.fence({ seatId: "ghost", promptId: "p3", text: "x" }),
      (e: unknown) => e instanceof SeatError && e.code === "SEAT_NOT_FOUND",
    );
    journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("deliveryState of a row with an unknown state is JOURNAL_CORRUPT, as getDelivery is", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-written-"));
  try {
    const path = join(dir, "j.sqlite");
    const journal = openJournal(path);
    journal.createSeat({ seatId: "s", sessionId: SID, socketPath: "/x/s.sock" });
    journal.fence({ seatId: "s", promptId: "p1", text: "brief" });
    const raw = new Database(path);
    raw.prepare("PRAGMA ignore_check_constraints = ON").run();
    raw.prepare("UPDATE deliveries SET state = 'teleported' WHERE prompt_id = 'p1'").run();
    raw.close();
    assert.throws(
      () => journal.deliveryState("p1"),
      (e: unknown) => e instanceof SeatError && e.code === "JOURNAL_CORRUPT",
    );
    journal.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
