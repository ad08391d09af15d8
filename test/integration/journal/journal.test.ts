// The delivery journal on real sqlite files, each test in its own temp dir.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openJournal, JOURNAL_SCHEMA, type Journal } from "../../../src/journal/index.js";
import { isSeatError } from "../../../src/errors.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

function withDir(body: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), "gs-journal-"));
  try {
    body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function withJournal(body: (journal: Journal, path: string) => void): void {
  withDir((dir) => {
    const path = join(dir, "journal.sqlite");
    const journal = openJournal(path);
    try {
      journal.createSeat({ seatId: "seat-1", sessionId: SID, socketPath: "/run/seat/s", state: "active" });
      body(journal, path);
    } finally {
      journal.close();
    }
  });
}

const result = (promptId: string, sessionId = SID) => ({
  kind: "completed" as const,
  source: "session/prompt result",
  sessionId,
  promptId,
});

test("creates a WAL journal with synchronous=FULL and the v1 schema name in meta", () => {
  withJournal((journal, path) => {
    assert.deepEqual(journal.settings(), { journalMode: "wal", synchronous: 2, schema: JOURNAL_SCHEMA });
    const db = new Database(path, { readonly: true });
    try {
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      assert.equal(db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get(), JOURNAL_SCHEMA);
    } finally {
      db.close();
    }
  });
});

test("reopens an existing v1 journal and keeps its rows", () => {
  withJournal((journal, path) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    const again = openJournal(path);
    try {
      assert.equal(again.getDelivery("ctl-1")?.state, "fenced");
    } finally {
      again.close();
    }
  });
});

test("refuses a file with another schema name as JOURNAL_CORRUPT and leaves it untouched", () => {
  withDir((dir) => {
    const path = join(dir, "other.sqlite");
    const db = new Database(path);
    db.exec(
      "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema', 'grok-seat.journal.v9')",
    );
    db.close();
    assert.throws(
      () => openJournal(path),
      (err: unknown) => isSeatError(err, "JOURNAL_CORRUPT") && /v9/.test(err.message),
    );
    const check = new Database(path, { readonly: true });
    assert.deepEqual(check.prepare("SELECT name FROM sqlite_master WHERE type='table'").pluck().all(), ["meta"]);
    check.close();
  });
});

test("refuses a file that is not sqlite, or sqlite without our meta table", () => {
  withDir((dir) => {
    const garbage = join(dir, "garbage.sqlite");
    writeFileSync(garbage, "this is not a database, just text that is long enough to have a header ".repeat(20));
    assert.throws(
      () => openJournal(garbage),
      (e) => isSeatError(e, "JOURNAL_CORRUPT"),
    );
    const foreign = join(dir, "foreign.sqlite");
    const db = new Database(foreign);
    db.exec("CREATE TABLE notes (x TEXT)");
    db.close();
    assert.throws(
      () => openJournal(foreign),
      (e) => isSeatError(e, "JOURNAL_CORRUPT"),
    );
  });
});

test("stores seats with proof fields and a JSON mux descriptor in snake_case columns", () => {
  withJournal((journal, path) => {
    journal.updateSeat("seat-1", {
      leaderPid: 42,
      leaderBirth: "123456",
      leaderExe: "/opt/grok",
      tuiPid: 41,
      tuiCwd: "/p",
      tuiTty: "/dev/pts/3",
      muxDescriptor: { backend: "tmux", pane: "%3" },
    });
    const seat = journal.getSeat("seat-1")!;
    assert.equal(seat.leaderPid, 42);
    assert.deepEqual(seat.muxDescriptor, { backend: "tmux", pane: "%3" });
    const released = journal.updateSeat("seat-1", { state: "released" });
    assert.ok(released.releasedAt);
    assert.deepEqual(journal.listSeats(), []);
    assert.equal(journal.listSeats({ includeReleased: true }).length, 1);
    const db = new Database(path, { readonly: true });
    const row = db.prepare("SELECT leader_pid, tui_tty, mux_descriptor FROM seats").get();
    db.close();
    assert.deepEqual(row, { leader_pid: 42, tui_tty: "/dev/pts/3", mux_descriptor: '{"backend":"tmux","pane":"%3"}' });
  });
});

test("fences a delivery with its text, sha256 and UTF-8 length before anything is sent", () => {
  withJournal((journal) => {
    const text = "résumé the brief";
    const d = journal.fence({ seatId: "seat-1", promptId: "ctl-1", text });
    assert.equal(d.state, "fenced");
    assert.equal(d.text, text);
    assert.equal(d.textSha256, createHash("sha256").update(text).digest("hex"));
    assert.equal(d.textLength, Buffer.byteLength(text));
    assert.ok(d.fencedAt);
    assert.equal(d.dispatchedAt, null);
  });
});

test("refuses to fence a prompt id twice or for an unknown seat", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    assert.throws(
      () => journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "b" }),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
    assert.throws(
      () => journal.fence({ seatId: "nope", promptId: "ctl-2", text: "b" }),
      (e) => isSeatError(e, "SEAT_NOT_FOUND"),
    );
  });
});

