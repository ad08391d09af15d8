/*
 * Journal records: the camelCase shapes of seat and delivery rows, and the mapping from snake_case rows.
 * Owns: SeatRecord, DeliveryRecord, NewSeat, SeatPatch and row validation on read.
 * Does not own: SQL (schema.ts, journal.ts).
 * Invariant: a row that does not decode (bad JSON, unknown state) is JOURNAL_CORRUPT, never guessed at.
 */
import { SeatError } from "../errors.js";
import { DELIVERY_STATES, type DeliveryEvidence, type DeliveryState } from "./states.js";
import { SEAT_STATES } from "./schema.js";

/** A seat's lifecycle state. */
export type SeatState = (typeof SEAT_STATES)[number];

/** Proof fields bound to a seat; births are strings so clock ticks and macOS times both fit. */
export interface SeatProof {
  leaderPid?: number | null;
  leaderBirth?: string | null;
  leaderExe?: string | null;
  /** The listening socket inode the proven leader held (Linux); null when not recorded. */
  leaderSocketInode?: number | null;
  tuiPid?: number | null;
  tuiBirth?: string | null;
  tuiExe?: string | null;
  tuiCwd?: string | null;
  tuiTty?: string | null;
  /** The multiplexer's description of the pane (backend, session, pane id ...), stored as JSON. */
  muxDescriptor?: unknown;
}

/** What createSeat needs. */
export interface NewSeat extends SeatProof {
  seatId: string;
  sessionId: string;
  socketPath: string;
  state?: SeatState;
}

/** Fields updateSeat may change. */
export interface SeatPatch extends SeatProof {
  state?: SeatState;
}

/** One row of `seats`. */
export interface SeatRecord extends Required<SeatProof> {
  seatId: string;
  sessionId: string;
  socketPath: string;
  state: SeatState;
  createdAt: string;
  releasedAt: string | null;
}

/** One row of `deliveries`; `text` is the owner's brief as fenced. */
export interface DeliveryRecord {
  deliveryId: string;
  seatId: string;
  promptId: string;
  text: string;
  textSha256: string;
  /** Length of `text` in UTF-8 bytes. */
  textLength: number;
  state: DeliveryState;
  evidence: DeliveryEvidence[];
  failureReason: string | null;
  fencedAt: string;
  dispatchedAt: string | null;
  consumedAt: string | null;
  completedAt: string | null;
  uncertainAt: string | null;
  failedAt: string | null;
  submittedAt: string | null;
  updatedAt: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a SQLite row; each reader checks the columns it takes (corruptRow otherwise).
type Row = Record<string, any>;

function corruptRow(path: string, table: string, key: string, why: string, cause?: unknown): SeatError {
  return new SeatError(
    "JOURNAL_CORRUPT",
    `Row ${key} of ${table} in the journal ${path} ${why}. Move the journal aside; do not edit it by hand.`,
    {
      context: { path, table, key },
      cause,
    },
  );
}

function parseJson(text: string, path: string, table: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw corruptRow(path, table, key, "holds JSON that does not parse", cause);
  }
}

/** Decodes a `seats` row. */
export function rowToSeat(row: unknown, path: string): SeatRecord {
  const r = row as Row;
  if (!(SEAT_STATES as readonly string[]).includes(r.state))
    throw corruptRow(path, "seats", r.seat_id, `has unknown state ${r.state}`);
  return {
    seatId: r.seat_id,
    sessionId: r.session_id,
    socketPath: r.socket_path,
    leaderPid: r.leader_pid,
    leaderBirth: r.leader_birth,
    leaderExe: r.leader_exe,
    leaderSocketInode: r.leader_socket_inode ?? null,
    tuiPid: r.tui_pid,
    tuiBirth: r.tui_birth,
    tuiExe: r.tui_exe,
    tuiCwd: r.tui_cwd,
    tuiTty: r.tui_tty,
    muxDescriptor: parseJson(r.mux_descriptor, path, "seats", r.seat_id),
    state: r.state,
    createdAt: r.created_at,
    releasedAt: r.released_at,
  };
}

/** Decodes a `deliveries` row. */
export function rowToDelivery(row: unknown, path: string): DeliveryRecord {
  const r = row as Row;
  if (!(DELIVERY_STATES as readonly string[]).includes(r.state))
    throw corruptRow(path, "deliveries", r.prompt_id, `has unknown state ${r.state}`);
  const evidence = parseJson(r.evidence, path, "deliveries", r.prompt_id);
  if (!Array.isArray(evidence)) throw corruptRow(path, "deliveries", r.prompt_id, "has evidence that is not a list");
  return {
    deliveryId: r.delivery_id,
    seatId: r.seat_id,
    promptId: r.prompt_id,
    text: r.text,
    textSha256: r.text_sha256,
    textLength: r.text_length,
    state: r.state,
    evidence: evidence as DeliveryEvidence[],
    failureReason: r.failure_reason,
    fencedAt: r.fenced_at,
    dispatchedAt: r.dispatched_at,
    consumedAt: r.consumed_at,
    completedAt: r.completed_at,
    uncertainAt: r.uncertain_at,
    failedAt: r.failed_at,
    submittedAt: r.submitted_at,
    updatedAt: r.updated_at,
  };
}
