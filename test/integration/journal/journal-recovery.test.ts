/*
 * Crash recovery run again: `seat status` recovers on every call while the controller is gone, so recovery
 * must be idempotent and must not undo late evidence (found by R2, bench/seat-crash.ts).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openJournal } from "../../../src/journal/index.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
const FILE = "grok session file /h/.grok/sessions/p/updates.jsonl";

test("a delivery that late evidence moved to consumed after recovery is not made uncertain again by the next recovery", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-"));
  const journal = openJournal(join(dir, "journal.sqlite"));
  try {
    journal.createSeat({ seatId: "seat-1", sessionId: SID, socketPath: "/run/seat/s", state: "active" });
    journal.fence({ seatId: "seat-1", promptId: "p1", text: "brief" });
    journal.markDispatched("p1");
    journal.recordEvidence("p1", { kind: "consumed", source: "_x.ai/queue/changed", sessionId: SID, promptId: "p1" });
    assert.deepEqual(
      journal.recoverAfterCrash("seat-1").uncertain.map((d) => d.promptId),
      ["p1"],
    );
    journal.recordEvidence("p1", { kind: "consumed", source: FILE, sessionId: SID, promptId: "p1" });
    const before = journal.getDelivery("p1")!;
    assert.equal(before.state, "consumed");
    for (let i = 0; i < 3; i += 1)
      assert.deepEqual(journal.recoverAfterCrash("seat-1"), { uncertain: [], neverSent: [] });
    const after = journal.getDelivery("p1")!;
    assert.equal(after.state, "consumed");
    assert.equal(after.evidence.length, before.evidence.length, "no evidence was appended by the repeated recoveries");
    assert.equal(after.evidence.filter((e) => e.source === "recovery").length, 1);
    journal.recordEvidence("p1", { kind: "completed", source: FILE, sessionId: SID, promptId: "p1" });
    assert.equal(journal.getDelivery("p1")!.state, "completed");
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an uncertain delivery stays listed as uncertain on every recovery without gaining evidence", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-"));
  const journal = openJournal(join(dir, "journal.sqlite"));
  try {
    journal.createSeat({ seatId: "seat-1", sessionId: SID, socketPath: "/run/seat/s", state: "active" });
    journal.fence({ seatId: "seat-1", promptId: "p2", text: "brief" });
    journal.markDispatched("p2");
    journal.recoverAfterCrash("seat-1");
    const once = journal.getDelivery("p2")!;
    assert.deepEqual(
      journal.recoverAfterCrash("seat-1").uncertain.map((d) => d.promptId),
      ["p2"],
    );
    assert.equal(journal.getDelivery("p2")!.evidence.length, once.evidence.length);
  } finally {
    journal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
