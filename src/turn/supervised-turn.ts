/*
 * The supervised turn: the one recipe every door runs — `seat run`, `seat run -s`, the MCP `run` tool, fleet jobs,
 *   `seat compare` and a library caller. A person can follow and steer it from another shell: the agent session
 *   (fresh, or a named one through sessions/ with its lease, journal and session budget), the control socket with the
 *   typed state (`seat ps`, `seat cancel`, `seat approvals/approve/deny`), held approvals, the usage ledger and the
 *   turn budget, the worktree (take, commit after the agent is gone, release) and notifications.
 * Owns: the order of those parts, in three steps — prepareSupervisedTurn (checks everything a caller can get wrong,
 *   changes nothing), open (takes the worktree, starts the session and its socket), send (the turn) — and close,
 *   which tears them down in one order on every way a turn ends.
 * Does not own: any part itself (sessions/, worktrees/, usage/, notify/, the control socket), nor how a door prints
 *   or reports (cli/, mcp/, fleet/ say it in their own words).
 * Invariant: close() disposes the agent before the turn's worktree is committed, closes the control socket after
 *   the agent, releases the worktree lock on every way out, and delivers (or gives up on) notifications within its
 *   grace; a turn that was sent is recorded in the ledger, cancelled or not; nothing is sent by open() or close().
 * Spec: docs/supervision.md.
 */
import { resolve } from "node:path";
import type { Diagnostic, PromptOptions, SeatEvent, TurnResult } from "../acp/index.js";
import { isSeatError, messageOf } from "../errors.js";
import {
  agentLabel,
  createSession,
  promptText,
  type HeadlessSession,
  type PromptInput,
  type SessionOptions,
} from "../runtime/index.js";
import { seatHome } from "../home/index.js";
import type { ControlServer } from "../control/index.js";
import { planRunControl, startRunControl, type RunControlPlan } from "../turn-control/index.js";
// Types only: a named session, a worktree and notifications load only for a turn that uses them.
import type { OpenedSession } from "../sessions/index.js";
import type { TurnBudget } from "../metering/index.js";
import type { TurnWorktree, TurnWorktreePlan, WorktreeRecord } from "../worktrees/index.js";
import type { DeliveryOutcome } from "../notify/index.js";
import type { NotifySubject, NotifyTarget } from "../notify-config/index.js";
import { loadLedger, recordTurnUsage, type TurnLedger } from "./turn-ledger.js";
import { startTurnNotifier, type TurnNotifier } from "./turn-notifier.js";

/** Options of a supervised turn: everything createSession takes, plus the parts a person supervises it through. */
export interface SupervisedTurnOptions extends SessionOptions {
  /**
   * Continue (or create on first use) the named session: its lease (one turn at a time), its journal, its session
   * budget and its earlier worktree. Without it the turn runs in a fresh session.
   */
  named?: {
    name: string;
    /** A name shared by every directory instead of one per cwd. */
    global?: boolean;
    /** Queue behind a running turn for up to this long (ms) instead of failing SESSION_BUSY at once. */
    waitMs?: number;
    /** The budget of the whole session, recorded with it (docs/spend.md). */
    sessionBudget?: TurnBudget;
  };
  /**
   * Work in a seat worktree of the repository containing `cwd`: `name` (absent or "" = the session's name, else a
   * fresh `run-…` name), from `base`, or an existing `seat/<name>` branch with `reuse`; or a plan the caller made
   * (planTurnWorktree, or a record it made itself). Committed after each turn, never in the caller's tree.
   * `false`: no worktree, not even a named session's earlier one (a fleet job works where its spec says).
   */
  worktree?: { name?: string; base?: string; reuse?: boolean } | TurnWorktreePlan | false;
  /** Serve the control socket (default true). A fleet job is steered through Redis instead. */
  control?: boolean;
  /**
   * What a fresh session's ledger rows name (default `{ source: "run" }`); a named session records its own turns
   * (source `session`).
   */
  ledger?: TurnLedger;
  /** Tell these notification targets when an approval waits and when the turn ends (notify/). */
  notify?: {
    targets: readonly NotifyTarget[];
    /** An interactive terminal to ring (BEL, OSC 9/777). */
    terminal?: { write(text: string): unknown };
    /** What the notifications are about. Default: the named session, else `{ kind: "run", id: <session id> }`. */
    subject?: NotifySubject;
    /** Approve/Deny links from a `seat board` serving this seat home (default true). */
    links?: boolean;
    /** How long close() waits for deliveries still in flight (ms, default 3000). */
    closeGraceMs?: number;
  };
  /** The seat home (journal, sockets, worktrees). Default: $GROK_SEAT_HOME or ~/.grok-seat. */
  home?: string;
  /** Called once the worktree is taken (made or reused, and locked), before the agent starts. */
  onWorktree?(record: WorktreeRecord): void;
}

