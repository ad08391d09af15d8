/*
 * Headless handshake: initialize → authenticate → session/new over a connected ACP peer.
 * Owns: the request parameters (protocol 1, client fs/terminal off, `_meta` pluginDirs/rules/systemPromptOverride)
 *   and turning each failure into a SeatError with a clear next step.
 * Does not own: the process (grok/) or the session after it exists (session.ts).
 * Other agents (agents/): the profile picks the auth method (or none: `null` skips authenticate), decides how
 *   rules travel (grok `_meta.rules`, Claude `_meta.systemPrompt.append`, ACP `systemPrompt` append for Codex,
 *   a rules file in the launch, or not at all), and names the mode
 *   set right after session/new. Without a profile the requests are exactly grok's.
 */
import type { InitializeResponse, McpServer, NewSessionResponse } from "@agentclientprotocol/sdk";
import { SeatError, messageOf } from "../errors.js";
import { ACP, isAuthRequired, type AcpPeer } from "../acp/index.js";
import { chooseAuthMethod, type AuthChoice, type AdvertisedAuthMethod, type RulesDelivery } from "../agents/index.js";
import { attachSession, type AttachRequest, type AttachResult } from "./attach.js";

/** What the handshake learned. */
export interface HandshakeResult {
  initialize: InitializeResponse;
  /** The method used, or undefined when the agent needed no authenticate call. */
  authMethodId: string | undefined;
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
  /** A non-grok agent's profile; absent means grok. */
  profile?: HandshakeProfile;
}

/** What the handshake needs from an agent profile (agents/profile.ts). */
export interface HandshakeProfile {
  name: string;
  chooseAuth(
    advertised: readonly AdvertisedAuthMethod[],
    defaultAuthMethodId: unknown,
    env: NodeJS.ProcessEnv,
  ): AuthChoice;
  rulesDelivery: RulesDelivery;
  setModeAfterNew?: string;
  /** The agent's own credential variables, named when it answers "authentication required". */
  keyVars?: readonly string[];
}

function failed(step: string, error: unknown, profile?: HandshakeProfile): SeatError {
  if (error instanceof SeatError) return error;
  // An agent that needs credentials we did not have (Codex without a key answers session/new with -32000).
  if (isAuthRequired(error)) {
    const agent = profile?.name ?? "grok";
    const vars = profile ? (profile.keyVars ?? []) : ["XAI_API_KEY"];
    const fix =
      vars.length > 0
        ? `set ${vars.join(" or ")} in its environment, or sign it in with its own login/config`
        : "sign it in with its own login/config";
    return new SeatError(
      "ACP_NOT_AUTHENTICATED",
      `${agent} is not authenticated (its ${step} answered: ${messageOf(error)}): ${fix}.`,
      { cause: error, context: { agent, step, keyVars: vars } },
    );
  }
  return new SeatError("ACP_HANDSHAKE_FAILED", `ACP ${step} failed: ${messageOf(error)}.`, {
    cause: error,
    context: { step },
  });
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
  const profile = options.profile;
  const agentName = profile ? profile.name : "Grok";
  const choice = (profile?.chooseAuth ?? chooseAuthMethod)(
    init.authMethods ?? [],
    meta.defaultAuthMethodId,
    options.env,
  );
  if (choice.methodId === undefined) {
    throw new SeatError("ACP_NOT_AUTHENTICATED", `${agentName} is ${choice.why}.`, {
      context: { authMethods: (init.authMethods ?? []).map((m) => m.id) },
    });
  }
  if (choice.methodId !== null) {
    try {
      await peer.request(ACP.agent.authenticate, { methodId: choice.methodId, _meta: { headless: true } });
    } catch (error) {
      const fix = profile
        ? "Check the agent's credentials in its environment."
        : "Run `grok login` or set XAI_API_KEY.";
      throw new SeatError(
        "ACP_NOT_AUTHENTICATED",
        `${agentName} refused auth method ${choice.methodId}: ${messageOf(error)}. ${fix}`,
        { cause: error },
      );
    }
  }
  const sessionMeta: Record<string, unknown> = {};
  const delivery = profile?.rulesDelivery ?? "grok-meta";
  if (delivery === "grok-meta") {
    if (options.pluginDirs.length > 0) sessionMeta.pluginDirs = options.pluginDirs;
    if (options.rules) sessionMeta.rules = options.rules;
    if (options.systemPrompt) sessionMeta.systemPromptOverride = options.systemPrompt;
  } else if (delivery === "claude-append") {
    const text = [options.systemPrompt, options.rules].filter(Boolean).join("\n\n");
    if (text) sessionMeta.systemPrompt = { append: text };
  }
  // ACP's own session/new field (Codex): appended to the agent's instructions. "rules-file" travels in the launch.
  const appendText =
    delivery === "acp-system-prompt" ? [options.systemPrompt, options.rules].filter(Boolean).join("\n\n") : "";
  const systemPrompt = appendText
    ? { systemPrompt: { mode: "append", content: [{ type: "text", text: appendText }] } }
    : {};
  const agentVersion = typeof meta.agentVersion === "string" ? meta.agentVersion : undefined;
  const authMethodId = choice.methodId ?? undefined;
  if (options.attach) {
    const attached = await attachSession(peer, init, options.attach, {
      cwd: options.cwd,
      mcpServers: options.mcpServers,
      meta: sessionMeta,
    });
    await setModeAfter(peer, profile, attached.sessionId);
    return {
      initialize: init,
      authMethodId,
      session: { sessionId: attached.sessionId },
      attached,
      ...(agentVersion ? { agentVersion } : {}),
    };
  }
  let session: NewSessionResponse;
  try {
    session = await peer.request<NewSessionResponse>(ACP.agent.session.new, {
      cwd: options.cwd,
      mcpServers: options.mcpServers,
      ...systemPrompt,
      ...(Object.keys(sessionMeta).length > 0 ? { _meta: sessionMeta } : {}),
    });
  } catch (error) {
    throw failed("session/new", error, profile);
  }
  await setModeAfter(peer, profile, session.sessionId);
  return { initialize: init, authMethodId, session, ...(agentVersion ? { agentVersion } : {}) };
}

/** The mode a profile needs set after session/new or an attach (e.g. Claude's `default`, so it asks). */
async function setModeAfter(peer: AcpPeer, profile: HandshakeProfile | undefined, sessionId: string): Promise<void> {
  if (!profile?.setModeAfterNew) return;
  try {
    await peer.request(ACP.agent.session.setMode, { sessionId, modeId: profile.setModeAfterNew });
  } catch (error) {
    throw failed(`session/set_mode ${profile.setModeAfterNew}`, error, profile);
  }
}
