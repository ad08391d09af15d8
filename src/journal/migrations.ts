/*
 * Journal migrations: additive, versioned changes applied on top of grok-seat.journal.v1 when a file opens.
 * Owns: the ordered migration list (name + DDL) and recording each applied one in `meta`.
 * Does not own: the v1 base layout (schema.ts) or the rows of the tables a migration adds (their owners).
 * Invariant: a migration only adds (tables, indexes); it never renames or drops an existing key, table or
 *   column, so an older grok-seat still opens a migrated file. Each runs once, inside the open transaction,
 *   and is recorded as meta key `migration:<name>` = the time it was applied.
 */
import type Database from "better-sqlite3";

/** One additive schema change, named with its version. */
export interface Migration {
  name: string;
  ddl: string;
}

/** Every migration, oldest first. Never edit a shipped entry: add a new one. */
export const MIGRATIONS: readonly Migration[] = [
  {
    // Named headless sessions (sessions/): one row per name, one per turn, one lease per running session.
    name: "grok-seat.sessions.v1",
    ddl: `
CREATE TABLE named_sessions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  scope TEXT NOT NULL,
  agent TEXT NOT NULL,
  cwd TEXT NOT NULL,
  agent_session_id TEXT,
  model TEXT,
  state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
  created_at TEXT NOT NULL,
  last_used_at TEXT NOT NULL,
  UNIQUE (scope, name)
);
CREATE TABLE session_turns (
  prompt_id TEXT PRIMARY KEY,
  session_row INTEGER NOT NULL REFERENCES named_sessions(id) ON DELETE CASCADE,
  prompt TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'interrupted', 'failed')),
  stop_reason TEXT,
  usage TEXT,
  text TEXT NOT NULL DEFAULT '',
  error_code TEXT,
  started_at TEXT NOT NULL,
  ended_at TEXT
);
CREATE INDEX session_turns_by_session ON session_turns (session_row, started_at);
CREATE TABLE session_leases (
  session_row INTEGER PRIMARY KEY REFERENCES named_sessions(id) ON DELETE CASCADE,
  holder_pid INTEGER NOT NULL,
  holder_birth TEXT NOT NULL,
  holder_exe TEXT,
  control_socket TEXT,
  since TEXT NOT NULL
);
`,
  },
  {
    // The usage ledger (usage/): one row per turn and model; a NULL is what the agent did not report, never zero.
    name: "grok-seat.usage.v1",
    ddl: `
CREATE TABLE IF NOT EXISTS usage_ledger (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('run', 'session', 'job')),
  agent TEXT NOT NULL,
  session_name TEXT,
  session_row INTEGER,
  job_id TEXT,
  prompt_id TEXT NOT NULL,
  model TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cached_tokens INTEGER,
  reasoning_tokens INTEGER,
  model_calls INTEGER,
  cost_usd_ticks INTEGER,
  stop_reason TEXT
);
CREATE INDEX IF NOT EXISTS usage_ledger_by_time ON usage_ledger (recorded_at);
CREATE INDEX IF NOT EXISTS usage_ledger_by_session ON usage_ledger (session_row);
CREATE TABLE IF NOT EXISTS session_budgets (
  session_row INTEGER PRIMARY KEY REFERENCES named_sessions(id) ON DELETE CASCADE,
  max_tokens INTEGER,
  max_cost_usd REAL,
  set_at TEXT NOT NULL
);
`,
  },
  {
    // A visible seat's deliveries join the ledger (source 'seat'): SQLite cannot widen a CHECK in place, so the
    // table is rebuilt with the same columns, rows and ids (AUTOINCREMENT's counter follows the rename).
    name: "grok-seat.usage.v2",
    ddl: `
CREATE TABLE usage_ledger_v2 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  recorded_at TEXT NOT NULL,
  source TEXT NOT NULL CHECK (source IN ('run', 'session', 'job', 'seat')),
  agent TEXT NOT NULL,
  session_name TEXT,
  session_row INTEGER,
  job_id TEXT,
  prompt_id TEXT NOT NULL,
  model TEXT,
  input_tokens INTEGER,
  output_tokens INTEGER,
  cached_tokens INTEGER,
  reasoning_tokens INTEGER,
  model_calls INTEGER,
  cost_usd_ticks INTEGER,
  stop_reason TEXT
);
INSERT INTO usage_ledger_v2 SELECT id, recorded_at, source, agent, session_name, session_row, job_id, prompt_id, model, input_tokens, output_tokens, cached_tokens, reasoning_tokens, model_calls, cost_usd_ticks, stop_reason FROM usage_ledger;
DROP TABLE usage_ledger;
ALTER TABLE usage_ledger_v2 RENAME TO usage_ledger;
CREATE INDEX IF NOT EXISTS usage_ledger_by_time ON usage_ledger (recorded_at);
CREATE INDEX IF NOT EXISTS usage_ledger_by_session ON usage_ledger (session_row);
`,
  },
  {
    // How each row was known (metering/side-calls.ts): 'agent' (its report), 'proxy' (the seat's metering point read
    // the model's answer: a call the agent did not report) or 'estimated'. Older rows stay NULL (the agent's).
    name: "grok-seat.usage.v3",
    ddl: `
ALTER TABLE usage_ledger ADD COLUMN metered TEXT CHECK (metered IS NULL OR metered IN ('agent', 'proxy', 'estimated'));
`,
  },
];

/**
 * True when some migration is not yet recorded in `meta` (a read: no lock beyond a WAL snapshot).
 * @internal better-sqlite3's types are a devDependency: stripped from the published .d.ts.
 */
export function hasPendingMigrations(db: Database.Database): boolean {
  return MIGRATIONS.some(
    (m) => db.prepare("SELECT 1 FROM meta WHERE key = ?").get(`migration:${m.name}`) === undefined,
  );
}

/**
 * Applies every migration not yet recorded in `meta`; call inside the open transaction.
 * @internal better-sqlite3's types are a devDependency: stripped from the published .d.ts.
 */
export function applyMigrations(db: Database.Database, now: () => Date = () => new Date()): string[] {
  const applied: string[] = [];
  for (const migration of MIGRATIONS) {
    const key = `migration:${migration.name}`;
    if (db.prepare("SELECT 1 FROM meta WHERE key = ?").get(key) !== undefined) continue;
    db.exec(migration.ddl);
    db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run(key, now().toISOString());
    applied.push(migration.name);
  }
  return applied;
}
