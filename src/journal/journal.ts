/*
 * Delivery journal: the durable record of every message handed to a visible seat.
 * Owns: the sqlite file, schema grok-seat.journal.v1, seats, fence / dispatch / evidence / reconcile.
 * Does not own: talking to the leader (leader/) or choosing what to send (seat/).
 * Invariant: a row is fenced (durably, synchronous=FULL) before dispatch; consumption is not awareness;
 *   an uncertain delivery is reported and reconciled from late evidence, never re-sent; evidence never
 *   creates a delivery.
 * Spec: ADR 0224; grok-wire.md §13 (delivery-fence facts)
 */
import { createHash, randomUUID } from "node:crypto";
import type Database from "better-sqlite3";
import { SeatError } from "../errors.js";
import { redact, redactText } from "../internal/redact.js";
import { openDatabase } from "./schema.js";
import { withBusyRetry } from "./busy.js";
import { cacheStatements } from "./statements.js";
import {
  DELIVERY_STATES,
  assertEvidenceEchoes,
  assertTransition,
  canTransition,
  evidenceTarget,
  type DeliveryEvidence,
  type DeliveryState,
} from "./states.js";
import {
  rowToDelivery,
  rowToSeat,
  type DeliveryRecord,
  type NewSeat,
  type SeatPatch,
  type SeatRecord,
} from "./records.js";

/** What recoverAfterCrash found: nothing in it is meant to be sent again. */
export interface RecoveryReport {
  /** Dispatched or consumed deliveries with no final evidence, now marked uncertain. */
  uncertain: DeliveryRecord[];
  /** Deliveries fenced but never dispatched, now marked failed ("never dispatched"). */
  neverSent: DeliveryRecord[];
}

/** The record field each state's `<state>_at` column maps to. */
const STAMPS = {
  fenced: "fencedAt",
  dispatched: "dispatchedAt",
  consumed: "consumedAt",
  completed: "completedAt",
  uncertain: "uncertainAt",
  failed: "failedAt",
  submitted: "submittedAt",
} as const satisfies Record<DeliveryState, keyof DeliveryRecord>;

/** Deliveries that are not final: fenced, dispatched, consumed, uncertain. */
const OPEN_STATES: DeliveryState[] = ["fenced", "dispatched", "consumed", "uncertain"];

/**
 * The journal handle. Synchronous; one process writes at a time (sqlite locking): a write waits a bounded
 * time for another process's lock, then throws JOURNAL_BUSY (journal/busy.ts); reads never wait (WAL).
 */
export class Journal {
  readonly path: string;
  readonly #db: Database.Database;
  readonly #now: () => Date;

  constructor(path: string, now: () => Date = () => new Date()) {
    this.path = path;
    this.#db = cacheStatements(openDatabase(path));
    this.#now = now;
  }

