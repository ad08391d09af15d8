/*
 * Bare ACP client: the baseline every harness figure is divided by — the official
 *   `@agentclientprotocol/sdk` client app over a child's stdio, with nothing of grok-seat in between.
 * Owns: spawn → initialize → (authenticate) → session/new → one prompt, with timestamps of each phase and a
 *   count of the session/update notifications that reached its handler.
 * Does not own: statistics or reporting (report.ts), or what is compared against it (stream.ts, live.ts).
 */
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

/** Timestamps (performance.now() ms) of one bare run, and what it counted. */
export interface BareRun {
  spawnedAt: number;
  readyAt: number;
  firstChunkAt: number | undefined;
  lastChunkAt: number | undefined;
  endAt: number;
  chunks: number;
  stopReason: string | undefined;
}

/** Options of runBareTurn. */
export interface BareOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  prompt: string;
  /** Authenticate with this method before session/new (real grok needs it; the fake does not care). */
  authMethodId?: string;
  /** Extra env entries for the agent (P2's reaper path adds the reaper's tag). */
  extraEnv?: Record<string, string>;
  /** Called right after the spawn (P2's reaper path starts a reaper here); what it returns runs after the stop. */
  afterSpawn?: (pid: number) => Promise<() => void>;
}

/** A bare turn's phases, in ms from the spawn: ready for a prompt, the first chunk of answer, the end. */
export interface BarePhases {
  ready: number;
  first: number;
  end: number;
}

/** runBareTurn, as phases from the spawn. Throws unless the turn ended `end_turn` with a chunk of answer. */
export async function bareTurnPhases(options: BareOptions): Promise<BarePhases> {
  const run = await runBareTurn(options);
  if (run.stopReason !== "end_turn" || run.firstChunkAt === undefined)
    throw new Error(`bare turn: ${JSON.stringify(run)}`);
  return {
    ready: run.readyAt - run.spawnedAt,
    first: run.firstChunkAt - run.spawnedAt,
    end: run.endAt - run.spawnedAt,
  };
}

/** Spawns the agent, runs one turn through the bare SDK client, and stops the agent. */
export async function runBareTurn(options: BareOptions): Promise<BareRun> {
  const [command, ...args] = options.argv;
  const spawnedAt = performance.now();
  const child = spawn(command!, args, {
    env: { ...options.env, ...options.extraEnv },
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "ignore"],
    detached: true,
  });
  child.stdin.on("error", () => {});
  const afterStop = options.afterSpawn ? await options.afterSpawn(child.pid!) : undefined;
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
  );
  let chunks = 0;
  let firstChunkAt: number | undefined;
  let lastChunkAt: number | undefined;
  const app = acp
    .client({ name: "bare-bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === "agent_message_chunk") {
        lastChunkAt = performance.now();
        firstChunkAt ??= lastChunkAt;
        chunks++;
      }
    })
    .onNotification("*", () => {})
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => ({
      outcome: {
        outcome: "selected" as const,
        optionId: params.options.find((o) => o.kind.startsWith("reject"))?.optionId ?? params.options[0]!.optionId,
      },
    }));
  const connection = app.connect(stream);
  try {
    const agent = connection.agent;
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    if (options.authMethodId) await agent.request(acp.methods.agent.authenticate, { methodId: options.authMethodId });
    const session = await agent.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers: [] });
    const readyAt = performance.now();
    const response = await agent.request(acp.methods.agent.session.prompt, {
      sessionId: session.sessionId,
      prompt: [{ type: "text", text: options.prompt }],
    });
    const endAt = performance.now();
    return { spawnedAt, readyAt, firstChunkAt, lastChunkAt, endAt, chunks, stopReason: response.stopReason };
  } finally {
    connection.close();
    await stopGroup(child.pid!, child);
    afterStop?.();
  }
}

/** SIGKILLs a detached child's process group and waits for the child to be reaped. */
export async function stopGroup(
  pid: number,
  child: { exitCode: number | null; signalCode: string | null; once(event: "exit", cb: () => void): unknown },
): Promise<void> {
  const exited =
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
  await exited;
}
