/*
 * One MCP turn: what the `run` tool does between checked arguments and its result — the same steps as `seat run`,
 *   through the same shared parts (a fresh session, or a named one through sessions/; held approvals; the control
 *   socket with the typed state every door answers, so `seat ps`, `seat approve/deny/cancel` reach it; the
 *   worktree lifecycle of worktrees/; the turn in the ledger), without a terminal.
 * Owns: runMcpTurn — plan the worktree, start, prompt with the call's AbortSignal, dispose in every case, commit the
 *   worktree after dispose, record the usage of a plain turn (a named session's turn is recorded by sessions/).
 * Does not own: argument checks (boundaries.ts), the tool's schema and result (tools/run.ts), the control socket
 *   (sessions/turn-control.ts), the worktree's steps (worktrees/turn.ts).
 * Invariant: the session is disposed before runMcpTurn settles, whatever happened (cancel, host gone, failure),
 *   so no agent process outlives the call; a turn that was sent is recorded, cancelled or not; its worktree is
 *   committed only after the agent is gone, and its lock is released on every way out.
 */
import type { Diagnostic, SeatEvent, TurnResult } from "../acp/index.js";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { createSession, type HeadlessSession, type SessionOptions } from "../runtime/index.js";
import { createPermissionGate, type PermissionPolicy } from "../permissions/index.js";
import type { ControlServer } from "../control/index.js";
import { planRunControl, startRunControl } from "../sessions/turn-control.js";
import { ensurePrivateDir, journalPath, seatHome } from "../home/index.js";
// Type only: the worktree lifecycle (git, records, locks) loads only for a call that asks for a worktree.
import type { TurnWorktree, TurnWorktreePlan } from "../worktrees/index.js";
import { ledgerEntriesOf, recordUsage } from "../usage/index.js";
// Type only: a plain turn loads neither the sessions' front door nor what it pulls in (it is imported on use).
import type { OpenedSession } from "../sessions/index.js";

/** What one MCP turn is asked to do (arguments already checked). */
export interface McpTurnRequest {
  prompt: string;
  agent: string;
  cwd: string;
  policy: PermissionPolicy;
  approvalTimeoutMs: number;
  model?: string;
  /** A named session (continued, or created on first use), per `cwd`. */
  session?: string;
  /**
   * Work in a seat worktree of the repository containing `cwd` (its name checked already; "" = the session's name
   * or a fresh `run-…` name), committed after the turn. A named session without it keeps the worktree it made.
   */
  worktree?: { name: string };
  grokCliBinaryPath?: string;
  turnTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** The call's signal: a client's notifications/cancelled, or the host gone. */
  signal: AbortSignal;
  /** Every event of the session, as it happens. */
  onEvent(event: SeatEvent): void;
}

/** How one MCP turn ended. */
export interface McpTurnOutcome {
  result: TurnResult;
  /** Diagnostics reported during the turn (the result's own included once). */
  diagnostics: Diagnostic[];
  /** For a named session: whether it was resumed, and its agent session id. */
  session?: { name: string; resumed: boolean; agentSessionId: string | null; interrupted: string[] };
  /** The worktree the turn worked in, and the commit its changes made (null: it changed nothing or was not committed). */
  worktree?: { name: string; branch: string; path: string; commit: string | null };
}

