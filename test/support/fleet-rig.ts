/*
 * Fleet rig: a real redis-server on loopback plus `seat worker` processes, each a simulated host with its own
 *   HOME (and GROK_HOME when it runs the real grok), for the fleet's integration and live tests.
 * Owns: starting and killing workers (separate processes), the fake agent wrapper that logs every prompt it
 *   receives (FAKE_GROK_PROMPT_LOG, one promptId a line: the nonce count at the agent), a live rig started beside
 *   a fleet (startLiveFleet), teardown of all of it.
 */
import { spawnSync, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startRedisServer, type MockScript, type RedisServer, type RedisServerOptions } from "../../src/testing.js";
import { connectFleet, type CursorEvent, type FleetClient, type JobEvent } from "../../src/fleet/index.js";
import { FAKE_GROK_JS } from "./fake-agent.js";
import { startSeat, type CliResult } from "./cli.js";
import { startLiveRig, type LiveRig } from "./live-rig.js";
import { gotLive, need, type TestLike } from "./requirements.js";
import { untilDefined } from "./poll.js";

/** Why redis-server cannot be used here, or false. */
export function redisMissing(): string | false {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0
    ? false
    : "redis-server (Debian package redis-server, not on PATH)";
}

/** One simulated host running `seat worker`. */
export interface WorkerProc {
  name: string;
  home: string;
  child: ChildProcess;
  done: Promise<CliResult>;
  stderr(): string;
  /** promptIds the fake agent on this host received (empty for the real grok). */
  prompts(): string[];
  /** Whether a fake agent of this host is running now (found in /proc by its prompt log's path). */
  agentRunning(): boolean;
}

/** A fleet on one machine. */
export interface FleetRig {
  redis: RedisServer;
  root: string;
  workers: WorkerProc[];
  /** Starts `seat worker` as host `name`; resolves once it announced itself on stdout. */
  /** `redisUrl`: where the worker connects instead of the rig's server (a proxy in front of it, say). */
  startWorker(
    name: string,
    how?: { scenario?: string; env?: Record<string, string>; args?: string[]; redisUrl?: string },
  ): Promise<WorkerProc>;
  close(): Promise<void>;
}

/** Starts redis-server in a temp dir (AOF on, fsync always, unless `redisOptions` say otherwise). */
export async function startFleetRig(redisOptions: RedisServerOptions = {}): Promise<FleetRig> {
  const redis = await startRedisServer(redisOptions);
  const root = mkdtempSync(join(tmpdir(), "seat-fleet-"));
  const workers: WorkerProc[] = [];
  return {
    redis,
    root,
    workers,
    async startWorker(name, how = {}) {
      const home = join(root, `${name}-${workers.length}`);
      mkdirSync(home, { recursive: true });
      const log = join(home, "prompts.log");
      const grok = join(home, "grok");
      const scenario = how.scenario ? `FAKE_GROK_SCENARIO=${how.scenario} ` : "";
      writeFileSync(
        grok,
        `#!/bin/sh\n${scenario}FAKE_GROK_PROMPT_LOG=${JSON.stringify(log)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
      );
      chmodSync(grok, 0o755);
      const env = {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: home,
        GROK_SEAT_HOME: join(home, ".grok-seat"),
        GROK_BIN: grok,
        ...(how.env ?? {}),
      };
      const run = startSeat(["worker", "--redis", how.redisUrl ?? redis.url, "--name", name, ...(how.args ?? [])], {
        env,
        cwd: home,
      });
      let stderr = "";
      run.child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const deadline = Date.now() + 20_000;
      while (!run.stdout().includes('"type":"worker"')) {
        if (run.child.exitCode !== null || Date.now() > deadline)
          throw new Error(`seat worker ${name} did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 25));
      }
      const proc: WorkerProc = {
        name,
        home,
        child: run.child,
        done: run.done,
        stderr: () => stderr,
        prompts: () =>
          existsSync(log)
            ? readFileSync(log, "utf8")
                .split("\n")
                .filter((l) => l !== "")
            : [],
        agentRunning: () => processWithEnv(`FAKE_GROK_PROMPT_LOG=${log}`),
      };
      workers.push(proc);
      return proc;
    },
    async close() {
      for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill("SIGKILL");
      await Promise.all(workers.map((w) => w.done));
      await redis.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A live rig (the real grok, the mock model) and a fleet rig (real redis-server) started together for one test. */
export interface LiveFleet {
  live: LiveRig;
  fleet: FleetRig;
  /** The environment a worker host runs the real grok with: the live sandbox's HOME and GROK_HOME, and its grok. */
  hostEnv: Record<string, string>;
  /** Closes the fleet (workers, then redis-server), then the live rig. */
  close(): Promise<void>;
}

/**
 * Starts a live rig on `script` and a fleet rig, or returns undefined when redis-server or the real grok is missing
 * (`need` and `gotLive` then fail the test in required mode, or skip it).
 */
export async function startLiveFleet(t: TestLike, script?: MockScript): Promise<LiveFleet | undefined> {
  if (!need(t, redisMissing())) return undefined;
  const live = await startLiveRig(script);
  if (!gotLive(t, live)) return undefined;
  const fleet = await startFleetRig().catch(async (error: unknown) => {
    await live.close();
    throw error;
  });
  return {
    live,
    fleet,
    hostEnv: { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary },
    async close() {
      await fleet.close();
      await live.close();
    },
  };
}

/** Runs `body` on a live fleet (`startLiveFleet`) and always closes it after; does nothing when the test was skipped. */
export async function withLiveFleet(
  t: TestLike,
  script: MockScript | undefined,
  body: (rigs: LiveFleet) => Promise<void>,
): Promise<void> {
  const rigs = await startLiveFleet(t, script);
  if (!rigs) return;
  try {
    await body(rigs);
  } finally {
    await rigs.close();
  }
}

/** Whether some process of this user has `entry` (NAME=value) in its environment. */
function processWithEnv(entry: string): boolean {
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(entry)) return true;
    } catch {
      // gone, or not ours
    }
  }
  return false;
}

