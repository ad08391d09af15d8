/*
 * Journal schema: the sqlite layout of grok-seat.journal.v1 and the checks made when a file is opened.
 * Owns: pragmas (WAL, synchronous=FULL), DDL, and refusing files with an unknown or missing schema.
 * Does not own: reading or writing rows (journal.ts).
 * Invariant: a file is either empty (we create v1), or carries meta.schema = grok-seat.journal.v1;
 *   anything else is JOURNAL_CORRUPT and is never modified. An existing v1 file only ever gains: the nullable
 *   seats.leader_socket_inode column when it lacks it, then the additive migrations (migrations.ts).
 *   Opening a current file takes no write lock.
 */
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import { SeatError } from "../errors.js";
import { DELIVERY_STATES } from "./states.js";
import { applyMigrations, hasPendingMigrations } from "./migrations.js";
import { SQLITE_BUSY_TIMEOUT_MS, withBusyRetry } from "./busy.js";

/** The versioned schema name stored in the meta table. */
export const JOURNAL_SCHEMA = "grok-seat.journal.v1";

/** Seat lifecycle states as stored in `seats.state`. */
export const SEAT_STATES = ["hiring", "active", "releasing", "released"] as const;

const inList = (values: readonly string[]) => values.map((v) => `'${v}'`).join(", ");

const DDL = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE seats (
  seat_id TEXT PRIMARY KEY,
  session_id TEXT NOT NULL,
  socket_path TEXT NOT NULL,
  leader_pid INTEGER, leader_birth TEXT, leader_exe TEXT, leader_socket_inode INTEGER,
  tui_pid INTEGER, tui_birth TEXT, tui_exe TEXT, tui_cwd TEXT, tui_tty TEXT,
  mux_descriptor TEXT NOT NULL DEFAULT 'null',
  state TEXT NOT NULL CHECK (state IN (${inList(SEAT_STATES)})),
  created_at TEXT NOT NULL,
  released_at TEXT
);
CREATE TABLE deliveries (
  delivery_id TEXT PRIMARY KEY,
  seat_id TEXT NOT NULL REFERENCES seats(seat_id),
  prompt_id TEXT NOT NULL UNIQUE,
  text TEXT NOT NULL,
  text_sha256 TEXT NOT NULL,
  text_length INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN (${inList(DELIVERY_STATES)})),
  evidence TEXT NOT NULL DEFAULT '[]',
  failure_reason TEXT,
  fenced_at TEXT NOT NULL,
  dispatched_at TEXT, consumed_at TEXT, completed_at TEXT, uncertain_at TEXT, failed_at TEXT, submitted_at TEXT,
  updated_at TEXT NOT NULL
);
CREATE INDEX deliveries_by_seat_state ON deliveries (seat_id, state);
`;

function corrupt(path: string, why: string, cause?: unknown): SeatError {
  return new SeatError(
    "JOURNAL_CORRUPT",
    `The journal at ${path} ${why}. Move it aside and let grok-seat create a new one; do not edit it by hand.`,
    {
      context: { path, expectedSchema: JOURNAL_SCHEMA },
      cause,
    },
  );
}

// better-sqlite3 (a native addon) is required when the first file is opened, not at import: `import "grok-seat"`
// stays light and openDatabase stays synchronous.
const require = createRequire(import.meta.url);

/**
 * Checks the schema (JOURNAL_CORRUPT when it is not ours) and says whether the file needs writing: created
 * (empty), the seats.leader_socket_inode column added, or a migration applied.
 */
function inspect(db: Database.Database, path: string): boolean {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) return true;
  if (!tables.includes("meta")) throw corrupt(path, `has tables (${tables.join(", ")}) but no meta table`);
  const schema = db.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get();
  if (schema !== JOURNAL_SCHEMA)
    throw corrupt(path, `has schema ${JSON.stringify(schema ?? null)}, not ${JOURNAL_SCHEMA}`);
  for (const table of ["seats", "deliveries"])
    if (!tables.includes(table)) throw corrupt(path, `is missing the ${table} table`);
  const columns = db.prepare("SELECT name FROM pragma_table_info('seats')").pluck().all() as string[];
  return !columns.includes("leader_socket_inode") || hasPendingMigrations(db);
}

/** Creates v1, or brings an existing v1 file up to date; call inside an immediate transaction. */
function upgrade(db: Database.Database): void {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[];
  if (tables.length === 0) {
    db.exec(DDL);
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(JOURNAL_SCHEMA);
    applyMigrations(db);
    return;
  }
  // Additive within v1: a journal written before the leader's socket inode was recorded gains the column (NULL = not recorded).
  const columns = db.prepare("SELECT name FROM pragma_table_info('seats')").pluck().all() as string[];
  if (!columns.includes("leader_socket_inode")) db.exec("ALTER TABLE seats ADD COLUMN leader_socket_inode INTEGER");
  applyMigrations(db);
}

/**
 * Opens (or creates) the sqlite file with WAL and synchronous=FULL, creating or verifying schema v1.
 * A current file is only read (WAL readers never wait for a writer), so opening to read works while another
 * process writes; the write lock is taken only to create or migrate the file. A lock held past the bounded
 * wait is JOURNAL_BUSY, never JOURNAL_CORRUPT.
 * @internal better-sqlite3's types are a devDependency: stripped from the published .d.ts.
 */
export function openDatabase(path: string): Database.Database {
  let db: Database.Database;
  try {
    const Sqlite = require("better-sqlite3") as typeof Database;
    db = new Sqlite(path);
  } catch (cause) {
    throw corrupt(path, "could not be opened as sqlite", cause);
  }
  try {
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    withBusyRetry(path, "opening it", () => db.pragma("journal_mode = WAL"));
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    if (withBusyRetry(path, "reading its schema", () => db.transaction(() => inspect(db, path))())) {
      withBusyRetry(path, "creating or migrating its schema", () =>
        db
          .transaction(() => {
            if (inspect(db, path)) upgrade(db);
          })
          .immediate(),
      );
    }
  } catch (err) {
    db.close();
    if (err instanceof SeatError) throw err;
    throw corrupt(path, "is not a readable sqlite database", err);
  }
  return db;
}
