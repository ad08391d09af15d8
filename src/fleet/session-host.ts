/*
 * Session host: which host owns a named session in a fleet (`grok-seat:session:<cwd>:<name>` = host name).
 * Owns: claiming the name for a host (a short reservation while the session opens), confirming it once the
 *   session opened (then it lives OWNER_TTL_SECONDS after its last use), releasing a reservation whose open failed.
 * Does not own: routing a job to its host queue (client.ts) or the named session itself (sessions/).
 * Invariant: a name is bound to a host only by a session that opened there; every write is compare-and-set
 *   on the host name, so a host never removes or extends another host's binding.
 */
import type { Redis } from "ioredis";

/** How long a claim lives while its session opens (ms): a worker that dies mid-open frees the name after it. */
export const CLAIM_MS = 10 * 60_000;

/** How long a named session stays bound to its host after its last job (s): 30 days. */
export const OWNER_TTL_SECONDS = 30 * 24 * 3600;

// KEYS: owner. ARGV: host, claim ms, owner ttl s. Returns {ours, holder, claimed now}.
const CLAIM = `
local cur = redis.call('GET', KEYS[1])
if not cur then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return {1, ARGV[1], 1}
end
if cur == ARGV[1] then
  if redis.call('PTTL', KEYS[1]) > tonumber(ARGV[2]) then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
  return {1, cur, 0}
end
return {0, cur, 0}
`;

// KEYS: owner. ARGV: host, ttl s (0 = delete).
const IF_HOST = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '0' then return redis.call('DEL', KEYS[1]) end
return redis.call('EXPIRE', KEYS[1], ARGV[2])
`;

/** Claims `key` for `host` unless another host owns it; `claimedNow` when this call made the claim. */
export async function claimSessionHost(
  redis: Redis,
  key: string,
  host: string,
): Promise<{ ours: boolean; holder: string; claimedNow: boolean }> {
  const [ours, holder, claimedNow] = (await redis.eval(
    CLAIM,
    1,
    key,
    host,
    String(CLAIM_MS),
    String(OWNER_TTL_SECONDS),
  )) as [number, string, number];
  return { ours: ours === 1, holder, claimedNow: claimedNow === 1 };
}

/** Binds `key` to `host` for OWNER_TTL_SECONDS from now (its session opened there). */
export async function confirmSessionHost(redis: Redis, key: string, host: string): Promise<boolean> {
  return ((await redis.eval(IF_HOST, 1, key, host, String(OWNER_TTL_SECONDS))) as number) === 1;
}

/** Frees a claim of `host` whose session did not open. */
export async function releaseSessionHost(redis: Redis, key: string, host: string): Promise<boolean> {
  return ((await redis.eval(IF_HOST, 1, key, host, "0")) as number) === 1;
}
