/*
 * ACP probe: start the agent just long enough to read what it advertises at initialize.
 * Owns: the "authenticated-ACP readiness" answer, kept apart from binary readiness (grok --version).
 * Does not own: version parsing (grok/) or sessions (session.ts).
 * Other agents: given a profile's launch (agent-launch.ts) and auth rule, the same probe reports what that agent
 *   advertised, including its capabilities (load/resume, images, MCP transports) for `seat agents`.
 * Invariant: never rejects; the agent process is always terminated before returning.
 */
import type { InitializeResponse } from "@agentclientprotocol/sdk";
import { messageOf } from "../errors.js";
import { ACP, connectAcp } from "../acp/index.js";
import { buildAgentArgv, buildAgentEnv, spawnAgent } from "../grok/index.js";
import { withTimeout } from "../internal/timeout.js";
import { chooseAuthMethod, type AuthChoice, type AdvertisedAuthMethod } from "../agents/index.js";

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
  /** What initialize advertised beyond load (non-grok agents report these in `seat agents`). */
  capabilities?: { resume: boolean; image: boolean; audio: boolean; mcpHttp: boolean; mcpSse: boolean };
  /** The agent's name and version from initialize's agentInfo, when given. */
  agentInfo?: { name?: string; version?: string };
  error?: string;
}

/** Probe options: grok's binary, or another agent's ready launch and auth rule. */
export interface ProbeOptions {
  binary?: string;
  /** A non-grok agent: argv and env from agent-launch.ts, and its auth rule. */
  launch?: {
    argv: string[];
    env: Record<string, string>;
    chooseAuth(advertised: readonly AdvertisedAuthMethod[], defaultId: unknown, env: NodeJS.ProcessEnv): AuthChoice;
  };
  env?: NodeJS.ProcessEnv;
  agentEnv?: Record<string, string>;
  cwd?: string;
  timeoutMs?: number;
}

/** Spawns the agent (`grok agent --no-leader stdio` by default), sends initialize, and reports what it advertised. */
export async function probeAcp(options: ProbeOptions): Promise<AcpProbe> {
  const env = options.launch ? options.launch.env : (options.env ?? process.env);
  let agent;
  try {
    const argv = options.launch ? options.launch.argv : buildAgentArgv({ binary: options.binary ?? "grok" });
    const agentEnv = options.launch ? options.launch.env : buildAgentEnv(env, options.agentEnv ?? {});
    agent = await spawnAgent({ argv, env: agentEnv, cwd: options.cwd ?? process.cwd() });
  } catch (error) {
    return { acpReady: false, authMethods: [], authChoice: "agent did not start", error: messageOf(error) };
  }
  const peer = await connectAcp(agent.stream, {
    onSessionUpdate() {},
    onExtNotification() {},
    onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
  });
  try {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const init = await withTimeout(
      peer.request<InitializeResponse>(ACP.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "grok-seat-probe", version: "0.1.0" },
      }),
      timeoutMs,
      () => new Error(`no initialize answer within ${timeoutMs} ms`),
    );
    const meta = (init._meta ?? {}) as Record<string, unknown>;
    const choice = (options.launch?.chooseAuth ?? chooseAuthMethod)(
      init.authMethods ?? [],
      meta.defaultAuthMethodId,
      env,
    );
    const caps = init.agentCapabilities ?? {};
    const info = (init as { agentInfo?: { name?: unknown; version?: unknown } }).agentInfo;
    return {
      acpReady: choice.methodId !== undefined,
      capabilities: {
        resume:
          typeof (caps as { sessionCapabilities?: { resume?: unknown } }).sessionCapabilities?.resume === "object",
        image: caps.promptCapabilities?.image === true,
        audio: caps.promptCapabilities?.audio === true,
        mcpHttp: caps.mcpCapabilities?.http === true,
        mcpSse: caps.mcpCapabilities?.sse === true,
      },
      ...(info
        ? {
            agentInfo: {
              ...(typeof info.name === "string" ? { name: info.name } : {}),
              ...(typeof info.version === "string" ? { version: info.version } : {}),
            },
          }
        : {}),
      authMethods: (init.authMethods ?? []).map((m) => m.id),
      ...(typeof meta.defaultAuthMethodId === "string" ? { defaultAuthMethodId: meta.defaultAuthMethodId } : {}),
      authChoice: choice.methodId === null ? `agent-managed (${choice.why})` : (choice.methodId ?? choice.why),
      ...(typeof meta.agentVersion === "string" ? { agentVersion: meta.agentVersion } : {}),
      protocolVersion: init.protocolVersion,
      loadSession: init.agentCapabilities?.loadSession === true,
    };
  } catch (error) {
    return {
      acpReady: false,
      authMethods: [],
      authChoice: "initialize failed",
      error: `${messageOf(error)}; stderr: ${agent.stderrTail(1000).trim()}`,
    };
  } finally {
    peer.close();
    await agent.terminate({ graceMs: 1_000 });
  }
}
