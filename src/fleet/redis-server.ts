/*
 * Redis server rig: a real `redis-server` on a loopback port with its data in a temp dir, for tests, benches
 *   and trying a fleet on one machine (published on the `grok-seat/testing` subpath).
 * Owns: the child process, its config (given on stdin, so a password never reaches argv; TLS-only mode with
 *   `tls`: `port 0`, `tls-port`, the given certificate files), the temp dir,
 *   readiness (PING answered by this very process: its INFO process_id is the child's pid), restart on the same
 *   port and dir (AOF replayed), kill -9, stop. The port stays reserved (port-reservation.ts) from start to stop,
 *   down times included, so a rig beside it never picks it up.
 * Does not own: installing Redis (Debian's `redis-server` package; `.ci/run` installs it).
 * Invariant: stop() leaves no process and no temp dir behind (a dir the caller gave is kept).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { reserveFreePort, reservePort, type PortReservation } from "./port-reservation.js";
import { REDIS_CA_ENV, REDIS_CERT_ENV, REDIS_KEY_ENV } from "../redis-tls/index.js";

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
  /**
   * TLS only (`port 0`, `tls-port`): the server's certificate and key and the CA it trusts for clients. With a
   * client certificate the server requires one (`tls-auth-clients yes`; the rig's own probe uses it), else not.
   */
  tls?: { certFile: string; keyFile: string; caFile: string; clientCertFile?: string; clientKeyFile?: string };
  /** Start as a replica of the server on this loopback port (`replicaof 127.0.0.1 <port>`). */
  replicaOf?: number;
}

/** A running redis-server. */
export interface RedisServer {
  /** redis://127.0.0.1:<port> (rediss:// with `tls`; with the password when one was set). */
  readonly url: string;
  /** With `tls`: GROK_SEAT_REDIS_CA (and _CERT / _KEY when a client certificate was given) for a client's env. */
  readonly tlsEnv: Record<string, string>;
  readonly port: number;
  readonly dir: string;
  readonly pid: number | undefined;
  /**
   * SIGKILL (SIGTERM with `kill: false`), stay down `downMs` (default 0), then start again on the same port and
   * dir (what the AOF kept comes back; without AOF, nothing does). `empty`: the data dir is emptied while it is
   * down (a host that lost its disk). `replicaOf`: it comes back as a replica of that loopback port.
   */
  restart(how?: { kill?: boolean; downMs?: number; empty?: boolean; replicaOf?: number }): Promise<void>;
  /** SIGKILL without restarting. */
  kill(): Promise<void>;
  /** SIGTERM (SIGKILL after 5 s) and remove the temp dir. */
  stop(): Promise<void>;
}

function config(port: number, dir: string, options: RedisServerOptions): string {
  const tls = options.tls;
  return [
    ...(tls
      ? [
          "port 0",
          `tls-port ${port}`,
          `tls-cert-file ${JSON.stringify(tls.certFile)}`,
          `tls-key-file ${JSON.stringify(tls.keyFile)}`,
          `tls-ca-cert-file ${JSON.stringify(tls.caFile)}`,
          `tls-auth-clients ${tls.clientCertFile ? "yes" : "no"}`,
        ]
      : [`port ${port}`]),
    "bind 127.0.0.1",
    `dir ${JSON.stringify(dir)}`,
    'save ""',
    `appendonly ${options.appendOnly === false ? "no" : "yes"}`,
    `appendfsync ${options.appendFsync ?? "always"}`,
    "daemonize no",
    "loglevel warning",
    ...(options.password ? [`requirepass ${JSON.stringify(options.password)}`] : []),
    ...(options.password && options.replicaOf !== undefined ? [`masterauth ${JSON.stringify(options.password)}`] : []),
    ...(options.replicaOf !== undefined ? [`replicaof 127.0.0.1 ${options.replicaOf}`] : []),
    "",
  ].join("\n");
}

/** The pid in a server's INFO server section, or undefined. */
function processIdOf(info: string): number | undefined {
  const match = /^process_id:(\d+)/m.exec(info);
  return match ? Number(match[1]) : undefined;
}

/** The error for a port that another redis-server (pid `other`) answers. */
function portTaken(port: number, other: number): SeatError {
  return new SeatError(
    "FLEET_REDIS_PORT_TAKEN",
    `port ${port} is answered by another redis-server (pid ${other}), not the one started here`,
    { context: { port, pid: other } },
  );
}

