/*
 * Agent process: spawn `grok agent … stdio` and hand its stdio to ACP as a message stream.
 * Owns: the child process — spawn (own process group, all stdio piped), stderr draining, exit, terminate.
 * Does not own: ACP itself (acp/ consumes `stream`) or the argv/env (launch.ts builds them).
 * Invariant: spawn failures become GROK_SPAWN_FAILED (never an unhandled 'error' event); stderr is always
 *   drained so the child never blocks on a full pipe; terminate leaves no descendant alive; every agent has a
 *   reaper (reaper.ts) from its first moment, so no process of its tree outlives this one, even when SIGKILLed.
 * Spec: grok-wire reference §4 and §15 (pipe all stdio; spawn on the main thread for PDEATHSIG).
 */
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type { Stream } from "@agentclientprotocol/sdk";
import { SeatError } from "../errors.js";
import { loadAcpSdk } from "../internal/acp-sdk.js";
import { killProcessTree, readProcStat } from "./process-tree.js";
import { trackAgentGroup, untrackAgentGroup } from "./exit-reaper.js";
import { newReaperTag, ownerReaper, REAPER_TAG_ENV, type Reaper } from "./reaper.js";

/** Options for spawnAgent: a full argv (see buildAgentArgv), an env (see buildAgentEnv) and a cwd. */
export interface SpawnAgentOptions {
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Capacity of the stderr ring buffer in bytes; default 256 KiB. */
  stderrCapacityBytes?: number;
  /**
   * Start the reaper process that ends the agent's tree should this process die, even by SIGKILL (reaper.ts).
   * Default true; false only to measure what it costs (bench P2).
   */
  reaper?: boolean;
}

/** How the agent process ended. */
export interface AgentExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running agent: its ACP stream, its stderr tail, its exit, and a way to stop it and all its descendants. */
export interface AgentProcess {
  pid: number;
  /** The process start time from /proc (Linux), which with `pid` identifies this process instance. */
  startTime?: string;
  /** Pid of the reaper process guarding this agent's tree, shared by this process's agents (none with `reaper: false`). */
  reaperPid?: number;
  stream: Stream;
  /** The last `maxBytes` (default 8 KiB) of stderr, decoded as UTF-8. */
  stderrTail(maxBytes?: number): string;
  /**
   * Resolves once stderr has closed (everything the agent wrote is in the tail), or after `waitMs` (default 500)
   * if it has not: an agent that dies writing its last words is heard before anyone reads the tail.
   */
  stderrSettled(waitMs?: number): Promise<void>;
  exited: Promise<AgentExit>;
  /** Stops the group and every descendant (TERM, `graceMs` default 2000, KILL); idempotent. */
  terminate(options?: { graceMs?: number }): Promise<{ survivors: number[] }>;
}

class ByteRing {
  private chunks: Buffer[] = [];
  private size = 0;
  constructor(private readonly capacity: number) {}
  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size - (this.chunks[0]?.length ?? 0) >= this.capacity && this.chunks.length > 1) {
      this.size -= this.chunks.shift()!.length;
    }
  }
  tail(maxBytes: number): string {
    const all = Buffer.concat(this.chunks);
    return all.subarray(Math.max(0, all.length - maxBytes)).toString("utf8");
  }
}

/**
 * Spawns the agent from the calling (main) thread with stdin/stdout/stderr as pipes and `detached: true`
 * (its own process group), resolving once the OS reports it started. Rejects with GROK_SPAWN_FAILED.
 */
export async function spawnAgent(options: SpawnAgentOptions): Promise<AgentProcess> {
  const [command, ...args] = options.argv;
  if (!command)
    throw new SeatError("GROK_SPAWN_FAILED", "spawnAgent got an empty argv. Build it with buildAgentArgv().", {
      context: { command: [] },
    });
  // The tag lets the reaper find the agent's descendants wherever they were reparented (reaper-main.ts).
  const tag = options.reaper === false ? undefined : newReaperTag();
  const env = tag ? { ...options.env, [REAPER_TAG_ENV]: tag } : options.env;
  const child = spawn(command, args, {
    env,
    cwd: options.cwd,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    shell: false,
    windowsHide: true,
  });
  const ring = new ByteRing(options.stderrCapacityBytes ?? 256 * 1024);
  child.stderr.on("data", (c: Buffer) => ring.push(c));
  const stderrClosed = new Promise<void>((resolve) => child.stderr.once("close", () => resolve()));
  // EPIPE on a dead child's stdin surfaces through the web stream; keep it from becoming an uncaught error.
  child.stdin.on("error", () => {});
  child.stdout.on("error", () => {});
  child.stderr.on("error", () => {});
  const exited = new Promise<AgentExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new SeatError(
      "GROK_SPAWN_FAILED",
      `Could not start \`${options.argv.join(" ")}\`${options.cwd ? ` in ${options.cwd}` : ""}: ${code ?? (err as Error).message}. Check the binary path (resolveGrokBinary) and that the cwd exists.`,
      {
        context: { command: [...options.argv], cwd: options.cwd, errno: code, stderrTail: ring.tail(4096) },
        cause: err,
      },
    );
  }
  // Later 'error' events (e.g. a failed kill) must not crash the host; exit is reported through `exited`.
  child.on("error", () => {});
  const pid = child.pid!;
  const startTime = readProcStat(pid)?.startTicks;
  // Should this process end without dispose, its exit hook kills the agent's group (exit-reaper.ts).
  trackAgentGroup(pid, startTime);
  void exited.then(() => untrackAgentGroup(pid));
  // Should this process be killed outright, its reaper (one process per owner) ends the agent's tree
  // (reaper-main.ts). Its first fork and the SDK's load overlap the agent's start-up; stdout waits in the pipe.
  // The guard line goes out the moment the reaper is there, not after the SDK load: the window in which a killed
  // owner leaves this agent unguarded stays as short as the fork.
  const reaperStarting =
    options.reaper === false
      ? undefined
      : ownerReaper().then(
          (r) => (r.guard(pid, startTime, tag), r),
          (err: unknown) => err as Error,
        );
  const { ndJsonStream } = await loadAcpSdk();
  const reaper: Reaper | Error | undefined = await reaperStarting;
  if (reaper instanceof Error) {
    await killProcessTree(pid, { graceMs: 0, pgid: pid, rootStartTime: startTime });
    untrackAgentGroup(pid);
    child.stdin.destroy();
    child.stdout.destroy();
    child.stderr.destroy();
    throw reaper;
  }
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>,
  );
  let terminating: Promise<{ survivors: number[] }> | undefined;
  return {
    pid,
    startTime,
    ...(reaper ? { reaperPid: reaper.pid } : {}),
    stream,
    stderrTail: (maxBytes = 8192) => ring.tail(maxBytes),
    stderrSettled: async (waitMs = 500) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([stderrClosed, new Promise<void>((resolve) => (timer = setTimeout(resolve, waitMs)))]);
      clearTimeout(timer);
    },
    exited,
    terminate: ({ graceMs = 2000 } = {}) => {
      terminating ??= killProcessTree(pid, { graceMs, pgid: pid, rootStartTime: startTime }).then(async (r) => {
        // Close our ends so the web streams settle instead of waiting on pipes held by nobody.
        child.stdin.destroy();
        child.stdout.destroy();
        child.stderr.destroy();
        // The tree is stopped; the reaper ends whatever it tracked that left the tree, then exits.
        reaper?.release(pid);
        return r;
      });
      return terminating;
    },
  };
}
