/*
 * Sentinel: a fleet whose Redis is found through Redis Sentinel, and follows its primary through a failover.
 * Owns: parsing `redis+sentinel://[user:password@]host:port[,host:port…]/MASTER_NAME` (`rediss+sentinel://` for
 *   TLS), GROK_SEAT_SENTINEL_PASSWORD (the sentinels' own password), the ioredis Sentinel options (failover
 *   detector on: a `+switch-master` moves every connection at once), and the start-up check that asks the
 *   sentinels themselves — none reachable and a master name none of them knows each end with their own code
 *   within a few seconds, before any connection that could take a job is made.
 * Does not own: plain redis:// URLs or how connections are made (connection.ts); which replicas a mark must
 *   reach (fleet/replication.ts).
 *   Following Sentinel's word: followSwitches() subscribes to `+switch-master` on every sentinel and reconnects the
 *   connections it was given at once (only those connected or connecting to an address: one that is resolving
 *   the master now will find the new one anyway).
 * Invariant: passwords (the URL's and the sentinels') are registered secret before any connection is made; the
 *   check never waits longer than SENTINEL_CHECK_MS in all.
 */
import { Redis } from "ioredis";
import { SeatError, messageOf } from "../errors.js";
import { markSecretNames, registerSecrets } from "../internal/redact.js";
import type { FleetRedisOptions } from "./connection.js";

/** The environment variable the sentinels' own password (`requirepass` of redis-sentinel) comes from. */
export const SENTINEL_PASSWORD_ENV = "GROK_SEAT_SENTINEL_PASSWORD";
markSecretNames([SENTINEL_PASSWORD_ENV]);

/** The whole start-up check of the sentinels stays under this (ms): a bad URL ends in seconds, never hangs. */
export const SENTINEL_CHECK_MS = 3_000;

/** Where the sentinels are and which master they watch. */
export interface SentinelSet {
  name: string;
  sentinels: { host: string; port: number }[];
  /** The sentinels' own password, when set. */
  password?: string;
  tls: boolean;
}

/** True for a URL this file parses. */
export function isSentinelUrl(url: string): boolean {
  return /^rediss?\+sentinel:\/\//i.test(url);
}

const invalid = (why: string) =>
  new SeatError(
    "FLEET_REDIS_URL_INVALID",
    `The Sentinel URL ${why}; give redis+sentinel://[user:password@]host:port[,host:port…]/MASTER_NAME.`,
  );

/**
 * Parses a Sentinel URL into ioredis options (the master's user and password from the URL or `masterPassword`,
 * the sentinels' from GROK_SEAT_SENTINEL_PASSWORD) and the printable URL with the password masked.
 */
