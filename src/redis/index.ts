/*
 * Redis front door: a fleet's Redis reached through ioredis — the URL parsed with its password kept secret, plain
 *   and Sentinel connections, and what a failed connection means. No BullMQ: the queues are fleet/.
 * Owns: the list of names other rooms may import from redis/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../redis/index.js", never a file inside redis/.
 */
export {
  bullConnection,
  checkTarget,
  COMMAND_TIMEOUT_MS,
  connect,
  parseRedisUrl,
  REDIS_PASSWORD_ENV,
  REDIS_USERNAME_ENV,
  redisError,
  SOCKET_TIMEOUT_MS,
} from "./connection.js";
export type { FleetRedisOptions, RedisTarget } from "./connection.js";
export { afterHandshake, clearFailure, describeFailure, fatalCause, noteFailure } from "./redis-failure.js";
export {
  askSentinels,
  checkSentinels,
  followSwitches,
  isSentinelUrl,
  parseSentinelUrl,
  SENTINEL_CHECK_MS,
  SENTINEL_PASSWORD_ENV,
  sentinelReplicas,
} from "./sentinel.js";
export type { SentinelReplica, SentinelSet, SwitchFollower } from "./sentinel.js";