  /** Records a new seat in state "hiring" unless another state is given. */
  createSeat(seat: NewSeat): SeatRecord {
    const at = this.#now().toISOString();
    this.#retry("recording a seat", () =>
      this.#db
        .prepare(
          `INSERT INTO seats (seat_id, session_id, socket_path, leader_pid, leader_birth, leader_exe, leader_socket_inode, tui_pid, tui_birth, tui_exe, tui_cwd, tui_tty, mux_descriptor, state, created_at)
         VALUES (@seat_id, @session_id, @socket_path, @leader_pid, @leader_birth, @leader_exe, @leader_socket_inode, @tui_pid, @tui_birth, @tui_exe, @tui_cwd, @tui_tty, @mux_descriptor, @state, @created_at)`,
        )
        .run({
          ...seatColumns(seat),
          seat_id: seat.seatId,
          session_id: seat.sessionId,
          socket_path: seat.socketPath,
          state: seat.state ?? "hiring",
          created_at: at,
        }),
    );
    return this.getSeat(seat.seatId)!;
  }

  /** Updates proof fields or the state of a seat; throws SEAT_NOT_FOUND for an unknown id. */
  updateSeat(seatId: string, patch: SeatPatch): SeatRecord {
    const current = this.#seatOrThrow(seatId);
    const merged = {
      ...current,
      ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
    } as SeatRecord;
    const releasedAt = merged.state === "released" ? (current.releasedAt ?? this.#now().toISOString()) : null;
    this.#retry("updating a seat", () =>
      this.#db
        .prepare(
          `UPDATE seats SET leader_pid=@leader_pid, leader_birth=@leader_birth, leader_exe=@leader_exe, leader_socket_inode=@leader_socket_inode, tui_pid=@tui_pid, tui_birth=@tui_birth,
         tui_exe=@tui_exe, tui_cwd=@tui_cwd, tui_tty=@tui_tty, mux_descriptor=@mux_descriptor, state=@state, released_at=@released_at WHERE seat_id=@seat_id`,
        )
        .run({ ...seatColumns(merged), state: merged.state, released_at: releasedAt, seat_id: seatId }),
    );
    return this.getSeat(seatId)!;
  }

  /**
   * Reopens a seat that a reboot (or a dead tmux server) took, for `seat restore`: back to `hiring` on a new
   * leader socket, its old proof cleared. A compare-and-set on the socket path the restorer saw: of two restores
   * racing for one seat exactly one wins (true); the other, and a released seat, get false and change nothing.
   */
  reopenSeat(seatId: string, expect: { socketPath: string }, next: { socketPath: string }): boolean {
    const changed = this.#retry(
      "reopening a seat",
      () =>
        this.#db
          .prepare(
            `UPDATE seats SET socket_path=@next, leader_pid=NULL, leader_birth=NULL, leader_exe=NULL, leader_socket_inode=NULL, tui_pid=NULL, tui_birth=NULL,
         tui_exe=NULL, tui_cwd=NULL, tui_tty=NULL, mux_descriptor='null', state='hiring' WHERE seat_id=@seat_id AND socket_path=@expect AND state != 'released'`,
          )
          .run({ seat_id: seatId, expect: expect.socketPath, next: next.socketPath }).changes,
    );
    return changed === 1;
  }

  /** The seat with this id, or null. */
  getSeat(seatId: string): SeatRecord | null {
    const row = this.#db.prepare("SELECT * FROM seats WHERE seat_id = ?").get(seatId);
    return row ? rowToSeat(row, this.path) : null;
  }

  /** Every seat, oldest first; released seats only when asked. */
  listSeats(options: { includeReleased?: boolean } = {}): SeatRecord[] {
    const sql = options.includeReleased
      ? "SELECT * FROM seats ORDER BY created_at, seat_id"
      : "SELECT * FROM seats WHERE state != 'released' ORDER BY created_at, seat_id";
    return this.#db
      .prepare(sql)
      .all()
      .map((row) => rowToSeat(row, this.path));
  }

  /**
   * Durably records the intent to deliver `text` as `promptId` before anything is sent.
   * Throws JOURNAL_STATE_INVALID if the prompt id was ever used (grok's handling of duplicates is untested).
   */
  fence(input: { seatId: string; promptId: string; text: string; deliveryId?: string }): DeliveryRecord {
    const at = this.#now().toISOString();
    // The stored text is redacted (the journal is a file we write); hash and length are of what was sent.
    const record: DeliveryRecord = {
      deliveryId: input.deliveryId ?? randomUUID(),
      seatId: input.seatId,
      promptId: input.promptId,
      text: redactText(input.text),
      textSha256: sha256(input.text),
      textLength: Buffer.byteLength(input.text, "utf8"),
      state: "fenced",
      evidence: [],
      failureReason: null,
      fencedAt: at,
      dispatchedAt: null,
      consumedAt: null,
      completedAt: null,
      uncertainAt: null,
      failedAt: null,
      submittedAt: null,
      updatedAt: at,
    };
    // Inserted first, refused by sqlite's own constraints (P4b: no reads before the write); a refusal writes nothing.
    try {
      this.#retry("fencing a delivery", () =>
        this.#db
          .prepare(
            `INSERT INTO deliveries (delivery_id, seat_id, prompt_id, text, text_sha256, text_length, state, evidence, fenced_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, 'fenced', '[]', ?, ?)`,
          )
          .run(
            record.deliveryId,
            record.seatId,
            record.promptId,
            record.text,
            record.textSha256,
            record.textLength,
            at,
            at,
          ),
      );
    } catch (error) {
      throw this.#fenceRefusal(error, input);
    }
    // Built from what was written, not read back (P4b): the row holds exactly these values.
    return record;
  }

  /** Marks a fenced delivery dispatched; call it immediately before writing the prompt to the leader. */
  markDispatched(promptId: string): DeliveryRecord {
    return this.#move(promptId, "dispatched", { kind: "note", source: "controller", detail: "dispatch" });
  }

  /** Marks a delivery failed with a reason (e.g. the write to the leader failed before dispatch). */
  markFailed(promptId: string, reason: string): DeliveryRecord {
    return this.#move(promptId, "failed", { kind: "failed", source: "controller", detail: reason }, reason);
  }

  /** Marks a delivery uncertain: it may have reached grok but no evidence says so. */
  markUncertain(promptId: string, reason: string): DeliveryRecord {
    return this.#move(promptId, "uncertain", { kind: "note", source: "controller", detail: reason });
  }

  /** Records a cancellation: the delivery ends as submitted, never as a fabricated completion. */
  markCancelled(promptId: string, source = "controller"): DeliveryRecord {
    return this.#move(promptId, "submitted", { kind: "cancelled", source });
  }

  /**
   * Appends evidence to an existing delivery and moves it forward when the evidence allows
   * (late evidence reconciles an uncertain delivery). Returns null when no delivery has this prompt id:
   * evidence never creates one. Throws JOURNAL_STATE_INVALID when the evidence names another session or
   * prompt, or claims completion without echoing both ids.
   */
  recordEvidence(promptId: string, evidence: DeliveryEvidence): DeliveryRecord | null {
    return this.#retry("recording evidence", () =>
      this.#db
        .transaction(() => {
          const delivery = this.getDelivery(promptId);
          if (!delivery) return null;
          assertEvidenceEchoes(evidence, { sessionId: this.#sessionIdOrThrow(delivery.seatId), promptId });
          const target = evidenceTarget(evidence.kind);
          const moves = target !== null && canTransition(delivery.state, target);
          return this.#write(
            delivery,
            moves ? target : delivery.state,
            evidence,
            evidence.kind === "failed" ? String(evidence.detail ?? evidence.source) : undefined,
          );
        })
        .immediate(),
    );
  }

  /** The delivery with this prompt id, or null. */
  getDelivery(promptId: string): DeliveryRecord | null {
    const row = this.#db.prepare("SELECT * FROM deliveries WHERE prompt_id = ?").get(promptId);
    return row ? rowToDelivery(row, this.path) : null;
  }

  /**
   * The seat and state of the delivery with this prompt id, or null: a cheap read for a caller that decides by
   * state alone (the visible seat's queue evidence and waits, once per event; P4b). A row that does not decode
   * is JOURNAL_CORRUPT, as from getDelivery.
   */
  deliveryState(promptId: string): { seatId: string; state: DeliveryState } | null {
    const row = this.#db.prepare("SELECT seat_id, state FROM deliveries WHERE prompt_id = ?").raw().get(promptId) as
      | [string, string]
      | undefined;
    if (!row) return null;
    if (!(DELIVERY_STATES as readonly string[]).includes(row[1])) return this.getDelivery(promptId);
    return { seatId: row[0], state: row[1] as DeliveryState };
  }

  /** Every delivery of one seat, oldest first (status reporting). */
  listDeliveries(seatId: string): DeliveryRecord[] {
    return this.#db
      .prepare("SELECT * FROM deliveries WHERE seat_id = ? ORDER BY fenced_at, rowid")
      .all(seatId)
      .map((row) => rowToDelivery(row, this.path));
  }

  /** Deliveries not yet final (fenced, dispatched, consumed, uncertain), oldest first, optionally for one seat. */
  openDeliveries(seatId?: string): DeliveryRecord[] {
    const marks = OPEN_STATES.map(() => "?").join(", ");
    const rows =
      seatId === undefined
        ? this.#db
            .prepare(`SELECT * FROM deliveries WHERE state IN (${marks}) ORDER BY fenced_at, rowid`)
            .all(...OPEN_STATES)
        : this.#db
            .prepare(`SELECT * FROM deliveries WHERE seat_id = ? AND state IN (${marks}) ORDER BY fenced_at, rowid`)
            .all(seatId, ...OPEN_STATES);
    return rows.map((row) => rowToDelivery(row, this.path));
  }

  /**
   * After a controller crash: dispatched/consumed deliveries become uncertain and fenced ones become failed
   * ("never dispatched"). Returns both lists for reporting; nothing in them may be re-sent. Idempotent: a row
   * that late evidence moved on after its recovery is not recovered again.
   */
  recoverAfterCrash(seatId?: string): RecoveryReport {
    return this.#retry("recovering after a crash", () =>
      this.#db
        .transaction(() => {
          const report: RecoveryReport = { uncertain: [], neverSent: [] };
          for (const delivery of this.openDeliveries(seatId)) {
            if (delivery.state === "fenced") {
              const reason = "never dispatched: the controller stopped between fence and dispatch";
              report.neverSent.push(
                this.#write(delivery, "failed", { kind: "note", source: "recovery", detail: reason }, reason),
              );
            } else if (delivery.state === "dispatched" || delivery.state === "consumed") {
              // Recovered once already: its later state came from late evidence after the crash, not from a
              // controller that stopped mid-flight; recovering it again would undo that evidence on every status.
              if (delivery.evidence.some((e) => e.source === "recovery")) continue;
              report.uncertain.push(
                this.#write(delivery, "uncertain", {
                  kind: "note",
                  source: "recovery",
                  detail: `was ${delivery.state} with no final result when the controller stopped`,
                }),
              );
            } else {
              report.uncertain.push(delivery);
            }
          }
          return report;
        })
        .immediate(),
    );
  }

  /** The settings this connection runs with, for diagnostics: journal mode, synchronous level (2 = FULL), schema. */
  settings(): { journalMode: string; synchronous: number; schema: string } {
    return {
      journalMode: String(this.#db.pragma("journal_mode", { simple: true })),
      synchronous: Number(this.#db.pragma("synchronous", { simple: true })),
      schema: String(this.#db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get()),
    };
  }

  /** Closes the database (checkpointing the WAL). */
  close(): void {
    this.#db.close();
  }

  /**
   * The SeatError for a fence sqlite refused: the seat is unknown (SEAT_NOT_FOUND), or the prompt id was used
   * before (JOURNAL_STATE_INVALID, naming its state). Any other error is returned as it is.
   */
  #fenceRefusal(error: unknown, input: { seatId: string; promptId: string }): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (code === "SQLITE_CONSTRAINT_FOREIGNKEY") {
      return this.getSeat(input.seatId) ? error : this.#seatNotFound(input.seatId);
    }
    if (code !== "SQLITE_CONSTRAINT_UNIQUE" && code !== "SQLITE_CONSTRAINT_PRIMARYKEY") return error;
    const exists = this.#db.prepare("SELECT state FROM deliveries WHERE prompt_id = ?").pluck().get(input.promptId);
    if (exists === undefined) return error;
    return new SeatError(
      "JOURNAL_STATE_INVALID",
      `Prompt id ${input.promptId} is already in the journal (state ${String(exists)}); choose a fresh prompt id, never reuse one.`,
      {
        context: { promptId: input.promptId, seatId: input.seatId, state: exists },
      },
    );
  }

  #move(promptId: string, to: DeliveryState, evidence: DeliveryEvidence, reason?: string): DeliveryRecord {
    return this.#retry(`moving a delivery to ${to}`, () =>
      this.#db
        .transaction(() => {
          const delivery = this.getDelivery(promptId);
          if (!delivery) {
            throw new SeatError(
              "JOURNAL_STATE_INVALID",
              `No delivery with prompt id ${promptId} is in the journal ${this.path}; fence it first.`,
              { context: { promptId, to } },
            );
          }
          assertTransition(delivery.state, to, promptId);
          return this.#write(delivery, to, evidence, reason);
        })
        .immediate(),
    );
  }

  /** Runs a write, waiting out another process's lock for the bounded wait, then JOURNAL_BUSY. */
  #retry<T>(what: string, work: () => T): T {
    return withBusyRetry(this.path, what, work);
  }

  #write(delivery: DeliveryRecord, to: DeliveryState, evidence: DeliveryEvidence, reason?: string): DeliveryRecord {
    const at = this.#now().toISOString();
    // The stored entries were redacted when written; only the new one needs it (P4b: once per write, not per entry).
    const evidenceJson = JSON.stringify([...delivery.evidence, redact({ ...evidence, at })]);
    const failureReason = to === "failed" && reason !== undefined ? redactText(reason) : null;
    const stamp = to !== delivery.state ? `, ${to}_at = @at` : "";
    this.#db
      .prepare(
        `UPDATE deliveries SET state = @state, evidence = @evidence, failure_reason = COALESCE(@reason, failure_reason), updated_at = @at${stamp} WHERE prompt_id = @prompt_id`,
      )
      .run({ state: to, evidence: evidenceJson, reason: failureReason, at, prompt_id: delivery.promptId });
    // Built from what was written, not read back (P4b): the same values the row now holds, the evidence as it decodes.
    const written: DeliveryRecord = {
      ...delivery,
      state: to,
      evidence: JSON.parse(evidenceJson) as DeliveryEvidence[],
      failureReason: failureReason ?? delivery.failureReason,
      updatedAt: at,
    };
    if (stamp) written[STAMPS[to]] = at;
    return written;
  }

  /**
   * Runs `work` with `synchronous=NORMAL`, then back to FULL. Its commits reach the WAL (they survive a crash of
   * this process) and are fsynced by the next FULL commit or checkpoint, whichever comes first. For writes whose
   * durability a FULL commit right after carries (a fence, before its dispatch mark) or that recovery can do
   * without after a power loss (consumed evidence: the delivery is then recovered as uncertain, never re-sent).
   */
  relaxed<T>(work: () => T): T {
    // Through the statement cache: db.pragma() compiles its statement on every call, and a visible seat's
    // delivery path makes two relaxed writes per brief (P4b).
    this.#db.prepare("PRAGMA synchronous = NORMAL").run();
    try {
      return work();
    } finally {
      this.#db.prepare("PRAGMA synchronous = FULL").run();
    }
  }

  /** The seat's session id (a cheap read: the delivery path needs only that), or SEAT_NOT_FOUND. */
  #sessionIdOrThrow(seatId: string): string {
    const sessionId = this.#db.prepare("SELECT session_id FROM seats WHERE seat_id = ?").pluck().get(seatId);
    if (typeof sessionId !== "string") this.#seatOrThrow(seatId);
    return sessionId as string;
  }

  #seatOrThrow(seatId: string): SeatRecord {
    const seat = this.getSeat(seatId);
    if (!seat) throw this.#seatNotFound(seatId);
    return seat;
  }

  #seatNotFound(seatId: string): SeatError {
    return new SeatError(
      "SEAT_NOT_FOUND",
      `No seat ${seatId} in the journal ${this.path}. List seats with \`seat status\`.`,
      { context: { seatId, path: this.path } },
    );
  }
}

function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

function seatColumns(seat: Partial<SeatRecord> & Partial<NewSeat>) {
  return {
    leader_pid: seat.leaderPid ?? null,
    leader_birth: seat.leaderBirth ?? null,
    leader_exe: seat.leaderExe ?? null,
    leader_socket_inode: seat.leaderSocketInode ?? null,
    tui_pid: seat.tuiPid ?? null,
    tui_birth: seat.tuiBirth ?? null,
    tui_exe: seat.tuiExe ?? null,
    tui_cwd: seat.tuiCwd ?? null,
    tui_tty: seat.tuiTty ?? null,
    mux_descriptor: JSON.stringify(seat.muxDescriptor ?? null),
  };
}

/** Opens (or creates) the journal at `path`: WAL, synchronous=FULL, schema grok-seat.journal.v1. */
export function openJournal(path: string, options: { now?: () => Date } = {}): Journal {
  return new Journal(path, options.now);
}