/** A supervised turn checked and planned; nothing has started. */
export interface PreparedTurn {
  /** Where the agent will work: the worktree's directory, else `cwd`. */
  readonly cwd: string;
  /**
   * Takes the worktree, starts (or resumes) the session and its control socket. Rejects — leaving nothing running —
   * with SESSION_BUSY, SESSION_NOT_RESUMABLE, SESSION_BUDGET_INVALID or a worktree's code (WORKTREE_BUSY, …); any
   * other start failure resolves a turn that is not ready (its `failure`). Call close() either way once it resolved.
   */
  open(): Promise<SupervisedTurn>;
}

/** An open supervised turn. */
export interface SupervisedTurn {
  /** The session (a named one records its turns); prompt it through send() so the ledger and worktree follow. */
  readonly session: HeadlessSession;
  /** Whether the session came up; when not, `failure` says why (its last diagnostic). */
  readonly ready: boolean;
  readonly failure?: Diagnostic;
  /** The named session: whether it was resumed, and turns a dead holder left interrupted (never re-sent). */
  readonly named?: { name: string; resumed: boolean; agentSessionId: string | null; interrupted: string[] };
  /** The worktree the turn works in. */
  readonly worktree?: WorktreeRecord;
  /**
   * Sends the turn and resolves its result, never rejects; a fresh session's turn is in the ledger when it resolves.
   * One supervised turn sends one prompt: a second call sends nothing and resolves TURN_ALREADY_SENT; a call once
   * close() started resolves TURN_CLOSED.
   */
  send(input: PromptInput, options?: PromptOptions & { signal?: AbortSignal }): Promise<TurnResult>;
  /** Ends everything in one order (see the file's invariant); resolves what happened, never rejects. */
  close(): Promise<ClosedTurn>;
}

/** What close() did. */
export interface ClosedTurn {
  /** Agent processes still alive after dispose (none, normally). */
  survivors: number[];
  /** The worktree, and the commit of the turn's changes (null: nothing changed, or the commit failed: `failure`). */
  worktree?: { name: string; branch: string; path: string; commit: string | null; head?: string; failure?: Diagnostic };
  /** Notifications that were not delivered. */
  notifications: DeliveryOutcome[];
  /** What went wrong while closing, as diagnostics (a ledger or notification failure); the turn's answer stands. */
  diagnostics: Diagnostic[];
}

/** The worktree option is a plan the caller made. */
function isPlan(worktree: SupervisedTurnOptions["worktree"]): worktree is TurnWorktreePlan {
  return typeof (worktree as TurnWorktreePlan | undefined)?.take === "function";
}

/**
 * Checks and plans a supervised turn, changing nothing: the session name (SESSION_NAME_INVALID), the worktree's
 * name and repository (WORKTREE_NAME_INVALID, WORKTREE_NOT_A_REPO, WORKTREE_GIT_MISSING), where the control socket
 * goes. Nothing starts until open().
 */
export async function prepareSupervisedTurn(options: SupervisedTurnOptions): Promise<PreparedTurn> {
  const home = options.home ?? seatHome(options.env ?? process.env);
  const named = options.named;
  const sessions = named === undefined ? undefined : await import("../sessions/index.js");
  if (sessions && named) {
    const names = await import("../names/index.js");
    const assertSessionName: (value: unknown) => asserts value is string = names.assertSessionName;
    assertSessionName(named.name);
  }
  const cwd = resolve(options.cwd ?? process.cwd());
  let plan: TurnWorktreePlan | undefined;
  if (isPlan(options.worktree)) plan = options.worktree;
  else if (options.worktree !== false && (options.worktree !== undefined || named !== undefined)) {
    const { planTurnWorktree } = await import("../worktrees/index.js");
    plan = await planTurnWorktree({
      home,
      cwd,
      ...(named ? { session: named.name } : {}),
      ...(options.worktree ? { worktree: options.worktree } : {}),
    });
  }
  // A named session's socket is openSession's; a plain turn's is planned here (or has none, said once it is up).
  const controlPlan: RunControlPlan | undefined =
    named === undefined && options.control !== false ? planRunControl(home) : undefined;
  return {
    cwd: plan?.path ?? cwd,
    open: () => openTurn(options, { home, plan, controlPlan, sessions }),
  };
}

