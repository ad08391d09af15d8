/*
 * Close: end the agent's side of a named session with ACP `session/close`, where the agent advertises it.
 * Owns: the short-lived agent process that attaches to the recorded session and closes it.
 * Does not own: the record (session-store/store.ts: it stays, marked closed, for history) or the lease (open.ts,
 *   session-store/lease.ts).
 * Invariant: the agent process is always terminated before returning; nothing is prompted.
 */
import { resolve } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { ACP, connectAcp } from "../acp/index.js";
import { buildAgentArgv, buildAgentEnv, resolveGrokBinary, spawnAgent } from "../grok/index.js";
import { handshake } from "../runtime/index.js";
import { withTimeout } from "../internal/timeout.js";

/** How a close went: what grok said, or that it does not offer session/close. */
export interface CloseOutcome {
  closed: boolean;
  /** grok's `_meta["x.ai/closeOutcome"]`, or why nothing was sent. */
  outcome: string;
}

/** Attaches to `agentSessionId` in `cwd` and sends session/close when advertised. */
export async function closeAgentSession(input: {
  agentSessionId: string;
  cwd: string;
  grokCliBinaryPath?: string;
  env?: NodeJS.ProcessEnv;
  agentEnv?: Record<string, string>;
  timeoutMs?: number;
}): Promise<CloseOutcome> {
  const env = input.env ?? process.env;
  const binary = await resolveGrokBinary({
    ...(input.grokCliBinaryPath ? { explicitPath: input.grokCliBinaryPath } : {}),
    env,
  });
  const cwd = resolve(input.cwd);
  const agent = await spawnAgent({
    argv: buildAgentArgv({ binary: binary.path }),
    env: buildAgentEnv(env, input.agentEnv ?? {}),
    cwd,
  });
  const peer = await connectAcp(agent.stream, {
    onSessionUpdate() {},
    onExtNotification() {},
    onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }),
  });
  const timeoutMs = input.timeoutMs ?? 60_000;
  try {
    return await withTimeout(
      (async () => {
        const result = await handshake(peer, {
          cwd,
          mcpServers: [],
          pluginDirs: [],
          env,
          clientVersion: "0.1.0",
          attach: { sessionId: input.agentSessionId },
        });
        const caps = result.initialize.agentCapabilities as { sessionCapabilities?: { close?: unknown } } | undefined;
        if (caps?.sessionCapabilities?.close == null)
          return { closed: false, outcome: "this agent does not advertise session/close" };
        const answer = await peer.request<{ _meta?: Record<string, unknown> }>(ACP.agent.session.close, {
          sessionId: input.agentSessionId,
        });
        const outcome = answer?._meta?.["x.ai/closeOutcome"];
        return { closed: true, outcome: typeof outcome === "string" ? outcome : "closed" };
      })(),
      timeoutMs,
      () =>
        new SeatError(
          "SESSION_CLOSE_FAILED",
          `grok did not close session ${input.agentSessionId} within ${timeoutMs} ms.`,
        ),
    );
  } catch (error) {
    if (error instanceof SeatError) throw error;
    throw new SeatError("SESSION_CLOSE_FAILED", `session/close failed: ${messageOf(error)}.`, { cause: error });
  } finally {
    peer.close();
    await agent.terminate({ graceMs: 1_000 });
  }
}
