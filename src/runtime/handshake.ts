/*
 * Headless handshake: initialize → authenticate → session/new over a connected ACP peer.
 * Owns: the request parameters (protocol 1, client fs/terminal off, `_meta` pluginDirs/rules/systemPromptOverride)
 *   and turning each failure into a SeatError with a clear next step.
 * Does not own: the process (grok/) or the session after it exists (session.ts).
 */
import type { InitializeResponse, McpServer, NewSessionResponse } from "@agentclientprotocol/sdk";
import { SeatError, messageOf } from "../errors.js";
import { ACP, type AcpPeer } from "../acp/index.js";
import { chooseAuthMethod } from "./auth.js";
import { attachSession, type AttachRequest, type AttachResult } from "./attach.js";

/** What the handshake learned. */
export interface HandshakeResult {
  initialize: InitializeResponse;
  authMethodId: string;
  session: NewSessionResponse;
  agentVersion?: string;
  /** Set when an existing session was attached (resume/load) instead of created. */
  attached?: AttachResult;
}

/** Inputs of the handshake. */
export interface HandshakeOptions {
  cwd: string;
  mcpServers: McpServer[];
  pluginDirs: string[];
  rules?: string;
  systemPrompt?: string;
  env: NodeJS.ProcessEnv;
  clientVersion: string;
  /** Attach to this existing agent session (session/resume, else session/load) instead of session/new. */
  attach?: AttachRequest;
}

function failed(step: string, error: unknown): SeatError {
  if (error instanceof SeatError) return error;
  return new SeatError("ACP_HANDSHAKE_FAILED", `ACP ${step} failed: ${messageOf(error)}.`, { cause: error, context: { step } });
}

/** Runs the three handshake requests; throws SeatError (ACP_HANDSHAKE_FAILED / ACP_NOT_AUTHENTICATED). */
export async function handshake(peer: AcpPeer, options: HandshakeOptions): Promise<HandshakeResult> {
  let init: InitializeResponse;
  try {
    init = await peer.request<InitializeResponse>(ACP.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      clientInfo: { name: "grok-seat", version: options.clientVersion },
    });
  } catch (error) {
    throw failed("initialize", error);
  }
  const meta = (init._meta ?? {}) as Record<string, unknown>;
  const choice = chooseAuthMethod(init.authMethods ?? [], meta.defaultAuthMethodId, options.env);
  if (choice.methodId === undefined) {
    throw new SeatError("ACP_NOT_AUTHENTICATED", `Grok is ${choice.why}.`, { context: { authMethods: (init.authMethods ?? []).map((m) => m.id) } });
  }
  try {
    await peer.request(ACP.agent.authenticate, { methodId: choice.methodId, _meta: { headless: true } });
  } catch (error) {
    throw new SeatError("ACP_NOT_AUTHENTICATED", `Grok refused auth method ${choice.methodId}: ${messageOf(error)}. Run \`grok login\` or set XAI_API_KEY.`, { cause: error });
  }
  const sessionMeta: Record<string, unknown> = {};
  if (options.pluginDirs.length > 0) sessionMeta.pluginDirs = options.pluginDirs;
  if (options.rules) sessionMeta.rules = options.rules;
  if (options.systemPrompt) sessionMeta.systemPromptOverride = options.systemPrompt;
  const agentVersion = typeof meta.agentVersion === "string" ? meta.agentVersion : undefined;
  if (options.attach) {
    const attached = await attachSession(peer, init, options.attach, { cwd: options.cwd, mcpServers: options.mcpServers, meta: sessionMeta });
    return { initialize: init, authMethodId: choice.methodId, session: { sessionId: attached.sessionId }, attached, ...(agentVersion ? { agentVersion } : {}) };
  }
  let session: NewSessionResponse;
  try {
    session = await peer.request<NewSessionResponse>(ACP.agent.session.new, {
      cwd: options.cwd,
      mcpServers: options.mcpServers,
      ...(Object.keys(sessionMeta).length > 0 ? { _meta: sessionMeta } : {}),
    });
  } catch (error) {
    throw failed("session/new", error);
  }
  return { initialize: init, authMethodId: choice.methodId, session, ...(agentVersion ? { agentVersion } : {}) };
}