async function openTurn(
  options: SupervisedTurnOptions,
  planned: {
    home: string;
    plan: TurnWorktreePlan | undefined;
    controlPlan: RunControlPlan | undefined;
    sessions: typeof import("../sessions/index.js") | undefined;
  },
): Promise<SupervisedTurn> {
  const { home, plan, controlPlan, sessions } = planned;
  const { named, worktree: _w, control: _c, ledger: _l, notify, home: _h, onWorktree, ...sessionOptions } = options;
  // One wait for a queued named turn: the session's lease, then the worktree its previous turn may still commit.
  const waitEnds = named?.waitMs ? Date.now() + named.waitMs : 0;
  const agent = agentLabel(options);
  const diagnostics: Diagnostic[] = [];
  let sessionId: string | undefined;
  const notifier: TurnNotifier | undefined = notify
    ? await startTurnNotifier(notify, home, () =>
        named ? { kind: "named-session", name: named.name } : { kind: "run", id: sessionId ?? `pid-${process.pid}` },
      )
    : undefined;
  const onEvent = (event: SeatEvent) => {
    if (event.type === "diagnostic") diagnostics.push(event.diagnostic);
    notifier?.hook(event);
    return options.callbacks?.onEvent?.(event);
  };
  const base: SessionOptions = {
    ...sessionOptions,
    cwd: plan?.path ?? resolve(options.cwd ?? process.cwd()),
    callbacks: { ...options.callbacks, onEvent },
  };
  let worktree: TurnWorktree | undefined;
  const take = async () => {
    if (!plan) return;
    worktree = await takeAfterSessionTurn(plan, named, waitEnds);
    onWorktree?.(worktree.record);
  };
  let session: HeadlessSession;
  let opened: OpenedSession | undefined;
  try {
    if (sessions && named) {
      // The session's worktree is taken once its lease is held, so a turn queued with waitMs touches it only after
      // the holder is done.
      opened = await sessions.openSession({
        ...base,
        name: named.name,
        // Named from the caller's directory, while its agent works in the worktree (plan.path).
        scopeDir: resolve(options.cwd ?? process.cwd()),
        ...(named.global ? { global: true } : {}),
        ...(named.waitMs ? { waitMs: named.waitMs } : {}),
        ...(named.sessionBudget ? { sessionBudget: named.sessionBudget } : {}),
        home,
        ...(plan ? { beforeStart: take } : {}),
      });
      session = opened.session;
    } else {
      await take();
      session = await createSession(base);
    }
  } catch (error) {
    worktree?.lock.release();
    await notifier?.close(0);
    throw error;
  }
  sessionId = session.id;
  const ready = session.state === "ready";
  let control: ControlServer | undefined;
  if (ready && controlPlan) {
    // The typed state says what this is, so `seat ps` lists the turn (kind run) apart from named sessions.
    control = await startRunControl(
      controlPlan,
      session,
      { kind: "run", agent, cwd: worktree?.record.path ?? base.cwd! },
      (diagnostic) => {
        // A caller's callback that throws must not leave the started agent behind an open() that rejected.
        try {
          void Promise.resolve(onEvent({ type: "diagnostic", diagnostic })).catch(() => undefined);
        } catch {}
      },
    );
  }
  let sent: { promptId: string; prompt: string } | undefined;
  let ledgerProblem: Diagnostic | undefined;
  let sending: Promise<TurnResult> | undefined;
  let closing: Promise<ClosedTurn> | undefined;
  const failure = ready ? undefined : (diagnostics.at(-1) ?? session.diagnostics.at(-1));
  return {
    session,
    ready,
    ...(failure ? { failure } : {}),
    ...(opened && named
      ? {
          named: {
            name: named.name,
            resumed: opened.resumed,
            agentSessionId: opened.session.id ?? null,
            interrupted: opened.interrupted.map((t) => t.promptId),
          },
        }
      : {}),
    ...(worktree ? { worktree: worktree.record } : {}),
    send(input, promptOptions = {}) {
      if (closing) return Promise.resolve(notSent(promptOptions.promptId, TURN_CLOSED));
      if (sending) return Promise.resolve(notSent(promptOptions.promptId, TURN_ALREADY_SENT));
      sending = (async () => {
        // A named session's turn is in the ledger already (sessions/); a fresh session's goes in here before send
        // resolves (the ledger loads while the turn runs), so whoever reads the result can read its rows.
        const ledgerModule = !opened && ready ? loadLedger() : undefined;
        const result = await session.prompt(input, promptOptions);
        sent = { promptId: result.promptId, prompt: promptText(input) };
        if (ledgerModule)
          ledgerProblem = await recordTurnUsage(
            ledgerModule,
            home,
            result,
            options.ledger ?? { source: "run" },
            agent,
            options.model,
          );
        return result;
      })();
      return sending;
    },
    close() {
      closing ??= (async (): Promise<ClosedTurn> => {
        const closeDiagnostics: Diagnostic[] = [];
        const { survivors } = await session.dispose();
        // A send still in flight ends with the dispose (its turn cancelled): its record and ledger row come first.
        await sending?.catch(() => undefined);
        if (ledgerProblem) closeDiagnostics.push(ledgerProblem);
        await control?.close();
        const closed: ClosedTurn = { survivors, notifications: [], diagnostics: closeDiagnostics };
        try {
          // After dispose: no agent process writes while the turn is committed. A turn never sent commits nothing.
          if (worktree) closed.worktree = await commitWorktree(worktree, sent);
        } finally {
          worktree?.lock.release();
        }
        if (closed.worktree?.failure) closeDiagnostics.push(closed.worktree.failure);
        if (notifier) {
          closed.notifications = await notifier.close(notify?.closeGraceMs ?? NOTIFY_CLOSE_GRACE_MS);
          for (const outcome of closed.notifications)
            closeDiagnostics.push({
              code: "NOTIFY_DELIVERY_FAILED",
              message: `The notification to ${outcome.target} was not delivered (${outcome.detail ?? "no answer"}); the turn was not affected.`,
            });
        }
        return closed;
      })();
      return closing;
    },
  };
}

