/*
 * One MCP turn: what the `run` tool does between checked arguments and its result — the same steps as `seat run`
 *   (a fresh session, or a named one through sessions/; held approvals; a control socket so `seat approve/deny/
 *   cancel` reach it; the turn in the ledger), without a terminal.
 * Owns: runMcpTurn — start, prompt with the call's AbortSignal, dispose in every case, record the usage of a plain
 *   turn (a named session's turn is recorded by sessions/).
 * Does not own: argument checks (boundaries.ts), the tool's schema and result (tools/run.ts).
 * Invariant: the session is disposed before runMcpTurn settles, whatever happened (cancel, host gone, failure),
 *   so no agent process outlives the call; a turn that was sent is recorded, cancelled or not.
 */
import type { Diagnostic, SeatEvent, TurnResult } from "../acp/index.js";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { createSession, type HeadlessSession, type SessionOptions } from "../runtime/index.js";
import { approvalRecordsDir, processApprovals, recordApprovalsIn } from "../approvals/index.js";
import { createPermissionGate, type PermissionPolicy } from "../permissions/index.js";
import { planControlSocket, startControlServer, type ControlServer } from "../sessions/control.js";
import { ensurePrivateDir, journalPath, seatHome } from "../seat/seat-home.js";
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
}

/** Runs one turn to its end and disposes the agent; a session that cannot start throws its own code. */
export async function runMcpTurn(request: McpTurnRequest): Promise<McpTurnOutcome> {
  const diagnostics: Diagnostic[] = [];
  const onEvent = (event: SeatEvent) => {
    if (event.type === "diagnostic") diagnostics.push(event.diagnostic);
    request.onEvent(event);
  };
  const named = request.session;
  const options: SessionOptions = {
    agent: request.agent,
    cwd: request.cwd,
    ...(request.model ? { model: request.model } : {}),
    ...(request.grokCliBinaryPath ? { grokCliBinaryPath: request.grokCliBinaryPath } : {}),
    permissions: createPermissionGate({ policy: request.policy }),
    approvals: { timeoutMs: request.approvalTimeoutMs, owner: named === undefined ? { kind: "session" } : { kind: "named-session", name: named } },
    callbacks: { onEvent },
    diagnosticsAsText: false,
    ...(request.turnTimeoutMs ? { turnTimeoutMs: request.turnTimeoutMs } : {}),
    ...(request.idleTimeoutMs ? { idleTimeoutMs: request.idleTimeoutMs } : {}),
  };
  if (request.signal.aborted) throw cancelledBeforeStart();
  let session: HeadlessSession | undefined;
  let control: ControlServer | undefined;
  try {
    let opened: OpenedSession | undefined;
    if (named !== undefined) {
      const { openSession } = await import("../sessions/index.js");
      opened = await openSession({ ...options, name: named }).catch((error: unknown) => {
        throw isSeatError(error, "SESSION_BUSY") ? busyForHost(named, error) : error;
      });
      session = opened.session;
    } else {
      session = await createSession(options);
    }
    if (session.state !== "ready") {
      const fatal = diagnostics.at(-1);
      throw new SeatError(fatal?.code ?? "ACP_SESSION_DEAD", fatal ? stripCode(fatal) : "The agent session did not come up.", { context: { agent: request.agent } });
    }
    if (named === undefined) control = await startControl(session, onEvent);
    if (request.signal.aborted) throw cancelledBeforeStart();
    const result = await session.prompt(request.prompt, { signal: request.signal });
    if (opened === undefined) recordPlainTurn(result, request, onEvent);
    if (result.diagnostic && !diagnostics.some((d) => d.code === result.diagnostic!.code && d.message === result.diagnostic!.message)) diagnostics.push(result.diagnostic);
    return {
      result,
      diagnostics,
      ...(opened && named ? { session: { name: named, resumed: opened.resumed, agentSessionId: opened.session.id ?? null, interrupted: opened.interrupted.map((t) => t.promptId) } } : {}),
    };
  } finally {
    if (session) await session.dispose();
    await control?.close();
  }
}

/** A plain turn serves a control socket like `seat run` does; when none can start, the turn still runs. */
async function startControl(session: HeadlessSession, onEvent: (event: SeatEvent) => void): Promise<ControlServer | undefined> {
  try {
    const place = planControlSocket(seatHome());
    recordApprovalsIn(approvalRecordsDir());
    return await startControlServer(place, { cancel: async () => { await session.cancel(); return {}; }, state: () => session.attention(), approvals: processApprovals });
  } catch (error) {
    onEvent({ type: "diagnostic", diagnostic: { code: "CONTROL_SOCKET_FAILED", message: `This turn's control socket could not start (${messageOf(error)}); seat approve/deny/cancel cannot reach it.` } });
    return undefined;
  }
}

/** Adds a plain turn to the ledger, as `seat run` does; a failure is a diagnostic, never fatal. */
function recordPlainTurn(result: TurnResult, request: McpTurnRequest, onEvent: (event: SeatEvent) => void): void {
  try {
    const home = seatHome();
    ensurePrivateDir(home);
    recordUsage(journalPath(home), ledgerEntriesOf(result, { source: "run", agent: request.agent, ...(request.model ? { model: request.model } : {}) }));
  } catch (error) {
    onEvent({ type: "diagnostic", diagnostic: { code: "JOURNAL_WRITE_FAILED", message: `The turn's usage could not be added to the ledger: ${messageOf(error)}` } });
  }
}

/** SESSION_BUSY in a host's words: the CLI's message points at `--wait` and `seat cancel`, which a host has not. */
function busyForHost(name: string, error: SeatError): SeatError {
  const { holderPid, since } = error.context as { holderPid?: number; since?: string };
  return new SeatError("SESSION_BUSY", `Session "${name}" is busy: pid ${holderPid ?? "?"} has been running a turn since ${since ?? "?"}. Call run again once the sessions tool shows it idle, or stop that turn with the cancel tool.`, {
    retryable: true,
    context: error.context,
    cause: error,
  });
}

function cancelledBeforeStart(): SeatError {
  return new SeatError("MCP_CALL_CANCELLED", "The call was cancelled before its turn was sent; nothing ran.");
}

/** A diagnostic's message without its trailing `[CODE]` (SeatError adds it again). */
function stripCode(d: Diagnostic): string {
  const suffix = ` [${d.code}]`;
  return d.message.endsWith(suffix) ? d.message.slice(0, -suffix.length) : d.message;
}
