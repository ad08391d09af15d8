/*
 * One MCP turn: what the `run` tool does between checked arguments and its result — the supervised turn every door
 *   runs (turn/), without a terminal: a fresh session or a named one, held approvals, the control socket with the
 *   typed state (so `seat ps`, `seat approve/deny/cancel` reach it), the worktree, the ledger and notifications.
 * Owns: mapping a checked call onto runSupervisedTurn, and a host's words for what the CLI says differently
 *   (SESSION_BUSY, a call cancelled before its turn was sent).
 * Does not own: argument checks (boundaries.ts), the tool's schema and result (tools/run.ts), the turn's parts and
 *   their order (turn/).
 * Invariant: the session is disposed before runMcpTurn settles, whatever happened (cancel, host gone, failure),
 *   so no agent process outlives the call (runSupervisedTurn closes it on every way out).
 */
import type { Diagnostic, SeatEvent, TurnResult } from "../acp/index.js";
import { SeatError, isSeatError } from "../errors.js";
import type { NotifyTarget } from "../notify-config/index.js";
import { createPermissionGate, type PermissionPolicy } from "../permissions/index.js";
import { runSupervisedTurn } from "../turn/index.js";
import type { TurnBudget } from "../metering/index.js";

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
  /** The turn's budget (tokens, cost): BUDGET_EXCEEDED ends it once spent. */
  budget?: TurnBudget;
  /** Tell these targets (the server's user config) when an approval waits and when the turn ends. */
  notify?: readonly NotifyTarget[];
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
  const named = request.session;
  const outcome = await runSupervisedTurn({
    prompt: request.prompt,
    signal: request.signal,
    agent: request.agent,
    cwd: request.cwd,
    ...(request.model ? { model: request.model } : {}),
    ...(request.grokCliBinaryPath ? { grokCliBinaryPath: request.grokCliBinaryPath } : {}),
    permissions: createPermissionGate({ policy: request.policy }),
    // A named session's approvals are named by openSession (named-session + its name), whoever opens it.
    approvals: { timeoutMs: request.approvalTimeoutMs, owner: { kind: "session" } },
    callbacks: { onEvent: request.onEvent },
    diagnosticsAsText: false,
    ...(request.turnTimeoutMs ? { turnTimeoutMs: request.turnTimeoutMs } : {}),
    ...(request.idleTimeoutMs ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
    ...(named !== undefined ? { named: { name: named } } : {}),
    ...(request.worktree ? { worktree: request.worktree } : {}),
    ...(request.budget ? { budget: request.budget } : {}),
    ...(request.notify && request.notify.length > 0 ? { notify: { targets: request.notify } } : {}),
  }).catch((error: unknown) => {
    throw named !== undefined && isSeatError(error, "SESSION_BUSY") ? busyForHost(named, error) : error;
  });
  const { result } = outcome;
  if (!outcome.sent) {
    const fatal = result.diagnostic;
    if (fatal?.code === "TURN_CANCELLED_UNSENT")
      throw new SeatError("MCP_CALL_CANCELLED", "The call was cancelled before its turn was sent; nothing ran.");
    throw new SeatError(
      fatal?.code ?? "ACP_SESSION_DEAD",
      fatal ? stripCode(fatal) : "The agent session did not come up.",
      { context: { agent: request.agent } },
    );
  }
  return {
    result,
    diagnostics: outcome.diagnostics,
    ...(outcome.named ? { session: outcome.named } : {}),
    ...(outcome.worktree
      ? {
          worktree: {
            name: outcome.worktree.name,
            branch: outcome.worktree.branch,
            path: outcome.worktree.path,
            commit: outcome.worktree.commit,
          },
        }
      : {}),
  };
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

/** A diagnostic's message without its trailing `[CODE]` (SeatError adds it again). */
function stripCode(d: Diagnostic): string {
  const suffix = ` [${d.code}]`;
  return d.message.endsWith(suffix) ? d.message.slice(0, -suffix.length) : d.message;
}
