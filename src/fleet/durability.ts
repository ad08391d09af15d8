/*
 * Redis durability check: does the fleet's Redis keep every acknowledged write across a crash?
 * Owns: reading `appendonly` and `appendfsync` (CONFIG GET; INFO persistence where CONFIG is renamed or not
 *   permitted), the verdict, and the FLEET_REDIS_VOLATILE refusal naming the setting.
 * Does not own: connecting (redis/connection.ts) or what a worker does with the verdict (worker.ts).
 * Invariant: only `appendonly yes` + `appendfsync always` is durable: `everysec` may lose the last second of
 *   writes — a lost `dispatched` would let the next worker send the prompt again. A setting that cannot be read
 *   is not assumed durable (unknown never authorizes).
 */
import type { Redis } from "ioredis";
import { SeatError, messageOf } from "../errors.js";

/** What the fleet's Redis says about persistence ("unknown" when it could not be read). */
export interface RedisPersistence {
  appendonly: string;
  appendfsync: string;
  /** Where the values came from. */
  source: "config" | "info";
}

/** The setting that makes a Redis volatile, or undefined when it is durable. */
export function volatileSetting(
  p: RedisPersistence,
): { setting: "appendonly" | "appendfsync"; value: string } | undefined {
  if (p.appendonly !== "yes") return { setting: "appendonly", value: p.appendonly };
  if (p.appendfsync !== "always") return { setting: "appendfsync", value: p.appendfsync };
  return undefined;
}

/** Reads `appendonly` and `appendfsync` from CONFIG GET, or `aof_enabled` from INFO persistence. */
export async function readPersistence(redis: Redis): Promise<RedisPersistence> {
  try {
    const reply = (await redis.call("CONFIG", "GET", "append*")) as string[];
    const map = new Map<string, string>();
    for (let i = 0; i + 1 < reply.length; i += 2) map.set(reply[i]!, reply[i + 1]!);
    if (map.has("appendonly"))
      return { appendonly: map.get("appendonly")!, appendfsync: map.get("appendfsync") ?? "unknown", source: "config" };
  } catch {
    // CONFIG renamed, disabled or not permitted by an ACL: INFO still tells whether AOF is on.
  }
  const info = await redis.info("persistence");
  const aof = /^aof_enabled:(\d)/m.exec(info)?.[1];
  return { appendonly: aof === "1" ? "yes" : aof === "0" ? "no" : "unknown", appendfsync: "unknown", source: "info" };
}

/**
 * Refuses a Redis that may lose acknowledged writes: throws FLEET_REDIS_VOLATILE naming the setting, unless
 * `allowVolatile`. Resolves what it read (for a warning when volatile is allowed).
 */
export async function checkDurability(
  redis: Redis,
  displayUrl: string,
  allowVolatile: boolean,
): Promise<RedisPersistence & { volatile?: string }> {
  let persistence: RedisPersistence;
  try {
    persistence = await readPersistence(redis);
  } catch (error) {
    persistence = { appendonly: "unknown", appendfsync: "unknown", source: "info" };
    if (!allowVolatile)
      throw new SeatError(
        "FLEET_REDIS_VOLATILE",
        `Redis at ${displayUrl} did not say how it persists writes (${messageOf(error)}); the fleet's never-twice promise needs appendonly yes and appendfsync always. Pass --allow-volatile-redis to run anyway.`,
        { cause: error, context: { setting: "appendonly", value: "unknown" } },
      );
  }
  const bad = volatileSetting(persistence);
  if (!bad) return persistence;
  const why =
    bad.value === "unknown"
      ? `its ${bad.setting} could not be read (${persistence.source === "info" ? "CONFIG is not available to this user" : "not reported"})`
      : bad.setting === "appendonly"
        ? `it runs with appendonly ${bad.value}: a restart loses jobs, their records and whether a prompt was dispatched`
        : `it runs with appendfsync ${bad.value}: a crash can lose up to a second of acknowledged writes, and a lost \`dispatched\` lets another worker send the prompt again`;
  const summary = `${bad.setting} ${bad.value}`;
  if (allowVolatile) return { ...persistence, volatile: summary };
  throw new SeatError(
    "FLEET_REDIS_VOLATILE",
    `Redis at ${displayUrl} is not durable: ${why}. Set appendonly yes and appendfsync always (CONFIG SET, or redis.conf), or pass --allow-volatile-redis to accept the risk.`,
    { context: { setting: bad.setting, value: bad.value } },
  );
}