/** Runs one turn to its end and disposes the agent; a session that cannot start throws its own code. */
export async function runMcpTurn(request: McpTurnRequest): Promise<McpTurnOutcome> {
  const diagnostics: Diagnostic[] = [];
  const onEvent = (event: SeatEvent) => {
    if (event.type === "diagnostic") diagnostics.push(event.diagnostic);
    request.onEvent(event);
  };
  const named = request.session;
  if (request.signal.aborted) throw cancelledBeforeStart();
  // The worktree is planned (changing nothing) before anything starts: its repository and name errors come first.
  const plan = named === undefined && request.worktree === undefined ? undefined : await planWorktree(request);
  const options: SessionOptions = {
    agent: request.agent,
    cwd: plan?.path ?? request.cwd,
    ...(request.model ? { model: request.model } : {}),
    ...(request.grokCliBinaryPath ? { grokCliBinaryPath: request.grokCliBinaryPath } : {}),
    permissions: createPermissionGate({ policy: request.policy }),
    // A named session's approvals are named by openSession (named-session + its name), whoever opens it.
    approvals: { timeoutMs: request.approvalTimeoutMs, owner: { kind: "session" } },
    callbacks: { onEvent },
    diagnosticsAsText: false,
    ...(request.turnTimeoutMs ? { turnTimeoutMs: request.turnTimeoutMs } : {}),
    ...(request.idleTimeoutMs ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
  };
  let session: HeadlessSession | undefined;
  let control: ControlServer | undefined;
  let worktree: TurnWorktree | undefined;
  let turn: { promptId: string; prompt: string } | undefined;
  let outcome: McpTurnOutcome | undefined;
  try {
    let opened: OpenedSession | undefined;
    if (named !== undefined) {
      const { openSession } = await import("../sessions/index.js");
      // The session's worktree is taken once its lease is held, as `seat run -s` does.
      opened = await openSession({
        ...options,
        name: named,
        ...(plan ? { beforeStart: async () => void (worktree = await plan.take()) } : {}),
      }).catch((error: unknown) => {
        throw isSeatError(error, "SESSION_BUSY") ? busyForHost(named, error) : error;
      });
      session = opened.session;
    } else {
      worktree = await plan?.take();
      session = await createSession(options);
    }
    if (session.state !== "ready") {
      const fatal = diagnostics.at(-1);
      throw new SeatError(
        fatal?.code ?? "ACP_SESSION_DEAD",
        fatal ? stripCode(fatal) : "The agent session did not come up.",
        { context: { agent: request.agent } },
      );
    }
    if (named === undefined) {
      // The same socket and typed state `seat run` serves, so `seat ps`, approve/deny and cancel reach this turn.
      control = await startRunControl(
        planRunControl(seatHome()),
        session,
        { kind: "run", agent: request.agent, cwd: worktree?.record.path ?? request.cwd },
        (diagnostic) => onEvent({ type: "diagnostic", diagnostic }),
      );
    }
    if (request.signal.aborted) throw cancelledBeforeStart();
    const result = await session.prompt(request.prompt, { signal: request.signal });
    turn = { promptId: result.promptId, prompt: request.prompt };
    if (opened === undefined) recordPlainTurn(result, request, onEvent);
    if (
      result.diagnostic &&
      !diagnostics.some((d) => d.code === result.diagnostic!.code && d.message === result.diagnostic!.message)
    )
      diagnostics.push(result.diagnostic);
    outcome = {
      result,
      diagnostics,
      ...(opened && named
        ? {
            session: {
              name: named,
              resumed: opened.resumed,
              agentSessionId: opened.session.id ?? null,
              interrupted: opened.interrupted.map((t) => t.promptId),
            },
          }
        : {}),
    };
  } finally {
    if (session) await session.dispose();
    await control?.close();
    // After dispose, so no agent process writes while the turn is committed; a turn that threw stays uncommitted.
    try {
      if (worktree && turn && outcome) outcome.worktree = await commitWorktree(worktree, turn, onEvent);
    } finally {
      worktree?.lock.release();
    }
  }
  return outcome!;
}

/** The worktree a call asked for (or a named session's earlier one), planned in the seat home; nothing changes. */
async function planWorktree(request: McpTurnRequest): Promise<TurnWorktreePlan | undefined> {
  const { planTurnWorktree } = await import("../worktrees/index.js");
  return planTurnWorktree({
    home: seatHome(),
    cwd: request.cwd,
    ...(request.session !== undefined ? { session: request.session } : {}),
    ...(request.worktree ? { worktree: request.worktree } : {}),
  });
}

/** Commits the turn in its worktree; a failure is a diagnostic (the turn's answer stands, its changes stay uncommitted). */
async function commitWorktree(
  worktree: TurnWorktree,
  turn: { promptId: string; prompt: string },
  onEvent: (event: SeatEvent) => void,
): Promise<McpTurnOutcome["worktree"]> {
  const { record } = worktree;
  try {
    const { finishTurnWorktree } = await import("../worktrees/index.js");
    const committed = await finishTurnWorktree(worktree, turn);
    return { name: record.name, branch: committed.branch, path: record.path, commit: committed.commit };
  } catch (error) {
    onEvent({
      type: "diagnostic",
      diagnostic: {
        code: isSeatError(error) ? error.code : "WORKTREE_GIT_FAILED",
        message: `The turn's changes in worktree ${record.name} could not be committed: ${messageOf(error)}`,
      },
    });
    return { name: record.name, branch: record.branch, path: record.path, commit: null };
  }
}

/** Adds a plain turn to the ledger, as `seat run` does; a failure is a diagnostic, never fatal. */
function recordPlainTurn(result: TurnResult, request: McpTurnRequest, onEvent: (event: SeatEvent) => void): void {
  try {
    const home = seatHome();
    ensurePrivateDir(home);
    recordUsage(
      journalPath(home),
      ledgerEntriesOf(result, {
        source: "run",
        agent: request.agent,
        ...(request.model ? { model: request.model } : {}),
      }),
    );
  } catch (error) {
    onEvent({
      type: "diagnostic",
      diagnostic: {
        code: "JOURNAL_WRITE_FAILED",
        message: `The turn's usage could not be added to the ledger: ${messageOf(error)}`,
      },
    });
  }
}

/** SESSION_BUSY in a host's words: the CLI's message points at `--wait` and `seat cancel`, which a host has not. */
function busyForHost(name: string, error: SeatError): SeatError {
  const { holderPid, since } = error.context as { holderPid?: number; since?: string };
  return new SeatError(
    "SESSION_BUSY",
    `Session "${name}" is busy: pid ${holderPid ?? "?"} has been running a turn since ${since ?? "?"}. Call run again once the sessions tool shows it idle, or stop that turn with the cancel tool.`,
    {
      retryable: true,
      context: error.context,
      cause: error,
    },
  );
}

function cancelledBeforeStart(): SeatError {
  return new SeatError("MCP_CALL_CANCELLED", "The call was cancelled before its turn was sent; nothing ran.");
}

/** A diagnostic's message without its trailing `[CODE]` (SeatError adds it again). */
function stripCode(d: Diagnostic): string {
  const suffix = ` [${d.code}]`;
  return d.message.endsWith(suffix) ? d.message.slice(0, -suffix.length) : d.message;
}
