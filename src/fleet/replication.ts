/*
 * Replication fence: the `dispatched` mark counts only once every replica that could be promoted has it.
 * Owns: deciding which replicas count (what Sentinel lists for the master — connected to the primary or not —
 *   else the most the primary has reported in this worker's lifetime), the rule a worker runs under
 *   ("replicated": WAIT n; "single-primary": AOF + appendfsync always, no replica configured), and confirming a
 *   write with `WAIT n <ms>` on the very connection that wrote it.
 * Does not own: the mark itself (state.ts, run-job.ts) or connecting (redis/connection.ts, redis/sentinel.ts).
 * Invariant: a confirmation is only ever given for the connection that carried the write: WAIT counts the
 *   writes of its own connection, so a reconnect between the write and WAIT (ioredis re-sends WAIT on the new
 *   primary, which may never have had the write) voids it; the fence then re-checks the mark on the current
 *   primary with a fresh write of its own before waiting again. Unknown never confirms.
 * Limit: Redis 7.0 has no WAITAOF: WAIT confirms that the replicas received the mark, not that they wrote it to
 *   disk. Losing the primary and every counted replica at once (one power cut) can still lose an acknowledged mark.
 */
import type { Redis } from "ioredis";
import { sentinelReplicas, type SentinelSet } from "../redis/index.js";

/** How long a dispatch mark may wait for its replicas (ms) before the job ends uncertain, unsent. */
export const REPLICA_ACK_TIMEOUT_MS = 1_000;

/** How often a worker re-reads which replicas count (ms). */
export const REPLICA_REFRESH_MS = 2_000;

/** Which replicas a mark must reach, and why. */
export interface ReplicaRule {
  /** "replicated": marks wait for `required` replicas; "single-primary": none configured, AOF + fsync always. */
  rule: "replicated" | "single-primary";
  required: number;
  /** Where the count came from, for the worker's log line. */
  source: string;
}

/** Replicas the primary reports now (INFO replication: connected_slaves). */
export function connectedReplicasOf(info: string): number {
  const n = /^connected_slaves:(\d+)/m.exec(info)?.[1];
  return n === undefined ? 0 : Number(n);
}

/**
 * The rule now. With sentinels: the replicas they list that they could promote (not down in their eyes, priority
 * above 0) — whether or not they are connected to the primary this second — and never fewer than the primary
 * reports connected. Without: the most replicas the primary has reported to this worker (`previous`), since a
 * replica that dropped off may still be promoted by hand.
 */
export async function readReplicaRule(
  redis: Redis,
  sentinel: SentinelSet | undefined,
  previous?: ReplicaRule,
): Promise<ReplicaRule> {
  const connected = connectedReplicasOf(await redis.info("replication"));
  if (sentinel) {
    const listed = await sentinelReplicas(sentinel);
    if (listed === undefined) {
      // No sentinel answered: keep what was known (a mark is never confirmed by fewer replicas than that).
      const required = Math.max(connected, previous?.required ?? 0);
      return summarise(
        required,
        `sentinels unreachable; primary reports ${connected} connected${previous ? `, ${previous.required} known before` : ""}`,
      );
    }
    // A returning old primary that still calls itself master (Sentinel converts it ~8 s after it is back) counts:
    // R9 saw the sentinels promote exactly such an instance, stale, when it was left out (a prompt sent twice).
    const promotable = listed.filter(
      (r) => r.priority > 0 && !r.flags.some((f) => f === "s_down" || f === "o_down" || f === "disconnected"),
    );
    const required = Math.max(promotable.length, connected);
    return summarise(
      required,
      `Sentinel lists ${listed.length} replica(s), ${promotable.length} promotable; primary reports ${connected} connected`,
    );
  }
  const required = Math.max(connected, previous?.required ?? 0);
  return summarise(
    required,
    `primary reports ${connected} connected${previous && previous.required > connected ? `, ${previous.required} seen before` : ""}`,
  );
}

function summarise(required: number, source: string): ReplicaRule {
  return { rule: required > 0 ? "replicated" : "single-primary", required, source };
}

/** The worker's log line for a rule. */
export function describeRule(rule: ReplicaRule, timeoutMs: number): string {
  return rule.rule === "replicated"
    ? `durability rule: replicated — each dispatch mark waits for WAIT ${rule.required} (${timeoutMs} ms) before the prompt is sent (${rule.source})`
    : `durability rule: single-primary — no replica configured; AOF with appendfsync always keeps the dispatch mark (${rule.source})`;
}

/** Replicas in sync with the primary now (INFO replication: slaveN lines with state=online). */
export function onlineReplicasOf(info: string): number {
  return (info.match(/^slave\d+:.*state=online/gm) ?? []).length;
}

/**
 * Waits up to `timeoutMs` until the primary has `required` replicas online (in sync): a mark written while a
 * counted replica is still loading or resyncing could not be confirmed, so the job waits before its mark instead
 * of ending uncertain. Resolves how many were online at the end.
 */
export async function awaitReplicasOnline(redis: Redis, required: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const online = onlineReplicasOf(await redis.info("replication"));
    if (online >= required || Date.now() >= deadline) return online;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Counts the (re)connections of `redis`: a write and its WAIT were on one connection only if this did not move. */
export function connectionEpoch(redis: Redis): () => number {
  let epoch = 0;
  redis.on("ready", () => epoch++);
  return () => epoch;
}

/** The outcome of confirming a write. */
export interface Confirmation {
  confirmed: boolean;
  required: number;
  /** Replicas that acknowledged (the last WAIT's answer; -1 when none came back). */
  acknowledged: number;
  /** The mark was not found on the primary any more (lost in a failover before it replicated). */
  lost?: boolean;
}

/**
 * After a write made on `redis` while `epochBefore` was its connection epoch: waits for `required` replicas to
 * acknowledge it, within `timeoutMs` in all. `touch` re-checks the write on the current primary and writes again
 * (resolves false when the write is not there), used when the connection moved between the write and WAIT.
 */
export async function confirmReplicated(
  redis: Redis,
  epoch: () => number,
  epochBefore: number,
  required: number,
  timeoutMs: number,
  touch: () => Promise<boolean>,
): Promise<Confirmation> {
  if (required <= 0) return { confirmed: true, required, acknowledged: 0 };
  const deadline = Date.now() + timeoutMs;
  let since = epochBefore;
  let acknowledged = -1;
  let fresh = true;
  /** The connection moved (or failed) since the write was last made on it. */
  let moved = false;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) {
      // Out of time after a move: one last look on the primary the connection follows now tells a write it never had
      // (lost: nothing of it survives there) from one merely not acknowledged. A failed look says nothing.
      if (moved && !(await touch().catch(() => true))) return { confirmed: false, required, acknowledged, lost: true };
      return { confirmed: false, required, acknowledged };
    }
    try {
      if (!fresh) {
        since = epoch();
        if (!(await touch())) return { confirmed: false, required, acknowledged, lost: true };
      }
      fresh = false;
      acknowledged = (await redis.call("WAIT", String(required), String(Math.max(1, deadline - Date.now())))) as number;
      if (epoch() === since) return { confirmed: acknowledged >= required, required, acknowledged };
      // The connection moved between the write and WAIT: that answer says nothing about the write; look again.
      moved = true;
    } catch {
      fresh = false;
      moved = true;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
