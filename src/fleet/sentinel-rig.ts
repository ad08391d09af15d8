/*
 * Sentinel rig: a primary, its replicas and three redis-sentinel processes on loopback, each on a reserved port
 *   with its data in one temp dir, for failover tests and the R9 campaign (published on `grok-seat/testing`).
 * Owns: the sentinels' processes and config files (redis-sentinel rewrites its own file, so it lives in the temp
 *   dir), readiness (each sentinel answers for the master and sees every replica), finding the primary now, the
 *   faults (SIGKILL, SIGSTOP/SIGCONT, restart with an empty disk), waiting for a promotion, stop.
 * Does not own: one redis-server (redis-server.ts), what runs against the set.
 * Invariant: stop() leaves no process, no reserved port and no temp dir behind.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { SeatError, messageOf } from "../errors.js";
import { reserveFreePort, type PortReservation } from "./port-reservation.js";
import { startRedisServer, type RedisServer } from "./redis-server.js";

/** Options of startSentinelSet. */
export interface SentinelSetOptions {
  /** The master name the sentinels watch. Default "seatmaster". */
  name?: string;
  /** Replicas of the primary. Default 1. */
  replicas?: number;
  /** Sentinels (quorum is a majority). Default 3. */
  sentinels?: number;
  /** Sentinel's down-after-milliseconds. Default 1000. */
  downAfterMs?: number;
  /** Sentinel's failover-timeout (ms). Default 3000. */
  failoverTimeoutMs?: number;
}

/** A running primary + replicas + sentinels. */
export interface SentinelSetRig {
  /** redis+sentinel://127.0.0.1:p1,127.0.0.1:p2,…/NAME */
  readonly url: string;
  readonly name: string;
  /** Every data server, the first started as primary. */
  readonly servers: readonly RedisServer[];
  readonly sentinelPorts: readonly number[];
  /** The server the sentinels name as primary now (asks them). */
  primary(): Promise<RedisServer>;
  /** Resolves once the sentinels name a primary other than `port` (ms it took), or throws after `timeoutMs`. */
  waitForPromotion(port: number, timeoutMs?: number): Promise<number>;
  /** SIGSTOP / SIGCONT a data server (a wedged host: its kernel still holds connections open). */
  pause(server: RedisServer): void;
  resume(server: RedisServer): void;
  stop(): Promise<void>;
}

function sentinelConfig(
  port: number,
  dir: string,
  name: string,
  primaryPort: number,
  quorum: number,
  options: SentinelSetOptions,
): string {
  return [
    `port ${port}`,
    "bind 127.0.0.1",
    `dir ${JSON.stringify(dir)}`,
    "daemonize no",
    "loglevel warning",
    `sentinel monitor ${name} 127.0.0.1 ${primaryPort} ${quorum}`,
    `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1_000}`,
    `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 3_000}`,
    `sentinel parallel-syncs ${name} 1`,
    "",
  ].join("\n");
}

