/*
 * openSession: a named headless session — created on first use, resumed (the exact agent session) after.
 * Owns: the order lease → beforeStart (e.g. the worktree) → interrupted-turn marking → create or resume →
 *   control socket, recording each turn around prompt(), and giving the lease back on dispose.
 * Does not own: the agent process and ACP (runtime/), the rows (session-store/store.ts), the lease rules
 *   (session-store/lease.ts).
 * Invariant: a recorded agent session is only ever resumed, never silently replaced by a fresh one
 *   (SESSION_NOT_RESUMABLE instead); a turn is recorded "running" before its prompt is sent and is never
 *   re-sent by anyone (a turn that cannot be recorded is not sent); at most one process holds a name's lease;
 *   prompt() resolves, never rejects: a journal failure in a turn is the resolved turn's diagnostic.
 * Spec: docs/sessions.md.
 */
import { randomUUID } from "node:crypto";
import { join, resolve } from "node:path";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import {
  agentLabel,
  createSession,
  promptText,
  type HeadlessSession,
  type PromptInput,
  type SessionOptions,
} from "../runtime/index.js";
import { ensurePrivateDir, journalPath, seatHome } from "../home/index.js";
import type { IdentitySource } from "../identity/index.js";
import type { Diagnostic, PromptOptions, TurnResult } from "../acp/index.js";
import { acquireLease, type HeldLease } from "../session-store/index.js";
import { assertSessionName, scopeFor } from "../names/index.js";
import { planControlSocket, type ControlServer } from "../control/index.js";
import { startTurnControl } from "../turn-control/index.js";
import { SessionStore, type SessionRecord, type TurnRecord } from "../session-store/index.js";
import { recordApprovalsIn } from "../approvals/index.js";
import { ledgerEntriesOf, nextTurnBudget, readSessionBudget, recordUsage, setSessionBudget } from "../usage/index.js";
import { budgetProblem, type TurnBudget } from "../metering/index.js";

/** Options of openSession: a name plus everything createSession takes. */
export interface OpenSessionOptions extends SessionOptions {
  /** The session's name (per cwd unless `global`). */
  name: string;
  /** The agent profile (agents/); "custom" is recorded for `agentCommand`. A session continues only on its own agent. */
  agent?: string;
  /** A name shared by every directory instead of one per cwd. */
  global?: boolean;
  /**
   * The directory the name belongs to (its per-directory scope) when the agent works elsewhere — in a seat worktree
   * of it. Default: `cwd`. A session recorded before this option existed, under its worktree's path, is found under
   * `cwd` too (and keeps working there).
   */
  scopeDir?: string;
  /** Queue behind a running turn for up to this long (ms) instead of failing SESSION_BUSY at once. */
  waitMs?: number;
  /** The seat home holding the journal. Default: $GROK_SEAT_HOME or ~/.grok-seat. */
  home?: string;
  /** Where kernel facts come from (tests). Default: this platform's. */
  identitySource?: IdentitySource;
  /**
   * The budget of the whole session, recorded with it (replacing any recorded one): each turn is refused before
   * anything is sent once the session's recorded turns have spent it, and otherwise runs with what is left as its
   * turn budget (docs/spend.md). An invalid budget rejects with SESSION_BUDGET_INVALID before anything starts.
   */
  sessionBudget?: TurnBudget;
  /**
   * Runs once the lease is held, before anything is recorded or any agent starts (the CLI makes the session's
   * worktree here, so a run queued with `waitMs` touches it only after the holder is done). A throw releases the
   * lease and rejects openSession with it.
   */
  beforeStart?: () => Promise<void>;
}

/** What openSession returns: the session and whether it continued an earlier one. */
export interface OpenedSession {
  /** The same HeadlessSession createSession returns; its turns are recorded, dispose() frees the name. */
  session: HeadlessSession;
  /** True when the recorded agent session was resumed; false when it was created now. */
  resumed: boolean;
  /** The record as it stands after opening. */
  record: SessionRecord;
  /** Turns a dead holder left running, now marked interrupted (never re-sent). */
  interrupted: TurnRecord[];
}