/** Polls `check` every 25 ms until it returns a value or `timeoutMs` passes. */
export function until<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs: number,
  what: string,
): Promise<T> {
  return untilDefined(what, check, { timeoutMs, everyMs: 25 });
}

/** Worker flags that find a stopped or dead worker's job within ~4 s (BullMQ lock 2 s, stalled check 1 s). */
export const FAST_STALL = ["--lock-duration", "2", "--stalled-interval", "1"];

/** A host-tools module with one tool that does nothing, written under `root`: MCP readiness then waits for it. */
function noopTools(root: string): string {
  const tools = join(root, "noop-tools.mjs");
  writeFileSync(
    tools,
    `export const tools = [{ name: "noop", description: "Does nothing.", inputSchema: { type: "object", properties: {} }, execute: () => "ok" }];\n`,
  );
  return tools;
}

/**
 * A fake-agent scenario whose sessions become ready `delayMs` after session/new (MCP readiness waits for the
 * worker's one host tool), and that tools module: a window in which a taken job is active but not dispatched.
 * Returns the worker args that use both.
 */
export function slowStart(root: string, delayMs: number, prompt?: unknown): { scenario: string; args: string[] } {
  const scenario = join(root, `slow-start-${delayMs}.json`);
  writeFileSync(
    scenario,
    JSON.stringify({
      name: "slow-start",
      newSession: { mcpInitializedDelayMs: delayMs, mcpToolCount: 1 },
      ...(prompt ? { prompt } : {}),
    }),
  );
  return { scenario, args: ["--tools", noopTools(root)] };
}

/**
 * A fake-agent scenario whose sessions become ready only once `open()` is called (MCP readiness waits for the
 * worker's one host tool): a window, as long as the test wants, in which a taken job is active but not dispatched.
 */
export function gatedStart(root: string): { scenario: string; args: string[]; open: () => void } {
  const gate = join(root, "start-gate");
  const scenario = join(root, "gated-start.json");
  writeFileSync(
    scenario,
    JSON.stringify({ name: "gated-start", newSession: { mcpInitializedAfterFile: gate, mcpToolCount: 1 } }),
  );
  return { scenario, args: ["--tools", noopTools(root)], open: () => writeFileSync(gate, "open\n") };
}

/**
 * Runs `body` on a fresh fleet (redis-server) and a connected client, closing both after; fails in required mode
 * (skips otherwise) when redis-server is missing.
 */
export async function withFleet(
  t: TestLike,
  body: (rig: FleetRig, client: FleetClient) => Promise<void>,
): Promise<void> {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const client = await connectFleet(rig.redis.url);
  try {
    await body(rig, client);
  } finally {
    await client.close();
    await rig.close();
  }
}

/** Every `job` event of job `id`'s stream, once the job has ended. */
export async function jobEvents(client: FleetClient, id: string): Promise<JobEvent[]> {
  const out: JobEvent[] = [];
  for await (const { event } of client.job(id).events()) if (event.type === "job") out.push(event);
  return out;
}

/** Resolves the first event matching `pick` in job `id`'s stream (rejects when the job ends without it). */
export async function waitForEvent(
  client: FleetClient,
  id: string,
  pick: (e: CursorEvent["event"]) => boolean,
): Promise<CursorEvent> {
  for await (const item of client.job(id).events()) if (pick(item.event)) return item;
  throw new Error(`job ${id} ended without the awaited event`);
}
