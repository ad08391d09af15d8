/*
 * Redis server rig: a real `redis-server` on a loopback port with its data in a temp dir, for tests, benches
 *   and trying a fleet on one machine (published on the `grok-seat/testing` subpath).
 * Owns: the child process, its config (given on stdin, so a password never reaches argv), the temp dir,
 *   readiness (PING answered), restart on the same port and dir (AOF replayed), kill -9, stop.
 * Does not own: installing Redis (Debian's `redis-server` package; `.ci/run` installs it).
 * Invariant: stop() leaves no process and no temp dir behind (a dir the caller gave is kept).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { SeatError, messageOf } from "../errors.js";

/** Options of startRedisServer. */
export interface RedisServerOptions {
  /** redis-server to run. Default `redis-server` on PATH. */
  binary?: string;
  /** Port on 127.0.0.1. Default: a free one. */
  port?: number;
  /** Data dir (kept on stop). Default: a temp dir (removed on stop). */
  dir?: string;
  /** Append-only file on (the fleet's guarantee needs it). Default true. */
  appendOnly?: boolean;
  /** AOF fsync policy. Default "always". */
  appendFsync?: "always" | "everysec" | "no";
  /** requirepass (given on stdin, never argv). */
  password?: string;
  /** How long to wait for PING (ms). Default 10000. */
  readyTimeoutMs?: number;
}

/** A running redis-server. */
export interface RedisServer {
  /** redis://127.0.0.1:<port> (with the password when one was set). */
  readonly url: string;
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /**
   * SIGKILL (SIGTERM with `kill: false`), stay down `downMs` (default 0), then start again on the same port and
   * dir (what the AOF kept comes back; without AOF, nothing does).
   */
  restart(how?: { kill?: boolean; downMs?: number }): Promise<void>;
  /** SIGKILL without restarting. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s) and remove the temp dir. */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

function config(port: number, dir: string, options: RedisServerOptions): string {
  return [
    `port ${port}`,
    "bind 127.0.0.1",
    `dir ${JSON.stringify(dir)}`,
    'save ""',
    `appendonly ${options.appendOnly === false ? "no" : "yes"}`,
    `appendfsync ${options.appendFsync ?? "always"}`,
    "daemonize no",
    "loglevel warning",
    ...(options.password ? [`requirepass ${JSON.stringify(options.password)}`] : []),
    "",
  ].join("\n");
}

/** Starts redis-server; throws FLEET_REDIS_SERVER_FAILED when it is missing or does not come up. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const ownDir = options.dir === undefined;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "grok-seat-redis-"));
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  const url = `redis://${auth}127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let stderr = "";

  const launch = async () => {
    stderr = "";
    const proc = spawn(options.binary ?? "redis-server", ["-"], { cwd: dir, stdio: ["pipe", "ignore", "pipe"] });
    child = proc;
    proc.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2_000)));
    const failed = new Promise<never>((_, reject) => {
      proc.once("error", (error) => reject(new SeatError("FLEET_REDIS_SERVER_FAILED", `redis-server could not be started: ${messageOf(error)}. Install Debian's redis-server package.`, { cause: error })));
      proc.once("exit", (code, signal) => reject(new SeatError("FLEET_REDIS_SERVER_FAILED", `redis-server exited during start (code ${code ?? "none"}, signal ${signal ?? "none"}): ${stderr.trim()}`)));
    });
    failed.catch(() => undefined);
    proc.stdin?.end(config(port, dir, options));
    const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
    for (;;) {
      const probe = new Redis({ host: "127.0.0.1", port, ...(options.password ? { password: options.password } : {}), lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on("error", () => undefined);
      const ok = await Promise.race([probe.connect().then(() => probe.ping()).then(() => true, () => false), failed]);
      probe.disconnect();
      if (ok) return;
      if (Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new SeatError("FLEET_REDIS_SERVER_FAILED", `redis-server did not answer PING on port ${port} in time: ${stderr.trim()}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const halt = async (signal: NodeJS.Signals) => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill(signal);
    const timer = setTimeout(() => proc.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };

  try {
    await launch();
  } catch (error) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    dir,
    get pid() {
      return child?.pid;
    },
    async restart(how = {}) {
      await halt(how.kill === false ? "SIGTERM" : "SIGKILL");
      if (how.downMs) await new Promise((r) => setTimeout(r, how.downMs));
      await launch();
    },
    kill: () => halt("SIGKILL"),
    async stop() {
      await halt("SIGTERM");
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