/** Plain text of a prompt for the history (content blocks: their text parts). */
/** A journal failure as a diagnostic: its own code when it is ours (JOURNAL_BUSY, …), else `fallback`. */
function journalDiagnostic(error: unknown, fallback: Diagnostic["code"], what: string): Diagnostic {
  if (isSeatError(error)) return { code: error.code, message: error.message };
  return { code: fallback, message: `${what}: ${messageOf(error)} [${fallback}]` };
}

class NamedSession implements HeadlessSession {
  #closing: Promise<{ survivors: number[] }> | undefined;
  constructor(
    readonly inner: HeadlessSession,
    readonly store: SessionStore,
    readonly row: number,
    readonly lease: HeldLease,
    readonly control: ControlServer | undefined,
    readonly report: (diagnostic: Diagnostic) => void,
    /** Who the ledger rows of this session's turns name. */
    readonly ledger: { name: string; agent: string; model?: string; turnBudget?: TurnBudget },
  ) {}
  get id() {
    return this.inner.id;
  }
  get state() {
    return this.inner.state;
  }
  get model() {
    return this.inner.model;
  }
  get laneMarker() {
    return this.inner.laneMarker;
  }
  get diagnostics() {
    return this.inner.diagnostics;
  }
  get audit() {
    return this.inner.audit;
  }
  get agent() {
    return this.inner.agent;
  }
  attention() {
    return this.inner.attention();
  }
  cancel() {
    return this.inner.cancel();
  }

  async prompt(input: PromptInput, options: PromptOptions = {}): Promise<TurnResult> {
    if (this.inner.state !== "ready" || this.#closing) return this.inner.prompt(input, options);
    const promptId = options.promptId ?? `seat-${randomUUID()}`;
    // A session budget is checked before anything is recorded or sent, and what is left bounds this turn.
    let sessionBudget: ReturnType<typeof readSessionBudget>;
    try {
      sessionBudget = readSessionBudget(this.store.path, this.row);
    } catch (error) {
      const diagnostic = journalDiagnostic(
        error,
        "JOURNAL_WRITE_FAILED",
        "The session's budget could not be read; nothing was sent",
      );
      this.report(diagnostic);
      return { promptId, text: "", echoed: false, diagnostic };
    }
    if (sessionBudget.budget) {
      const next = nextTurnBudget(sessionBudget.budget, sessionBudget.spent, options.budget ?? this.ledger.turnBudget);
      if ("refusal" in next) {
        const diagnostic: Diagnostic = { code: "BUDGET_EXCEEDED", message: next.refusal };
        this.report(diagnostic);
        return { promptId, text: "", echoed: false, diagnostic };
      }
      options = { ...options, budget: next.budget };
    }
    try {
      this.store.startTurn(this.row, promptId, promptText(input));
    } catch (error) {
      // Not recorded, so not sent: the invariant is "running before sent", and nothing ran.
      const diagnostic = journalDiagnostic(
        error,
        "JOURNAL_WRITE_FAILED",
        "The turn could not be recorded before sending; nothing was sent",
      );
      this.report(diagnostic);
      return { promptId, text: "", echoed: false, diagnostic };
    }
    const result = await this.inner.prompt(input, { ...options, promptId });
    const state =
      result.stopReason === "cancelled"
        ? "interrupted"
        : result.stopReason === undefined && result.diagnostic
          ? "failed"
          : "completed";
    try {
      this.store.finishTurn(promptId, {
        state,
        text: result.text,
        ...(result.stopReason ? { stopReason: result.stopReason } : {}),
        ...(result.usage ? { usage: result.usage } : {}),
        ...(result.diagnostic ? { errorCode: result.diagnostic.code } : {}),
      });
    } catch (error) {
      // The turn ran; only its record is missing. Say so with its own code (a busy code would invite a re-send),
      // keeping the turn's own diagnostic when it has one.
      const cause = isSeatError(error) ? error.message : messageOf(error);
      const diagnostic: Diagnostic = {
        code: "SESSION_TURN_UNRECORDED",
        message: `Turn ${promptId} ended (${result.stopReason ?? result.diagnostic?.code ?? "no stop reason"}) but the journal could not record it: ${cause}. It stays "running" in the history until the next run reclaims the session; it was not and will not be re-sent. [SESSION_TURN_UNRECORDED]`,
      };
      this.report(diagnostic);
      return result.diagnostic ? result : { ...result, diagnostic };
    }
    try {
      recordUsage(
        this.store.path,
        ledgerEntriesOf(result, {
          source: "session",
          agent: this.ledger.agent,
          session: this.ledger.name,
          sessionRow: this.row,
          ...(this.ledger.model ? { model: this.ledger.model } : {}),
        }),
      );
    } catch (error) {
      // The turn and its record stand; only its ledger row is missing, and the turn's own record keeps its usage.
      this.report(
        journalDiagnostic(error, "JOURNAL_WRITE_FAILED", `Turn ${promptId}'s usage could not be added to the ledger`),
      );
    }
    return result;
  }

  dispose(): Promise<{ survivors: number[] }> {
    this.#closing ??= (async () => {
      const result = await this.inner.dispose();
      await this.control?.close();
      try {
        this.lease.release();
      } catch (error) {
        // Still ours on the row; once this process is gone the next run proves it dead and reclaims it.
        this.report(journalDiagnostic(error, "JOURNAL_WRITE_FAILED", "The session's lease could not be released"));
      }
      this.store.close();
      return result;
    })();
    return this.#closing;
  }
}