async function ask<T>(port: number, use: (r: Redis) => Promise<T>): Promise<T | undefined> {
  const r = new Redis({
    host: "127.0.0.1",
    port,
    lazyConnect: true,
    connectTimeout: 500,
    commandTimeout: 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  r.on("error", () => undefined);
  try {
    await r.connect();
    return await use(r);
  } catch {
    return undefined;
  } finally {
    r.disconnect();
  }
}

/** Starts a primary with `replicas` replicas and `sentinels` sentinels; throws FLEET_REDIS_SERVER_FAILED when they do not come up. */
export async function startSentinelSet(options: SentinelSetOptions = {}): Promise<SentinelSetRig> {
  const name = options.name ?? "seatmaster";
  const root = mkdtempSync(join(tmpdir(), "grok-seat-sentinel-"));
  const servers: RedisServer[] = [];
  const sentinels: { child: ChildProcess; port: number; reservation: PortReservation; stderr: () => string }[] = [];
  const stop = async () => {
    for (const s of servers) s.pid !== undefined && resumeQuietly(s.pid);
    await Promise.all(
      sentinels.map(async (s) => {
        if (s.child.exitCode === null && s.child.signalCode === null) {
          const exited = new Promise((r) => s.child.once("exit", r));
          s.child.kill("SIGKILL");
          await exited;
        }
        s.reservation.release();
      }),
    );
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = join(root, "server-0");
    mkdirSync(primaryDir);
    const primary = await startRedisServer({ dir: primaryDir });
    servers.push(primary);
    for (let i = 1; i <= (options.replicas ?? 1); i++) {
      const dir = join(root, `server-${i}`);
      mkdirSync(dir);
      servers.push(await startRedisServer({ dir, replicaOf: primary.port }));
    }
    // Replicas in sync before the sentinels look (a replica still loading is not one they would promote).
    for (const replica of servers.slice(1)) {
      await until(
        async () => ((await ask(replica.port, (r) => r.info("replication"))) ?? "").includes("master_link_status:up"),
        10_000,
        `replica on port ${replica.port} to sync`,
      );
    }
    const count = options.sentinels ?? 3;
    const quorum = Math.floor(count / 2) + 1;
    for (let i = 0; i < count; i++) {
      const reservation = await reserveFreePort();
      const dir = join(root, `sentinel-${i}`);
      mkdirSync(dir);
      const file = join(dir, "sentinel.conf");
      writeFileSync(file, sentinelConfig(reservation.port, dir, name, primary.port, quorum, options));
      const child = spawn("redis-sentinel", [file], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
      let stderr = "";
      child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2_000)));
      child.on("error", () => undefined);
      sentinels.push({ child, port: reservation.port, reservation, stderr: () => stderr });
    }
    for (const s of sentinels) {
      await until(
        async () => {
          if (s.child.exitCode !== null)
            throw new SeatError(
              "FLEET_REDIS_SERVER_FAILED",
              `redis-sentinel on port ${s.port} exited: ${s.stderr().trim()}`,
            );
          const replicas = await ask(s.port, (r) => r.call("SENTINEL", "REPLICAS", name) as Promise<unknown[]>);
          const others = await ask(s.port, (r) => r.call("SENTINEL", "SENTINELS", name) as Promise<unknown[]>);
          return (
            replicas !== undefined &&
            replicas.length === servers.length - 1 &&
            others !== undefined &&
            others.length === count - 1
          );
        },
        15_000,
        `redis-sentinel on port ${s.port} to see the replicas and the other sentinels`,
      );
    }
  } catch (error) {
    await stop();
    throw error instanceof SeatError
      ? error
      : new SeatError("FLEET_REDIS_SERVER_FAILED", `the sentinel set did not start: ${messageOf(error)}`, {
          cause: error,
        });
  }
  const ports = sentinels.map((s) => s.port);
  const primaryPort = async (): Promise<number | undefined> => {
    for (const port of ports) {
      const addr = await ask(
        port,
        (r) => r.call("SENTINEL", "get-master-addr-by-name", name) as Promise<[string, string] | null>,
      );
      if (addr) return Number(addr[1]);
    }
    return undefined;
  };
  return {
    url: `redis+sentinel://${ports.map((p) => `127.0.0.1:${p}`).join(",")}/${name}`,
    name,
    servers,
    sentinelPorts: ports,
    async primary() {
      const port = await primaryPort();
      const found = servers.find((s) => s.port === port);
      if (!found)
        throw new SeatError(
          "FLEET_REDIS_SERVER_FAILED",
          `the sentinels name no primary of this rig (port ${port ?? "none"})`,
        );
      return found;
    },
    async waitForPromotion(port, timeoutMs = 20_000) {
      const started = Date.now();
      await until(
        async () => {
          // Every sentinel names the same new primary (not just the first to answer).
          const named = await Promise.all(
            ports.map((p) =>
              ask(p, (r) => r.call("SENTINEL", "get-master-addr-by-name", name) as Promise<[string, string] | null>),
            ),
          );
          const now = named[0] ? Number(named[0][1]) : undefined;
          if (now === undefined || now === port || named.some((a) => !a || Number(a[1]) !== now)) return false;
          // Promoted means the new primary says so itself (role:master), not only the sentinels' config.
          return ((await ask(now, (r) => r.info("replication"))) ?? "").includes("role:master");
        },
        timeoutMs,
        `the sentinels to promote a replica in place of port ${port}`,
      );
      return Date.now() - started;
    },
    pause: (server) => server.pid !== undefined && void process.kill(server.pid, "SIGSTOP"),
    resume: (server) => server.pid !== undefined && resumeQuietly(server.pid),
    stop,
  };
}

function resumeQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGCONT");
  } catch {
    // already gone
  }
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new SeatError("FLEET_REDIS_SERVER_FAILED", `timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
