/*
 * Fleet ACL roles: the Redis users a fleet needs instead of one shared password — worker, submitter, watcher
 *   (the board and `seat jobs` readers) — each with the least commands, keys and channels it uses.
 * Owns: the rules of each role (Redis 7.0 syntax: no command newer than 7.0 is named, so Debian's 7.0 accepts
 *   them), and their `ACL SETUSER` lines (`seat fleet acl`). The command sets were read off MONITOR while real
 *   jobs ran (submit, take, approval held and answered, cancel, watch, board counts) and checked against every
 *   command BullMQ's Lua scripts call (commands a script calls are checked against the caller's ACL too).
 * Does not own: the key names (keys.ts), connecting as a user (redis/connection.ts: URL userinfo or
 *   GROK_SEAT_REDIS_USERNAME / GROK_SEAT_REDIS_PASSWORD).
 * Invariant: a watcher writes no key and publishes nothing; a submitter cannot take a job (BullMQ's move to
 *   active needs RPOPLPUSH/LMOVE/ZPOPMIN/BZPOPMIN, denied to it even inside a script) nor subscribe as a worker
 *   does (no SUBSCRIBE); a worker cannot publish (no cancel or answer announcements) nor add to the job index.
 *   Limits, because Redis checks every key a script declares for writing: a submitter may write a job's
 *   heartbeat key and a worker a job's cancel key (their scripts declare them). A worker can write BullMQ's
 *   queue keys (takes, hand-backs and stall recovery need them), so a stolen worker login could queue a job:
 *   signed job specs (GROK_SEAT_FLEET_KEY) are what make a worker refuse one.
 */
import { createHash } from "node:crypto";
import { BULL_PREFIX } from "./keys.js";

/** The fleet's roles. */
export const ACL_ROLES = ["worker", "submitter", "watcher"] as const;
/** One role. */
export type AclRole = (typeof ACL_ROLES)[number];

/** What every role's connection sends: login, ioredis's name and ready check (INFO), BullMQ's version check. */
const CONNECTION = [
  "auth",
  "hello",
  "ping",
  "echo",
  "info",
  "select",
  "quit",
  "client|setname",
  "client|getname",
  "client|id",
];

/** Reads (direct, and inside BullMQ's getter scripts), and running scripts (whose calls are checked again). */
const READ = [
  "exists",
  "type",
  "get",
  "mget",
  "pttl",
  "ttl",
  "scan",
  "time",
  "hget",
  "hgetall",
  "hmget",
  "hvals",
  "hkeys",
  "hlen",
  "hexists",
  "smembers",
  "scard",
  "sismember",
  "zrange",
  "zrevrange",
  "zrangebyscore",
  "zrevrangebyscore",
  "zrangebylex",
  "zcard",
  "zscore",
  "zcount",
  "zlexcount",
  "xread",
  "xrange",
  "xrevrange",
  "xlen",
  "llen",
  "lrange",
  "lindex",
  "lpos",
  "eval",
  "evalsha",
];

/** Writes a submitter makes: the job record and its stream, the index, BullMQ's add and remove, cancel, answers. */
const SUBMIT = [
  "set",
  "del",
  "unlink",
  "expire",
  "pexpire",
  "persist",
  "incr",
  "incrby",
  "hset",
  "hmset",
  "hdel",
  "hincrby",
  "sadd",
  "srem",
  "zadd",
  "zrem",
  "lpush",
  "rpush",
  "lrem",
  "xadd",
  "xtrim",
  "publish",
  "multi",
  "exec",
  "discard",
];

/** What only a worker needs beyond that: taking (marker wait, list moves), stall recovery, budgets, pub/sub. */
const WORK = [
  "config|get",
  "bzpopmin",
  "rpoplpush",
  "lmove",
  "rpop",
  "lpop",
  "lset",
  "ltrim",
  "rename",
  "zpopmin",
  "zremrangebyscore",
  "zremrangebyrank",
  "pexpireat",
  "xdel",
  "incrbyfloat",
  "subscribe",
  "unsubscribe",
];

const FLEET_READ = ["%R~grok-seat:*", `%R~${BULL_PREFIX}:*`];
/**
 * A watcher's keys: Redis checks every key a script declares for writing (BullMQ's getters are scripts), so the
 * watcher's keys are read-write while its commands are reads only — it writes nothing, directly or in a script.
 */
const FLEET_ALL = ["~grok-seat:*", `~${BULL_PREFIX}:*`];
const job = (part: string) => `~grok-seat:job:*:${part}`;

/** The rules of a role (after `reset on <password>`): commands, then keys, then channels. */
export function aclRules(role: AclRole): string[] {
  const commands = (list: string[]) => list.map((c) => `+${c}`);
  switch (role) {
    case "watcher":
      return [...commands([...CONNECTION, ...READ]), ...FLEET_ALL];
    case "submitter":
      return [
        ...commands([...CONNECTION, ...READ, ...SUBMIT]),
        ...FLEET_READ,
        // The heartbeat too: a job's transitions declare it, and Redis checks a script's declared keys for writing.
        `~${BULL_PREFIX}:*`,
        "~grok-seat:jobs",
        job("state"),
        job("events"),
        job("alive"),
        job("cancel"),
        job("approvals"),
        // A `seat board --redis` run as a submitter publishes its address for the fleet's approval links.
        "~grok-seat:board-links",
        "&grok-seat:cancel",
        "&grok-seat:approval-answered",
      ];
    case "worker":
      return [
        ...commands([...CONNECTION, ...READ, ...SUBMIT.filter((c) => c !== "publish"), ...WORK]),
        ...FLEET_READ,
        // The cancel key too: the take and the heartbeat scripts declare it (they read it), and Redis checks a
        // script's declared keys for writing.
        `~${BULL_PREFIX}:*`,
        job("state"),
        job("events"),
        job("alive"),
        job("cancel"),
        job("approvals"),
        // The claim that this worker tells a target of a job's event (fleet/notify.ts).
        job("notified:*"),
        "~grok-seat:approval-jobs",
        "~grok-seat:approval-index",
        "~grok-seat:session:*",
        "~grok-seat:budget:*",
        "&grok-seat:cancel",
        "&grok-seat:approval-answered",
      ];
  }
}

/** The default user name of a role. */
export function aclUser(role: AclRole): string {
  return `seat-${role}`;
}

/** Stands for the password's SHA-256 when none is given; Redis refuses it (not 64 hex digits), so it is never set. */
export const PASSWORD_PLACEHOLDER = "#SHA256-OF-THE-PASSWORD";

/**
 * The `ACL SETUSER` line of a role, as redis-cli takes it. With `password`, its SHA-256 (`#<hex>`: the password
 * itself is never printed); without, a placeholder Redis refuses.
 */
export function aclSetuserLine(role: AclRole, options: { user?: string; password?: string } = {}): string {
  const pass = options.password
    ? `#${createHash("sha256").update(options.password).digest("hex")}`
    : PASSWORD_PLACEHOLDER;
  return [
    "ACL",
    "SETUSER",
    options.user ?? aclUser(role),
    "reset",
    "on",
    pass,
    "resetchannels",
    ...aclRules(role),
  ].join(" ");
}