/**
 * The held-approvals option of named session `name`: its approvals are owned by `named-session` `name`, whoever
 * opens it (`seat run -s`, the MCP run tool, a library caller), so `seat approvals` and `seat ps` name it alike.
 * A fleet job's owner (`job`) is kept: its approvals are answered through Redis by the job's id.
 */
export function namedSessionApprovals(
  approvals: SessionOptions["approvals"],
  name: string,
): SessionOptions["approvals"] {
  if (!approvals) return approvals;
  const config = approvals === true ? {} : approvals;
  if (config.owner?.kind === "job") return approvals;
  return { ...config, owner: { kind: "named-session", name } };
}

/** The journal's store for `home` (created private when missing). */
export function openStore(home: string): SessionStore {
  ensurePrivateDir(home);
  return new SessionStore(journalPath(home));
}

/**
 * Opens the named session: takes its lease (SESSION_BUSY, or waits `waitMs`), then resumes the recorded
 * agent session or creates one. Rejects with SESSION_BUSY / SESSION_NOT_RESUMABLE / SESSION_NAME_INVALID
 * before leaving anything running; other start failures resolve a dead session (as createSession does).
 */
export async function openSession(options: OpenSessionOptions): Promise<OpenedSession> {
  assertSessionName(options.name);
  const budgetInvalid = options.sessionBudget === undefined ? undefined : budgetProblem(options.sessionBudget);
  if (budgetInvalid)
    throw new SeatError(
      "SESSION_BUDGET_INVALID",
      `Named session "${options.name}": the session ${budgetInvalid}. Nothing was started.`,
      { context: { name: options.name } },
    );
  const agent = agentLabel(options);
  const cwd = resolve(options.cwd ?? process.cwd());
  const home = options.home ?? seatHome(options.env ?? process.env);
  const controlPlace = planControlSocket(home);
  // Held approvals leave a record beside the socket's home, so an answer after this run ends hears APPROVAL_EXPIRED.
  recordApprovalsIn(join(home, "approvals"));
  const store = openStore(home);
  let lease: HeldLease | undefined;
  let control: ControlServer | undefined;
  let inner: HeadlessSession | undefined;
  try {
    const scopeDir = resolve(options.scopeDir ?? cwd);
    const scope = scopeFor(scopeDir, options.global === true);
    // Named from the caller's directory; one recorded under its worktree's path (before scopeDir) is found there.
    const legacyScope = options.global !== true && scopeDir !== cwd ? scopeFor(cwd, false) : undefined;
    let record =
      store.find(scope, options.name) ??
      (legacyScope ? store.find(legacyScope, options.name) : null) ??
      store.ensure({ name: options.name, scope, agent, cwd, model: options.model ?? null });
    if (scopeDir !== cwd && record.cwd !== cwd) {
      // The agent keeps its session where it made it (grok stores sessions per directory): it cannot move.
      throw new SeatError(
        "SESSION_NOT_RESUMABLE",
        `Named session "${options.name}" works in ${record.cwd}, not ${cwd}; run it there (seat run -s ${options.name} without --worktree, or with the worktree it made), or use another name. Nothing was started.`,
        { context: { name: options.name, recordedCwd: record.cwd, cwd } },
      );
    }
    if (record.agent !== agent) {
      throw new SeatError(
        "SESSION_NOT_RESUMABLE",
        `Named session "${options.name}" belongs to agent ${record.agent}, not ${agent}; run it with --agent ${record.agent}, or seat sessions rm ${options.name} first. Nothing was started.`,
        { context: { name: options.name, recordedAgent: record.agent, agent } },
      );
    }
    lease = await acquireLease(store, record, {
      ...(options.waitMs ? { waitMs: options.waitMs } : {}),
      ...(options.identitySource ? { source: options.identitySource } : {}),
    });
    await options.beforeStart?.();
    const interrupted = store.interruptRunning(record.row);
    if (options.sessionBudget) setSessionBudget(store.path, record.row, options.sessionBudget);
    record = store.find(record.scope, options.name)!;
    const resumeId = record.agentSessionId;
    const model = options.model ?? record.model ?? undefined;
    const {
      name: _n,
      global: _g,
      scopeDir: _d,
      waitMs: _w,
      home: _h,
      identitySource: _i,
      sessionBudget: _b,
      beforeStart: _s,
      ...sessionOptions
    } = options;
    const approvals = namedSessionApprovals(sessionOptions.approvals, options.name);
    inner = await createSession({
      ...sessionOptions,
      ...(approvals ? { approvals } : {}),
      cwd: record.cwd,
      ...(model ? { model } : {}),
      ...(resumeId ? { resume: { sessionId: resumeId } } : {}),
    });
    if (inner.state !== "ready") {
      const diagnostic = inner.diagnostics[0];
      if (diagnostic?.code === "SESSION_NOT_RESUMABLE") {
        throw new SeatError(
          "SESSION_NOT_RESUMABLE",
          `${diagnostic.message.replace(/ \[SESSION_NOT_RESUMABLE\]$/, "")} (named session "${options.name}"; nothing was started in its place).`,
          { context: { name: options.name, agentSessionId: resumeId } },
        );
      }
    } else {
      if (!resumeId) store.bindAgentSession(record.row, inner.id!, options.model ?? null);
      // The socket also serves this process's held approvals (seat approvals / approve / deny) and the typed state.
      control = await startTurnControl(controlPlace, inner, {
        kind: "named-session",
        name: options.name,
        agent: record.agent,
        cwd: record.cwd,
      });
      store.setControlSocket(record.row, lease.holder.pid, control.path);
    }
    record = store.find(record.scope, options.name)!;
    const report = (diagnostic: Diagnostic) =>
      void Promise.resolve(options.callbacks?.onEvent?.({ type: "diagnostic", diagnostic })).catch(() => undefined);
    return {
      session: new NamedSession(inner, store, record.row, lease, control, report, {
        name: options.name,
        agent: record.agent,
        ...(record.model ? { model: record.model } : {}),
        ...(options.budget ? { turnBudget: options.budget } : {}),
      }),
      resumed: resumeId !== null && inner.state === "ready",
      record,
      interrupted,
    };
  } catch (error) {
    await inner?.dispose();
    await control?.close();
    lease?.release();
    store.close();
    throw error;
  }
}