/**
 * Takes the worktree. A named turn queued with `waitMs` holds the lease once the session's previous turn gave it
 * back, but that turn may still be committing the session's worktree (its lock is let go after the commit): the
 * queued turn waits for that lock too, until `waitEnds` — the end of the wait that began before the lease. A worktree held by anything else is WORKTREE_BUSY at
 * once, as without a wait.
 */
async function takeAfterSessionTurn(
  plan: TurnWorktreePlan,
  named: SupervisedTurnOptions["named"],
  waitEnds: number,
): Promise<TurnWorktree> {
  for (;;) {
    try {
      return await plan.take();
    } catch (error) {
      const sameSession =
        named !== undefined &&
        isSeatError(error) &&
        error.code === "WORKTREE_BUSY" &&
        (error.context as { holder?: unknown } | undefined)?.holder === `session:${named.name}`;
      if (!sameSession || Date.now() >= waitEnds) throw error;
      await new Promise((r) => setTimeout(r, Math.min(25, Math.max(1, waitEnds - Date.now()))));
    }
  }
}

/** How long close() waits, by default, for notifications still being delivered (a run exits within 5 s). */
export const NOTIFY_CLOSE_GRACE_MS = 3_000;

/** Commits the sent turn in its worktree; a failure is the worktree's `failure` (the turn's answer stands). */
async function commitWorktree(
  worktree: TurnWorktree,
  sent: { promptId: string; prompt: string } | undefined,
): Promise<NonNullable<ClosedTurn["worktree"]>> {
  const { record } = worktree;
  const where = { name: record.name, branch: record.branch, path: record.path };
  if (!sent) return { ...where, commit: null };
  try {
    const { finishTurnWorktree } = await import("../worktrees/index.js");
    const committed = await finishTurnWorktree(worktree, sent);
    return { ...where, branch: committed.branch, commit: committed.commit, head: committed.head };
  } catch (error) {
    return {
      ...where,
      commit: null,
      failure: {
        code: isSeatError(error) ? error.code : "WORKTREE_GIT_FAILED",
        message: `The turn's changes in worktree ${record.name} could not be committed: ${messageOf(error)}`,
      },
    };
  }
}

const TURN_ALREADY_SENT: Diagnostic = {
  code: "TURN_ALREADY_SENT",
  message:
    "This supervised turn already sent its prompt; open another turn for the next one. Nothing was sent. [TURN_ALREADY_SENT]",
};

const TURN_CLOSED: Diagnostic = {
  code: "TURN_CLOSED",
  message: "This supervised turn is closed (its agent disposed); open another turn. Nothing was sent. [TURN_CLOSED]",
};

/** The result of a send() that sent nothing. */
function notSent(promptId: string | undefined, diagnostic: Diagnostic): TurnResult {
  return { promptId: promptId ?? "", text: "", echoed: false, diagnostic };
}
