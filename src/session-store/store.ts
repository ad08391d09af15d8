/*
 * Session store: the rows of named sessions, their turns and their lease, in the journal's sqlite file.
 * Owns: SQL over named_sessions, session_turns and session_leases (tables added by the journal migration
 *   grok-seat.sessions.v1) and turning rows into records.
 * Does not own: the schema or migrations (journal/), proving a lease holder alive or dead (lease.ts).
 * Invariant: a turn is recorded "running" before its prompt is sent, so a crash leaves evidence, and a
 *   running turn only ever becomes completed, failed or interrupted; a lease changes hands only by
 *   compare-and-swap on the exact row that was judged. Reads never take the write lock; another process's
 *   lock is waited out for a bounded time and then reported JOURNAL_BUSY (journal/busy.ts), never as corruption.
 */
import type Database from "better-sqlite3";
import { SeatError } from "../errors.js";
import { JOURNAL_BUSY_WAIT_MS, openDatabase, withBusyRetry } from "../journal/index.js";
import { redactText } from "../internal/redact.js";
import { GLOBAL_SCOPE } from "../names/index.js";

/** A named session as recorded. */
export interface SessionRecord {
  row: number;
  name: string;
  /** `cwd:<abs path>` or `global`. */
  scope: string;
  agent: string;
  /** Where the agent works (its sessions live there): the scope's directory, or a seat worktree of it. */
  cwd: string;
  /** The agent's own session id; null until the first run created it. */
  agentSessionId: string | null;
  model: string | null;
  state: "open" | "closed";
  createdAt: string;
  lastUsedAt: string;
}

/** How a turn ended (or that it has not). */
export type TurnState = "running" | "completed" | "interrupted" | "failed";

/** One recorded turn. */
export interface TurnRecord {
  promptId: string;
  prompt: string;
  state: TurnState;
  stopReason: string | null;
  usage: Record<string, number> | null;
  text: string;
  errorCode: string | null;
  startedAt: string;
  endedAt: string | null;
}

/** The process holding a session's lease. */
export interface LeaseRecord {
  holderPid: number;
  holderBirth: string;
  holderExe: string | null;
  controlSocket: string | null;
  since: string;
}

type Row = Record<string, unknown>;

/** How long the end of a turn and the release of a lease wait for the write lock: a turn's end is worth waiting for. */
export const END_WAIT_MS = 30_000;

/** Bounded waits of a store (ms): `busyWaitMs` for reads and the writes before a turn, `endWaitMs` for ending it. */
export interface StoreWaits {
  busyWaitMs?: number;
  endWaitMs?: number;
}

const toSession = (r: Row): SessionRecord => ({
  row: Number(r.id),
  name: String(r.name),
  scope: String(r.scope),
  agent: String(r.agent),
  cwd: String(r.cwd),
  agentSessionId: (r.agent_session_id as string | null) ?? null,
  model: (r.model as string | null) ?? null,
  state: r.state as SessionRecord["state"],
  createdAt: String(r.created_at),
  lastUsedAt: String(r.last_used_at),
});

const toTurn = (r: Row): TurnRecord => ({
  promptId: String(r.prompt_id),
  prompt: String(r.prompt),
  state: r.state as TurnState,
  stopReason: (r.stop_reason as string | null) ?? null,
  usage: r.usage ? (JSON.parse(String(r.usage)) as Record<string, number>) : null,
  text: String(r.text ?? ""),
  errorCode: (r.error_code as string | null) ?? null,
  startedAt: String(r.started_at),
  endedAt: (r.ended_at as string | null) ?? null,
});

const toLease = (r: Row): LeaseRecord => ({
  holderPid: Number(r.holder_pid),
  holderBirth: String(r.holder_birth),
  holderExe: (r.holder_exe as string | null) ?? null,
  controlSocket: (r.control_socket as string | null) ?? null,
  since: String(r.since),
});

/** The store handle; synchronous, one connection, many processes (sqlite locking). */
export class SessionStore {
  readonly #db: Database.Database;
  readonly #now: () => string;
  readonly #busyWaitMs: number;
  readonly #endWaitMs: number;

  constructor(
    readonly path: string,
    now: () => Date = () => new Date(),
    waits: StoreWaits = {},
  ) {
    this.#db = openDatabase(path);
    this.#now = () => now().toISOString();
    this.#busyWaitMs = waits.busyWaitMs ?? JOURNAL_BUSY_WAIT_MS;
    this.#endWaitMs = waits.endWaitMs ?? END_WAIT_MS;
  }

