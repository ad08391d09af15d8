/*
 * Fleet connection: a Redis URL turned into ioredis connections, with the password kept secret.
 * Owns: URL parsing (redis://[user][:password@]host[:port][/db]), GROK_SEAT_REDIS_PASSWORD from the
 *   environment, registering the password with the one redaction point, and the printable form of a URL.
 * Does not own: what the connections are used for.
 * Invariant: a password (in the URL or the environment) is registered as a secret before any connection is
 *   made, so every error, log line and output masks it; `displayUrl` never contains it.
 */
import { Redis, type RedisOptions } from "ioredis";
import { SeatError } from "../errors.js";
import { markSecretNames, redactText, registerSecretValue, registerUrlPassword } from "../internal/redact.js";
import { afterHandshake, clearFailure, describeFailure, fatalCause, noteFailure } from "./redis-failure.js";
import { tlsOptions } from "../redis-tls/index.js";
import { checkSentinels, isSentinelUrl, parseSentinelUrl, type SentinelSet } from "./sentinel.js";

/** The environment variable a password may come from instead of the URL (argv is visible to `ps`). */
export const REDIS_PASSWORD_ENV = "GROK_SEAT_REDIS_PASSWORD";
markSecretNames([REDIS_PASSWORD_ENV]);
/** The environment variable an ACL user name may come from instead of the URL (`seat fleet acl` prints the users). */
export const REDIS_USERNAME_ENV = "GROK_SEAT_REDIS_USERNAME";

/**
 * ioredis options as BullMQ 6 takes them: its type has no `retryStrategy: null` (ioredis's allows it), so the
 * fleet's options say they never set it to null and pass to `new Queue/Worker({ connection })` as they are.
 */
export type FleetRedisOptions = RedisOptions & { retryStrategy?: (times: number) => number | undefined | null };

/** Where a fleet's Redis is. */
export interface RedisTarget {
  options: FleetRedisOptions;
  /** The URL with any password masked. */
  displayUrl: string;
  /** Set for a redis+sentinel:// URL: the sentinels and the master name they watch. */
  sentinel?: SentinelSet;
}

/** Parses `url`; a password comes from the URL or GROK_SEAT_REDIS_PASSWORD, and is registered secret. */
export function parseRedisUrl(url: string, env: NodeJS.ProcessEnv = process.env): RedisTarget {
  if (isSentinelUrl(url)) return parseSentinelUrl(url, env[REDIS_PASSWORD_ENV] || undefined, env);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Never echo the raw text: it may hold a password.
    throw new SeatError(
      "FLEET_REDIS_URL_INVALID",
      "The Redis URL could not be parsed; give redis://[:password@]host[:port][/db].",
    );
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new SeatError(
      "FLEET_REDIS_URL_INVALID",
      `The Redis URL must start with redis://, rediss:// or redis+sentinel://, not ${parsed.protocol}//.`,
    );
  }
  // Registered before anything below can fail, both as written in the URL and decoded.
  registerUrlPassword(url, REDIS_PASSWORD_ENV);
  const password = parsed.password ? decodeURIComponent(parsed.password) : env[REDIS_PASSWORD_ENV];
  const username = parsed.username ? decodeURIComponent(parsed.username) : env[REDIS_USERNAME_ENV] || undefined;
  if (password) registerSecretValue(REDIS_PASSWORD_ENV, password);
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db))
    throw new SeatError(
      "FLEET_REDIS_URL_INVALID",
      `The Redis URL's database must be a number, not "${redactText(db)}".`,
    );
  const options: FleetRedisOptions = {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(db ? { db: Number(db) } : {}),
  };
  // rediss://: the CA and client certificate from GROK_SEAT_REDIS_CA / _CERT / _KEY, read and checked now.
  const tls = tlsOptions(parsed.protocol === "rediss:", env);
  if (tls) options.tls = tls;
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  return { options, displayUrl: shown.toString() };
}

/**
 * A socket with a command outstanding that hears nothing for this long is dropped and reconnected (ms): a
 * wedged primary (SIGSTOPped: its kernel still holds the connection open) never hangs a caller forever. Above
 * BullMQ's longest blocking read (10 s) so a quiet queue is never mistaken for a wedged server.
 */
export const SOCKET_TIMEOUT_MS = 15_000;

/** A command on a non-blocking connection that gets no reply this long fails (ms); above WAIT's own timeout. */
export const COMMAND_TIMEOUT_MS = 10_000;

/**
 * Checks, before any connection is made, what can be checked: for a Sentinel URL, that a sentinel answers and
 * knows the master (FLEET_SENTINEL_UNREACHABLE, FLEET_SENTINEL_MASTER_UNKNOWN, within a few seconds).
 */
export async function checkTarget(target: RedisTarget): Promise<void> {
  if (target.sentinel) await checkSentinels(target.sentinel, target.displayUrl);
}

/**
 * A new ioredis connection. `blocking` ones (BullMQ workers, XREAD BLOCK, subscribers) retry forever;
 * others fail a command after a few reconnect attempts so a CLI never hangs on a dead Redis.
 */
export function connect(target: RedisTarget, how: { blocking?: boolean; name?: string } = {}): Redis {
  const redis = new Redis({
    ...target.options,
    lazyConnect: false,
    ...(how.blocking ? { maxRetriesPerRequest: null } : { maxRetriesPerRequest: 3 }),
    // A failed TLS handshake or login before the first ready is not retried by a connection that must not hang
    // (a CLI, a worker's start): it cannot pass by itself. Blocking ones, and any that was ready once, keep
    // trying (a Redis restart, a certificate or user fixed in place).
    retryStrategy: (times) =>
      !how.blocking && !wasReady && fatalCause(last) !== undefined ? null : Math.min(50 * times, 1_000),
    ...(how.name ? { connectionName: how.name } : {}),
    socketTimeout: SOCKET_TIMEOUT_MS,
    ...(how.blocking ? {} : { commandTimeout: COMMAND_TIMEOUT_MS }),
    // A primary demoted to replica answers writes with READONLY: reconnect (through the sentinels, to the new one).
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  });
  let last: unknown;
  let wasReady = false;
  // TLS handshake done ("connect"), no reply read yet ("ready"): a reset now is the server refusing us.
  let handshook = false;
  redis.on("connect", () => (handshook = target.options.tls !== undefined));
  redis.on("close", () => (handshook = false));
  // ioredis emits connection errors as events; they surface as command failures, named by redisError.
  redis.on("error", (error) => {
    last = handshook ? afterHandshake(error) : error;
    noteFailure(target, last);
  });
  redis.on("ready", () => {
    wasReady = true;
    handshook = false;
    last = undefined;
    clearFailure(target);
  });
  return redis;
}

/** ioredis options for a connection BullMQ makes itself (workers, queues): the same timeouts as connect(blocking). */
export function bullConnection(target: RedisTarget): FleetRedisOptions {
  return {
    ...target.options,
    maxRetriesPerRequest: null,
    socketTimeout: SOCKET_TIMEOUT_MS,
    reconnectOnError: (error) => (error.message.startsWith("READONLY") ? 2 : false),
  };
}

/**
 * Wraps a Redis failure naming the (masked) URL and its cause: FLEET_REDIS_TLS_FAILED, FLEET_REDIS_AUTH_FAILED,
 * FLEET_REDIS_FORBIDDEN, else FLEET_REDIS_UNAVAILABLE.
 */
export function redisError(target: RedisTarget, error: unknown): SeatError {
  return describeFailure(target, target.displayUrl, error);
}