export function parseSentinelUrl(
  url: string,
  masterPassword: string | undefined,
  env: NodeJS.ProcessEnv,
): { options: FleetRedisOptions; displayUrl: string; sentinel: SentinelSet } {
  const match = /^(rediss?)\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]*)\/([^/?#]*)$/i.exec(url);
  // Never echo the raw text: it may hold a password.
  if (!match) throw invalid("could not be parsed");
  const tls = match[1]!.toLowerCase() === "rediss";
  const auth = match[2];
  let username: string | undefined;
  let password = masterPassword;
  if (auth !== undefined) {
    const colon = auth.indexOf(":");
    try {
      username = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon)) || undefined;
      if (colon >= 0) password = decodeURIComponent(auth.slice(colon + 1)) || masterPassword;
    } catch {
      throw invalid("has a user or password that is not URL-encoded");
    }
  }
  if (password) registerSecrets({ GROK_SEAT_REDIS_PASSWORD: password });
  const sentinelPassword = env[SENTINEL_PASSWORD_ENV] || undefined;
  if (sentinelPassword) registerSecrets({ [SENTINEL_PASSWORD_ENV]: sentinelPassword });
  const sentinels = match[3]!.split(",").map((hostPort) => {
    const m = /^(\[[0-9a-f:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/i.exec(hostPort);
    if (!m) throw invalid(`lists a sentinel "${hostPort.slice(0, 80)}" that is not host:port`);
    const port = m[2] === undefined ? 26379 : Number(m[2]);
    if (port < 1 || port > 65535) throw invalid(`lists a sentinel port ${port} out of range`);
    return { host: m[1]!.replace(/^\[|\]$/g, ""), port };
  });
  let name: string;
  try {
    name = decodeURIComponent(match[4]!);
  } catch {
    throw invalid("has a master name that is not URL-encoded");
  }
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(name)) throw invalid("must end in /MASTER_NAME (letters, digits, . _ -)");
  const options: FleetRedisOptions = {
    sentinels,
    name,
    role: "master",
    // ioredis's own failover detector is off: a +switch-master that arrives while a connection is resolving the
    // master ends that connection for good (status "end", observed in R9). followSwitches() below does its job.
    failoverDetector: false,
    // A sentinel that does not answer is skipped quickly; the list is kept as given (not rewritten at run time).
    sentinelCommandTimeout: 1_000,
    updateSentinels: false,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(sentinelPassword ? { sentinelPassword } : {}),
    ...(tls ? { tls: {}, enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
  };
  const who = username
    ? `${encodeURIComponent(username)}${password ? ":***" : ""}@`
    : password && auth?.includes(":")
      ? ":***@"
      : "";
  const displayUrl = `${match[1]!.toLowerCase()}+sentinel://${who}${match[3]}/${name}`;
  return {
    options,
    displayUrl,
    sentinel: { name, sentinels, ...(sentinelPassword ? { password: sentinelPassword } : {}), tls },
  };
}

/** A short-lived connection to one sentinel (no retries, no offline queue). */
function sentinelClient(set: SentinelSet, at: { host: string; port: number }, timeoutMs: number): Redis {
  const client = new Redis({
    host: at.host,
    port: at.port,
    ...(set.password ? { password: set.password } : {}),
    ...(set.tls ? { tls: {} } : {}),
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  client.on("error", () => undefined);
  return client;
}

/** Runs `ask` on each sentinel in turn until one answers; resolves its answer and every failure seen. */
export async function askSentinels<T>(
  set: SentinelSet,
  ask: (client: Redis) => Promise<T>,
  budgetMs = SENTINEL_CHECK_MS,
): Promise<{ answer?: T; answered: number; failures: string[] }> {
  const deadline = Date.now() + budgetMs;
  const failures: string[] = [];
  for (const at of set.sentinels) {
    const left = deadline - Date.now();
    if (left <= 50) {
      failures.push(`${at.host}:${at.port}: not asked (time is up)`);
      continue;
    }
    const client = sentinelClient(set, at, Math.min(left, Math.max(500, Math.floor(budgetMs / set.sentinels.length))));
    try {
      await client.connect();
      return { answer: await ask(client), answered: 1, failures };
    } catch (error) {
      failures.push(`${at.host}:${at.port}: ${messageOf(error)}`);
    } finally {
      client.disconnect();
    }
  }
  return { answered: 0, failures };
}

/**
 * Asks the sentinels where master `set.name` is. Throws FLEET_SENTINEL_UNREACHABLE when no sentinel answers,
 * FLEET_SENTINEL_MASTER_UNKNOWN when the one that answered does not know the name; resolves the primary's address.
 */
export async function checkSentinels(set: SentinelSet, displayUrl: string): Promise<{ host: string; port: number }> {
  const found = await askSentinels(
    set,
    async (client) => (await client.call("SENTINEL", "get-master-addr-by-name", set.name)) as [string, string] | null,
  );
  const list = set.sentinels.map((s) => `${s.host}:${s.port}`).join(", ");
  if (found.answered === 0) {
    throw new SeatError(
      "FLEET_SENTINEL_UNREACHABLE",
      `No sentinel of ${displayUrl} answered (${found.failures.join("; ")}). Check that redis-sentinel runs at ${list} and GROK_SEAT_SENTINEL_PASSWORD is right.`,
      { retryable: true, context: { sentinels: list } },
    );
  }
  if (!found.answer) {
    throw new SeatError(
      "FLEET_SENTINEL_MASTER_UNKNOWN",
      `The sentinels of ${displayUrl} do not monitor a master named "${set.name}". Give the name from their \`sentinel monitor\` line (SENTINEL MASTERS lists them).`,
      { context: { master: set.name, sentinels: list } },
    );
  }
  return { host: found.answer[0], port: Number(found.answer[1]) };
}

/** One replica as a sentinel lists it (SENTINEL REPLICAS). */
export interface SentinelReplica {
  address: string;
  flags: string[];
  priority: number;
  /** What the instance itself last said it is ("slave", or "master" for an old primary not yet converted). */
  roleReported: string;
}

/** The replicas the sentinels know for master `set.name` (connected or not), or undefined when none answered. */
export async function sentinelReplicas(set: SentinelSet, budgetMs = 1_500): Promise<SentinelReplica[] | undefined> {
  const found = await askSentinels(
    set,
    async (client) => (await client.call("SENTINEL", "REPLICAS", set.name)) as string[][],
    budgetMs,
  );
  if (!found.answer) return undefined;
  return found.answer.map((flat) => {
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < flat.length; i += 2) map.set(flat[i]!, flat[i + 1]!);
    return {
      address: `${map.get("ip") ?? "?"}:${map.get("port") ?? "?"}`,
      flags: (map.get("flags") ?? "").split(","),
      priority: Number(map.get("replica-priority") ?? map.get("slave-priority") ?? "100"),
      roleReported: map.get("role-reported") ?? "slave",
    };
  });
}

/** Connections that follow a master's moves; close() when none is left. */
export interface SwitchFollower {
  /** Reconnects `redis` whenever the sentinels announce that the master moved. */
  add(redis: Redis | undefined): void;
  /** How many `+switch-master` announcements for this master were acted on. */
  readonly switches: number;
  close(): void;
}

/**
 * Subscribes to `+switch-master` on every sentinel of `set`; on an announcement for its master, every connection
 * added that is connected (or has its socket and awaits its ready check) is dropped and reconnects through the
 * sentinels to the new primary — a stopped primary's connections included, which no timeout would free sooner.
 */
export function followSwitches(set: SentinelSet, log: (line: string) => void = () => undefined): SwitchFollower {
  const tracked = new Set<Redis>();
  let switches = 0;
  // Every sentinel announces the same move: act on it once.
  let last = "";
  const subscribers = set.sentinels.map((at) => {
    const sub = new Redis({
      host: at.host,
      port: at.port,
      ...(set.password ? { password: set.password } : {}),
      ...(set.tls ? { tls: {} } : {}),
      maxRetriesPerRequest: null,
      retryStrategy: (times) => Math.min(100 * times, 1_000),
      connectionName: "grok-seat-sentinel-follow",
    });
    sub.on("error", () => undefined);
    sub.subscribe("+switch-master").catch(() => undefined);
    sub.on("message", (_channel: string, message: string) => {
      const [name, , , host, port] = message.split(" ");
      if (name !== set.name || message === last) return;
      last = message;
      switches++;
      log(`the sentinels moved master ${name} to ${host}:${port}; reconnecting`);
      for (const redis of tracked) if (redis.status === "ready" || redis.status === "connect") redis.disconnect(true);
    });
    return sub;
  });
  return {
    add(redis) {
      // BullMQ's connections are handed over as promises that may resolve to nothing yet: skip those (their
      // socket timeout still frees them).
      if (!redis || typeof redis.once !== "function") return;
      tracked.add(redis);
      redis.once("end", () => tracked.delete(redis));
    },
    get switches() {
      return switches;
    },
    close() {
      for (const sub of subscribers) sub.disconnect();
      tracked.clear();
    },
  };
}
