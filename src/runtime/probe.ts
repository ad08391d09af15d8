/*
 * ACP probe: start the agent just long enough to read what it advertises at initialize.
 * Owns: the "authenticated-ACP readiness" answer, kept apart from binary readiness (grok --version).
 * Does not own: version parsing (grok/) or sessions (session.ts).
 * Invariant: never rejects; the agent process is always terminated before returning.
 */
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { messageOf } from "../errors.js";
import { ACP, connectAcp } from "../acp/index.js";
import { buildAgentArgv, buildAgentEnv, spawnAgent } from "../grok/index.js";
import { withTimeout } from "../internal/timeout.js";
import { chooseAuthMethod } from "./auth.js";

/** What the agent advertised. */
export interface AcpProbe {
  /** True when initialize answered and a usable headless auth method exists. */
  acpReady: boolean;
  authMethods: string[];
  defaultAuthMethodId?: string;
  /** The method a session would use, or why none. */
  authChoice: string;
  agentVersion?: string;
  protocolVersion?: number;
  loadSession?: boolean;
  error?: string;
}

/** Spawns `grok agent --no-leader stdio`, sends initialize, and reports what it advertised. */
export async function probeAcp(options: { binary: string; env?: NodeJS.ProcessEnv; agentEnv?: Record<string, string>; cwd?: string; timeoutMs?: number }): Promise<AcpProbe> {
  const env = options.env ?? process.env;
  let agent;
  try {
    agent = await spawnAgent({ argv: buildAgentArgv({ binary: options.binary }), env: buildAgentEnv(env, options.agentEnv ?? {}), cwd: options.cwd ?? process.cwd() });
  } catch (error) {
    return { acpReady: false, authMethods: [], authChoice: "agent did not start", error: messageOf(error) };
  }
  const peer = connectAcp(agent.stream, {
    onSessionUpdate() {},
    onExtNotification() {},
    onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
  });
  try {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const init = await withTimeout(
      peer.request<InitializeResponse>(ACP.agent.initialize, { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false }, clientInfo: { name: "grok-seat-probe", version: "0.1.0" } }),
      timeoutMs,
      () => new Error(`no initialize answer within ${timeoutMs} ms`),
    );
    const meta = (init._meta ?? {}) as Record<string, unknown>;
    const choice = chooseAuthMethod(init.authMethods ?? [], meta.defaultAuthMethodId, env);
    return {
      acpReady: choice.methodId !== undefined,
      authMethods: (init.authMethods ?? []).map((m) => m.id),
      ...(typeof meta.defaultAuthMethodId === "string" ? { defaultAuthMethodId: meta.defaultAuthMethodId } : {}),
      authChoice: choice.methodId ?? choice.why,
      ...(typeof meta.agentVersion === "string" ? { agentVersion: meta.agentVersion } : {}),
      protocolVersion: init.protocolVersion,
      loadSession: init.agentCapabilities?.loadSession === true,
    };
  } catch (error) {
    return { acpReady: false, authMethods: [], authChoice: "initialize failed", error: `${messageOf(error)}; stderr: ${agent.stderrTail(1000).trim()}` };
  } finally {
    peer.close();
    await agent.terminate({ graceMs: 1_000 });
  }
}