/**
 * Starts redis-server; throws FLEET_REDIS_SERVER_FAILED when it is missing or does not come up, and
 * FLEET_REDIS_PORT_TAKEN when the port the caller chose is answered by another server.
 */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const ownDir = options.dir === undefined;
  const tls = options.tls;
  const probeTls = tls && {
    ca: readFileSync(tls.caFile),
    ...(tls.clientCertFile && tls.clientKeyFile
      ? { cert: readFileSync(tls.clientCertFile), key: readFileSync(tls.clientKeyFile) }
      : {}),
  };
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), "grok-seat-redis-"));
  let reservation: PortReservation | undefined;
  let port = 0;
  let child: ChildProcess | undefined;
  let stderr = "";
  let replicaOf = options.replicaOf;

  const launch = async () => {
    stderr = "";
    const proc = spawn(options.binary ?? "redis-server", ["-"], { cwd: dir, stdio: ["pipe", "ignore", "pipe"] });
    child = proc;
    proc.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2_000)));
    const failed = new Promise<never>((_, reject) => {
      proc.once("error", (error) =>
        reject(
          new SeatError(
            "FLEET_REDIS_SERVER_FAILED",
            `redis-server could not be started: ${messageOf(error)}. Install Debian's redis-server package.`,
            { cause: error },
          ),
        ),
      );
      proc.once("exit", (code, signal) =>
        reject(
          new SeatError(
            "FLEET_REDIS_SERVER_FAILED",
            `redis-server exited during start (code ${code ?? "none"}, signal ${signal ?? "none"}): ${stderr.trim()}`,
          ),
        ),
      );
    });
    failed.catch(() => undefined);
    proc.stdin?.end(config(port, dir, { ...options, ...(replicaOf !== undefined ? { replicaOf } : {}) }));
    const deadline = Date.now() + (options.readyTimeoutMs ?? 10_000);
    const answering = async (): Promise<number | undefined> => {
      const probe = new Redis({
        host: "127.0.0.1",
        port,
        ...(options.password ? { password: options.password } : {}),
        ...(probeTls ? { tls: probeTls } : {}),
        lazyConnect: true,
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      probe.on("error", () => undefined);
      return probe
        .connect()
        .then(() => probe.info("server"))
        .then(processIdOf, () => undefined)
        .finally(() => probe.disconnect());
    };
    for (;;) {
      // Ready means this very process answers: another server on the port (one that was there first) must not
      // pass for ours, or every client of this rig would talk to it. Ours exiting at once (it could not bind) is
      // told apart the same way.
      const answered = await Promise.race([answering(), failed]).catch(async (error: unknown) => {
        const other = await answering();
        throw other === undefined ? error : portTaken(port, other);
      });
      if (answered === proc.pid) return;
      if (answered !== undefined) {
        proc.kill("SIGKILL");
        throw portTaken(port, answered);
      }
      if (Date.now() > deadline) {
        proc.kill("SIGKILL");
        throw new SeatError(
          "FLEET_REDIS_SERVER_FAILED",
          `redis-server did not answer PING on port ${port} in time: ${stderr.trim()}`,
        );
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
    // A port of our own choice that turns out to be someone else's is left for another one (a few tries).
    for (let attempt = 0; ; attempt++) {
      reservation = options.port === undefined ? await reserveFreePort() : reservePort(options.port);
      port = reservation?.port ?? options.port ?? 0;
      try {
        await launch();
        break;
      } catch (error) {
        reservation?.release();
        reservation = undefined;
        if (!isSeatError(error, "FLEET_REDIS_PORT_TAKEN") || options.port !== undefined || attempt >= 4) throw error;
      }
    }
  } catch (error) {
    if (ownDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const auth = options.password ? `:${encodeURIComponent(options.password)}@` : "";
  const tlsEnv: Record<string, string> = tls
    ? {
        [REDIS_CA_ENV]: tls.caFile,
        ...(tls.clientCertFile && tls.clientKeyFile
          ? { [REDIS_CERT_ENV]: tls.clientCertFile, [REDIS_KEY_ENV]: tls.clientKeyFile }
          : {}),
      }
    : {};
  return {
    url: `${tls ? "rediss" : "redis"}://${auth}127.0.0.1:${port}`,
    tlsEnv,
    port,
    dir,
    get pid() {
      return child?.pid;
    },
    async restart(how = {}) {
      await halt(how.kill === false ? "SIGTERM" : "SIGKILL");
      if (how.empty) for (const entry of readdirSync(dir)) rmSync(join(dir, entry), { recursive: true, force: true });
      if (how.downMs) await new Promise((r) => setTimeout(r, how.downMs));
      if (how.replicaOf !== undefined) replicaOf = how.replicaOf;
      await launch();
    },
    kill: () => halt("SIGKILL"),
    async stop() {
      await halt("SIGTERM");
      reservation?.release();
      reservation = undefined;
      if (ownDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