  /** Runs `work`, waiting out another process's lock for the store's bounded wait (JOURNAL_BUSY after). */
  #retry<T>(what: string, work: () => T, waitMs = this.#busyWaitMs): T {
    return withBusyRetry(this.path, what, work, waitMs);
  }

  /** The session named `name` in `scope`, or null. */
  find(scope: string, name: string): SessionRecord | null {
    const r = this.#retry(
      "reading a session",
      () =>
        this.#db.prepare("SELECT * FROM named_sessions WHERE scope = ? AND name = ?").get(scope, name) as
          | Row
          | undefined,
    );
    return r ? toSession(r) : null;
  }

  /** Looks `name` up in the cwd scope first, then the global one. */
  resolve(cwdScope: string, name: string): SessionRecord | null {
    return this.find(cwdScope, name) ?? this.find(GLOBAL_SCOPE, name);
  }

  /** Returns the session, creating its row (no agent session yet) when it does not exist. */
  ensure(input: { name: string; scope: string; agent: string; cwd: string; model: string | null }): SessionRecord {
    const existing = this.find(input.scope, input.name);
    if (existing) return existing;
    const at = this.#now();
    this.#retry("creating a session", () =>
      this.#db
        .prepare(
          "INSERT OR IGNORE INTO named_sessions (name, scope, agent, cwd, model, state, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, 'open', ?, ?)",
        )
        .run(input.name, input.scope, input.agent, input.cwd, input.model, at, at),
    );
    return this.find(input.scope, input.name)!;
  }

  /** Every named session, most recently used first. */
  list(): SessionRecord[] {
    return this.#retry(
      "listing sessions",
      () => this.#db.prepare("SELECT * FROM named_sessions ORDER BY last_used_at DESC, id DESC").all() as Row[],
    ).map(toSession);
  }

  /** Records the agent's session id (and model) once the agent created it. */
  bindAgentSession(row: number, agentSessionId: string, model: string | null): void {
    this.#retry("recording the agent session", () =>
      this.#db
        .prepare(
          "UPDATE named_sessions SET agent_session_id = ?, model = COALESCE(?, model), state = 'open', last_used_at = ? WHERE id = ?",
        )
        .run(agentSessionId, model, this.#now(), row),
    );
  }

  /** Marks the session closed (the agent closed it; it is kept for history). */
  markClosed(row: number): void {
    this.#retry("marking a session closed", () =>
      this.#db
        .prepare("UPDATE named_sessions SET state = 'closed', last_used_at = ? WHERE id = ?")
        .run(this.#now(), row),
    );
  }

  /** Deletes the session with its turns and lease. */
  remove(row: number): void {
    this.#retry("removing a session", () => this.#db.prepare("DELETE FROM named_sessions WHERE id = ?").run(row));
  }

  /**
   * Durably records a turn as running, before its prompt is sent. SESSION_PROMPT_ID_REUSED when the prompt id
   * is already in the journal (any session): a prompt id names one turn, ever.
   */
  startTurn(row: number, promptId: string, prompt: string): void {
    const at = this.#now();
    this.#retry("recording a turn before it is sent", () =>
      this.#db
        .transaction(() => {
          const used = this.#db.prepare("SELECT state FROM session_turns WHERE prompt_id = ?").pluck().get(promptId) as
            | string
            | undefined;
          if (used !== undefined) {
            throw new SeatError(
              "SESSION_PROMPT_ID_REUSED",
              `Prompt id ${promptId} already names a turn in the journal (${used}); nothing was sent. Give each turn a fresh prompt id, or none.`,
              { context: { promptId, state: used } },
            );
          }
          this.#db
            .prepare(
              "INSERT INTO session_turns (prompt_id, session_row, prompt, state, started_at) VALUES (?, ?, ?, 'running', ?)",
            )
            .run(promptId, row, redactText(prompt), at);
          this.#db.prepare("UPDATE named_sessions SET last_used_at = ? WHERE id = ?").run(at, row);
        })
        .immediate(),
    );
  }

  /** Ends a running turn; a turn that already ended is left as it is. */
  finishTurn(
    promptId: string,
    end: {
      state: Exclude<TurnState, "running">;
      stopReason?: string;
      usage?: object;
      text: string;
      errorCode?: string;
    },
  ): void {
    this.#retry(
      "recording the end of a turn",
      () =>
        this.#db
          .prepare(
            "UPDATE session_turns SET state = ?, stop_reason = ?, usage = ?, text = ?, error_code = ?, ended_at = ? WHERE prompt_id = ? AND state = 'running'",
          )
          .run(
            end.state,
            end.stopReason ?? null,
            end.usage ? JSON.stringify(end.usage) : null,
            redactText(end.text),
            end.errorCode ?? null,
            this.#now(),
            promptId,
          ),
      this.#endWaitMs,
    );
  }

  /** Marks every still-running turn of the session interrupted (its process was proven dead); returns them. */
  interruptRunning(row: number): TurnRecord[] {
    return this.#retry("marking a dead holder's turns interrupted", () =>
      this.#db
        .transaction(() => {
          const running = (
            this.#db
              .prepare("SELECT * FROM session_turns WHERE session_row = ? AND state = 'running'")
              .all(row) as Row[]
          ).map(toTurn);
          this.#db
            .prepare(
              "UPDATE session_turns SET state = 'interrupted', ended_at = ? WHERE session_row = ? AND state = 'running'",
            )
            .run(this.#now(), row);
          return running.map((t) => ({ ...t, state: "interrupted" as const }));
        })
        .immediate(),
    );
  }

  /** The session's turns, oldest first; with `limit`, only the newest `limit`. */
  turns(row: number, limit?: number): TurnRecord[] {
    const rows = this.#retry("reading turns", () =>
      limit === undefined
        ? (this.#db
            .prepare("SELECT * FROM session_turns WHERE session_row = ? ORDER BY started_at, rowid")
            .all(row) as Row[])
        : (this.#db
            .prepare(
              "SELECT * FROM (SELECT *, rowid AS r FROM session_turns WHERE session_row = ? ORDER BY started_at DESC, rowid DESC LIMIT ?) ORDER BY started_at, r",
            )
            .all(row, limit) as Row[]),
    );
    return rows.map(toTurn);
  }

  /** The lease row, or null when nobody holds the session. */
  lease(row: number): LeaseRecord | null {
    const r = this.#retry(
      "reading a lease",
      () => this.#db.prepare("SELECT * FROM session_leases WHERE session_row = ?").get(row) as Row | undefined,
    );
    return r ? toLease(r) : null;
  }

  /**
   * Takes the lease when it is still exactly `expected` (null = free): compare-and-swap in one immediate
   * transaction, so of two processes that judged the same row only one wins. True when taken.
   */
  takeLease(
    row: number,
    expected: LeaseRecord | null,
    holder: { pid: number; birth: string; exe: string | null },
  ): boolean {
    return this.#retry("taking a lease", () =>
      this.#db
        .transaction(() => {
          const current = this.lease(row);
          const same =
            current === null
              ? expected === null
              : expected !== null &&
                current.holderPid === expected.holderPid &&
                current.holderBirth === expected.holderBirth &&
                current.since === expected.since;
          if (!same) return false;
          this.#db.prepare("DELETE FROM session_leases WHERE session_row = ?").run(row);
          this.#db
            .prepare(
              "INSERT INTO session_leases (session_row, holder_pid, holder_birth, holder_exe, since) VALUES (?, ?, ?, ?, ?)",
            )
            .run(row, holder.pid, holder.birth, holder.exe, this.#now());
          return true;
        })
        .immediate(),
    );
  }

  /** Records where the holder's control socket listens. */
  setControlSocket(row: number, holderPid: number, path: string | null): void {
    this.#retry("recording the control socket", () =>
      this.#db
        .prepare("UPDATE session_leases SET control_socket = ? WHERE session_row = ? AND holder_pid = ?")
        .run(path, row, holderPid),
    );
  }

  /** Releases the lease if `holder` still holds it. */
  releaseLease(row: number, holder: { pid: number; birth: string }): void {
    this.#retry(
      "releasing a lease",
      () =>
        this.#db
          .prepare("DELETE FROM session_leases WHERE session_row = ? AND holder_pid = ? AND holder_birth = ?")
          .run(row, holder.pid, holder.birth),
      this.#endWaitMs,
    );
  }

  /** Closes the database. */
  close(): void {
    this.#db.close();
  }
}