test("walks fenced → dispatched → consumed → completed with a timestamp per state and an evidence list", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    journal.markDispatched("ctl-1");
    journal.recordEvidence("ctl-1", {
      kind: "consumed",
      source: "_x.ai/queue/changed",
      promptId: "ctl-1",
      detail: { position: 0 },
    });
    const done = journal.recordEvidence("ctl-1", result("ctl-1"))!;
    assert.equal(done.state, "completed");
    assert.ok(done.dispatchedAt && done.consumedAt && done.completedAt);
    assert.deepEqual(
      done.evidence.map((e) => e.kind),
      ["note", "consumed", "completed"],
    );
    assert.ok(done.evidence.every((e) => typeof e.at === "string"));
  });
});

test("refuses illegal moves with JOURNAL_STATE_INVALID", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    assert.throws(
      () => journal.markCancelled("ctl-1"),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
    journal.markDispatched("ctl-1");
    assert.throws(
      () => journal.markDispatched("ctl-1"),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
    assert.throws(
      () => journal.markDispatched("never-fenced"),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
  });
});

test("rejects completion evidence that does not echo the original session and prompt id", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    journal.markDispatched("ctl-1");
    assert.throws(
      () => journal.recordEvidence("ctl-1", result("ctl-1", "0199ffff-0000-7000-8000-000000000000")),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
    assert.throws(
      () => journal.recordEvidence("ctl-1", { kind: "completed", source: "turn_completed", promptId: "ctl-1" }),
      (e) => isSeatError(e, "JOURNAL_STATE_INVALID"),
    );
    const row = journal.getDelivery("ctl-1")!;
    assert.equal(row.state, "dispatched");
    assert.equal(row.evidence.length, 1, "the refused evidence was not recorded");
  });
});

test("records a cancellation as submitted and never as completed", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    journal.markDispatched("ctl-1");
    const cancelled = journal.markCancelled("ctl-1");
    assert.equal(cancelled.state, "submitted");
    assert.equal(cancelled.completedAt, null);
    assert.equal(
      journal.recordEvidence("ctl-1", { kind: "consumed", source: "_x.ai/queue/changed", promptId: "ctl-1" })!.state,
      "submitted",
    );
  });
});

test("reconciles an uncertain delivery from late evidence without creating a new one", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    journal.markDispatched("ctl-1");
    journal.markUncertain("ctl-1", "connection lost before any acknowledgement");
    assert.equal(
      journal.recordEvidence("ctl-1", { kind: "consumed", source: "session/load _meta", promptId: "ctl-1" })!.state,
      "consumed",
    );
    assert.equal(journal.recordEvidence("ctl-1", result("ctl-1"))!.state, "completed");
    assert.equal(
      journal.recordEvidence("someone-elses-prompt", { kind: "consumed", source: "_x.ai/queue/changed" }),
      null,
    );
    assert.equal(journal.getDelivery("someone-elses-prompt"), null);
  });
});

test("keeps the later state when evidence arrives out of order", () => {
  withJournal((journal) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    journal.markDispatched("ctl-1");
    journal.recordEvidence("ctl-1", result("ctl-1"));
    const after = journal.recordEvidence("ctl-1", {
      kind: "consumed",
      source: "_x.ai/queue/changed",
      promptId: "ctl-1",
    })!;
    assert.equal(after.state, "completed");
    assert.equal(after.evidence.at(-1)!.kind, "consumed");
  });
});

test("lists open deliveries per seat and recovers only those, leaving finished ones alone", () => {
  withJournal((journal) => {
    journal.createSeat({ seatId: "seat-2", sessionId: SID, socketPath: "/run/seat2/s" });
    journal.fence({ seatId: "seat-1", promptId: "a", text: "a" });
    journal.fence({ seatId: "seat-1", promptId: "b", text: "b" });
    journal.markDispatched("b");
    journal.fence({ seatId: "seat-1", promptId: "c", text: "c" });
    journal.markDispatched("c");
    journal.recordEvidence("c", result("c"));
    journal.fence({ seatId: "seat-2", promptId: "d", text: "d" });
    assert.deepEqual(
      journal.openDeliveries("seat-1").map((d) => d.promptId),
      ["a", "b"],
    );
    const report = journal.recoverAfterCrash("seat-1");
    assert.deepEqual(
      report.neverSent.map((d) => d.promptId),
      ["a"],
    );
    assert.deepEqual(
      report.uncertain.map((d) => d.promptId),
      ["b"],
    );
    assert.equal(journal.getDelivery("c")!.state, "completed");
    assert.equal(journal.getDelivery("d")!.state, "fenced");
  });
});

test("reports a row with a broken evidence list as JOURNAL_CORRUPT", () => {
  withJournal((journal, path) => {
    journal.fence({ seatId: "seat-1", promptId: "ctl-1", text: "a" });
    const db = new Database(path);
    db.prepare("UPDATE deliveries SET evidence = '{oops' WHERE prompt_id = 'ctl-1'").run();
    db.close();
    assert.throws(
      () => journal.getDelivery("ctl-1"),
      (e) => isSeatError(e, "JOURNAL_CORRUPT"),
    );
  });
});
