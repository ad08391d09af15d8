/*
 * Attach: the handshake's last step for an existing agent session — `session/resume` when the agent
 *   advertises it, else `session/load` without replay — instead of `session/new`.
 * Owns: choosing the method from initialize's capabilities and turning "cannot" into SESSION_NOT_RESUMABLE.
 * Does not own: initialize/authenticate (handshake.ts), which session to resume (sessions/).
 * Invariant: it attaches to exactly the session id asked for or fails; it never falls back to a new session.
 * Spec: grok-wire.md §10 (session/load, session/resume), §13 step 5; docs/sessions.md.
 */
import type { InitializeResponse, McpServer } from "@agentclientprotocol/sdk";
import { SeatError, messageOf } from "../errors.js";
import { ACP, type AcpPeer } from "../acp/index.js";

/** Which existing agent session to attach to. */
export interface AttachRequest {
  /** The agent's own session id, exactly as `session/new` returned it. */
  sessionId: string;
}

/** How the attach went: the method used and the session id grok confirmed. */
export interface AttachResult {
  sessionId: string;
  method: "session/resume" | "session/load";
}

/**
 * SESSION_NOT_RESUMABLE, before anything starts, when `resume` asks to attach a session of an agent whose profile
 * says an attach would lose it (AgentProfile.attachRefused).
 */
export function refuseUnsafeAttach(
  profile: { title: string; attachRefused?: string } | undefined,
  resume: AttachRequest | undefined,
): void {
  if (!resume || !profile?.attachRefused) return;
  throw new SeatError(
    "SESSION_NOT_RESUMABLE",
    `grok-seat does not attach ${profile.title} sessions, so session ${resume.sessionId} cannot be continued in a new process: ${profile.attachRefused}. Start a new named session (seat sessions rm NAME, then run again).`,
    { context: { agentSessionId: resume.sessionId, reason: "attach-refused" } },
  );
}

/** The attach method this agent advertises: resume first, then load; null when it has neither. */
export function attachMethodFor(init: InitializeResponse): AttachResult["method"] | null {
  const caps = init.agentCapabilities as
    | { loadSession?: boolean; sessionCapabilities?: { resume?: unknown } }
    | undefined;
  if (caps?.sessionCapabilities?.resume != null) return "session/resume";
  if (caps?.loadSession === true) return "session/load";
  return null;
}

/** Resumes or loads `request.sessionId` in `cwd`; throws SESSION_NOT_RESUMABLE when the agent cannot. */
export async function attachSession(
  peer: AcpPeer,
  init: InitializeResponse,
  request: AttachRequest,
  params: { cwd: string; mcpServers: McpServer[]; meta: Record<string, unknown> },
): Promise<AttachResult> {
  const method = attachMethodFor(init);
  const context = { agentSessionId: request.sessionId, cwd: params.cwd };
  if (method === null) {
    throw new SeatError(
      "SESSION_NOT_RESUMABLE",
      `This agent advertises neither session/resume nor session/load, so session ${request.sessionId} cannot be continued. Start a new named session (seat sessions rm NAME, then run again).`,
      { context },
    );
  }
  const meta = method === "session/load" ? { ...params.meta, noReplay: true } : params.meta;
  let response: { sessionId?: unknown; _meta?: Record<string, unknown> | null } | null;
  try {
    response = await peer.request(method === "session/resume" ? ACP.agent.session.resume : ACP.agent.session.load, {
      sessionId: request.sessionId,
      cwd: params.cwd,
      mcpServers: params.mcpServers,
      ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}),
    });
  } catch (error) {
    // JSON-RPC errors carry the agent's reason in data.details (Gemini: "No previous sessions found…").
    const details = (error as { data?: { details?: unknown } } | null)?.data?.details;
    const reason = typeof details === "string" ? `${messageOf(error)} (${messageOf(details)})` : messageOf(error);
    throw new SeatError(
      "SESSION_NOT_RESUMABLE",
      `The agent could not ${method === "session/resume" ? "resume" : "load"} session ${request.sessionId} in ${params.cwd}: ${reason}. Its session files may be gone (another GROK_HOME, or deleted); start over with \`seat sessions rm NAME\`.`,
      { cause: error, context: { ...context, method } },
    );
  }
  // grok answers without a top-level sessionId and echoes it in _meta; a different id is not our session.
  const echoed = response?.sessionId ?? response?._meta?.sessionId;
  if (typeof echoed === "string" && echoed !== request.sessionId) {
    throw new SeatError(
      "SESSION_NOT_RESUMABLE",
      `grok attached session ${echoed} when asked for ${request.sessionId}; refusing to continue under the old name.`,
      { context: { ...context, method, echoed } },
    );
  }
  return { sessionId: request.sessionId, method };
}
