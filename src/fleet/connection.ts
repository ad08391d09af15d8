/*
 * Fleet connection: a Redis URL turned into ioredis connections, with the password kept secret.
 * Owns: URL parsing (redis://[user][:password@]host[:port][/db]), GROK_SEAT_REDIS_PASSWORD from the
 *   environment, registering the password with the one redaction point, and the printable form of a URL.
 * Does not own: what the connections are used for.
 * Invariant: a password (in the URL or the environment) is registered as a secret before any connection is
 *   made, so every error, log line and output masks it; `displayUrl` never contains it.
 */
import { Redis, type RedisOptions } from "ioredis";
import { SeatError, messageOf } from "../errors.js";
import { markSecretNames, redactText, registerSecrets } from "../internal/redact.js";

/** The environment variable a password may come from instead of the URL (argv is visible to `ps`). */
export const REDIS_PASSWORD_ENV = "GROK_SEAT_REDIS_PASSWORD";
markSecretNames([REDIS_PASSWORD_ENV]);

/**
 * ioredis options as BullMQ 6 takes them: its type has no `retryStrategy: null` (ioredis's allows it), so the
 * fleet's options say they never set it to null and pass to `new Queue/Worker({ connection })` as they are.
 */
export type FleetRedisOptions = RedisOptions & { retryStrategy?: (times: number) => number | void | null };

/** Where a fleet's Redis is. */
export interface RedisTarget {
  options: FleetRedisOptions;
  /** The URL with any password masked. */
  displayUrl: string;
}

/** Parses `url`; a password comes from the URL or GROK_SEAT_REDIS_PASSWORD, and is registered secret. */
export function parseRedisUrl(url: string, env: NodeJS.ProcessEnv = process.env): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // Never echo the raw text: it may hold a password.
    throw new SeatError("FLEET_REDIS_URL_INVALID", "The Redis URL could not be parsed; give redis://[:password@]host[:port][/db].");
  }
  if (parsed.protocol !== "redis:" && parsed.protocol !== "rediss:") {
    throw new SeatError("FLEET_REDIS_URL_INVALID", `The Redis URL must start with redis:// or rediss://, not ${parsed.protocol}//.`);
  }
  const password = parsed.password ? decodeURIComponent(parsed.password) : env[REDIS_PASSWORD_ENV];
  if (password) registerSecrets({ [REDIS_PASSWORD_ENV]: password });
  const db = parsed.pathname.replace(/^\//, "");
  if (db !== "" && !/^\d+$/.test(db)) throw new SeatError("FLEET_REDIS_URL_INVALID", `The Redis URL's database must be a number, not "${redactText(db)}".`);
  const options: FleetRedisOptions = {
    host: parsed.hostname || "127.0.0.1",
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(password ? { password } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === "rediss:" ? { tls: {} } : {}),
  };
  const shown = new URL(url);
  if (shown.password) shown.password = "***";
  return { options, displayUrl: shown.toString() };
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
    retryStrategy: (times) => Math.min(50 * times, 1_000),
    ...(how.name ? { connectionName: how.name } : {}),
  });
  // ioredis emits connection errors as events; they surface as command failures (FLEET_REDIS_UNAVAILABLE).
  redis.on("error", () => undefined);
  return redis;
}

/** Wraps a Redis failure as FLEET_REDIS_UNAVAILABLE naming the (masked) URL. */
export function redisError(target: RedisTarget, error: unknown): SeatError {
  if (error instanceof SeatError) return error;
  return new SeatError("FLEET_REDIS_UNAVAILABLE", `Redis at ${target.displayUrl} failed: ${messageOf(error)}. Check that redis-server runs there and the password is right.`, { cause: error, retryable: true });
}
