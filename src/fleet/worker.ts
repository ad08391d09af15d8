/*
 * Fleet worker: a long-running process on one host that takes jobs from the shared queue and its own host
 *   queue (BullMQ Workers) and runs each as one headless turn.
 * Owns: BullMQ's worker settings for the guarantee (short lock, frequent stalled checks, stall recovery kept
 *   on so an undispatched job is retried elsewhere), the durability check at start (a Redis that may lose
 *   acknowledged writes is refused unless allowed), the cancel listener (pub/sub), graceful close.
 * Does not own: what one job does (run-job.ts), the queue names (keys.ts).
 * Invariant: a job BullMQ recovers from a dead worker is re-offered to runJob, which re-sends nothing that was
 *   dispatched; close() finishes dispatched turns and hands back the rest, then resolves.
 * Trade-off (docs/fleet.md#timing): lockDuration 10 s and stalledInterval 5 s find a dead worker within ~15 s
 *   (uncertain within 30 s, as promised) at the cost of a lock renewal every 5 s per running job and a stalled
 *   scan every 5 s per worker; a worker whose event loop stalls longer than the lock sees its job declared
 *   stalled — its dispatched turn is then reported uncertain, never run twice.
 */
import { hostname } from "node:os";
import { randomUUID } from "node:crypto";
import { Worker } from "bullmq";
import { redactText } from "../internal/redact.js";
import type { HostTool } from "../tools/index.js";
import { bullConnection, checkTarget, connect, parseRedisUrl, redisError, followSwitches } from "../redis/index.js";
import { APPROVAL_ANSWERED_CHANNEL, BULL_PREFIX, CANCEL_CHANNEL, SHARED_QUEUE, hostQueue } from "./keys.js";
import { acknowledgeCancel, runJob, type RunContext, type RunningJob } from "./run-job.js";
import type { FleetBudget } from "./budget.js";
import { checkDurability } from "./durability.js";
import { fleetKey } from "./job-seal.js";
import { createFleetNotifier } from "./notify.js";
import { fleetLinkKey } from "./approval-links.js";
import type { NotifyConfig } from "../notify-config/index.js";
import {
  connectionEpoch,
  describeRule,
  readReplicaRule,
  REPLICA_ACK_TIMEOUT_MS,
  REPLICA_REFRESH_MS,
  type ReplicaRule,
} from "./replication.js";

/** Options of startWorker. */
export interface WorkerOptions {
  /** The fleet's Redis (a password may come from GROK_SEAT_REDIS_PASSWORD instead of the URL). */
  redis: string;
  /** This host's name (its host queue is `host-<name>`). Default: the machine's hostname. */
  name?: string;
  /** Turns run at once from the shared queue. Default 1. The host queue runs one at a time. */
  concurrency?: number;
  /** Host tools served to every job's agent (the same HostTool shape, bridge and validation as createSession). */
  tools?: HostTool[];
  /**
   * Environment the agent's allow-listed variables come from (HOME, GROK_HOME, GROK_BIN, keys), and the fleet key
   * (GROK_SEAT_FLEET_KEY: run only jobs signed with it; never passed to an agent). Default process.env.
   */
  env?: NodeJS.ProcessEnv;
  /** Extra variables set verbatim on the agent. */
  agentEnv?: Record<string, string>;
  grokCliBinaryPath?: string;
  /** BullMQ lock duration (ms). Default 10000. */
  lockDurationMs?: number;
  /** BullMQ stalled-job check interval (ms). Default 5000. */
  stalledIntervalMs?: number;
  /** How long a job's record and events live after it ended (s). Default 86400. */
  retainSeconds?: number;
  /**
   * Run on a Redis that may lose acknowledged writes (appendonly no, or appendfsync everysec/no, or settings
   * it will not tell). Default false: startWorker refuses it with FLEET_REDIS_VOLATILE naming the setting.
   */
  allowVolatileRedis?: boolean;
  /** One line per job transition (already redacted). */
  onLog?: (line: string) => void;
  /**
   * A spend limit shared by every worker of a queue (parseFleetBudget): each job reserves its own turn budget
   * atomically before dispatch and is never dispatched when that would go over (BUDGET_EXCEEDED).
   */
  budget?: FleetBudget;
  /**
   * How long a dispatch mark waits for the replicas that could be promoted to acknowledge it (WAIT), in ms.
   * Default 1000. Not acknowledged in time: the prompt is not sent and the job ends uncertain (replication-unconfirmed).
   */
  replicaAckTimeoutMs?: number;
  /**
   * This worker's notification targets (its user config's `notify` section): a job names targets, this config says
   * where each goes. A job's events are told once across the fleet (fleet/notify.ts). Absent: nothing is told.
   */
  notify?: NotifyConfig;
}

/** A running worker. */
export interface FleetWorker {
  /** This host's name. */
  readonly name: string;
  /** A unique id of this worker process (recorded on the jobs it runs). */
  readonly id: string;
  /** Jobs running now. */
  readonly running: number;
  /** The durability rule it runs under now: "replicated" (WAIT n before each send) or "single-primary". */
  readonly replicaRule: ReplicaRule;
  /** Graceful stop: finishes dispatched turns, hands back undispatched jobs, then closes. */
  close(): Promise<void>;
}

/** Starts a worker; resolves once it is connected and taking jobs. */
export async function startWorker(options: WorkerOptions): Promise<FleetWorker> {
  const target = parseRedisUrl(options.redis, options.env);
  // With a fleet key (GROK_SEAT_FLEET_KEY) only jobs signed with it run (job-seal.ts).
  const key = fleetKey(options.env ?? process.env);
  const name = options.name ?? hostname();
  const id = `${name}/${process.pid}/${randomUUID().slice(0, 8)}`;
  // A Sentinel URL whose sentinels are unreachable or do not know the master ends here, before any job is taken.
  await checkTarget(target);
  const redis = connect(target, { name: "grok-seat-worker" });
  const subscriber = connect(target, { blocking: true, name: "grok-seat-cancel" });
  const log = (line: string) => options.onLog?.(redactText(line));
  const epoch = connectionEpoch(redis);
  // Sentinel's word that the primary moved reconnects this worker's connections at once (a stopped primary's too).
  const follower = target.sentinel ? followSwitches(target.sentinel, log) : undefined;
  follower?.add(redis);
  follower?.add(subscriber);
  const ackTimeoutMs = options.replicaAckTimeoutMs ?? REPLICA_ACK_TIMEOUT_MS;
  let rule: ReplicaRule;
  try {
    await redis.ping();
    const persistence = await checkDurability(redis, target.displayUrl, options.allowVolatileRedis === true);
    if (persistence.volatile)
      log(
        `warning: Redis at ${target.displayUrl} runs with ${persistence.volatile} (allowed by --allow-volatile-redis): a Redis crash may lose jobs or let a prompt be sent twice`,
      );
    rule = await readReplicaRule(redis, target.sentinel);
    log(describeRule(rule, ackTimeoutMs));
  } catch (error) {
    redis.disconnect();
    subscriber.disconnect();
    follower?.close();
    throw redisError(target, error);
  }
  const running = new Map<string, RunningJob>();
  let closing = false;
  const retainSeconds = options.retainSeconds ?? 86_400;
  const notifier = options.notify
    ? createFleetNotifier({
        redis,
        config: options.notify,
        claimMs: retainSeconds * 1000,
        log,
        displayUrl: target.displayUrl,
        // With a fleet key, a held approval's notification links to the board serving the fleet (approval-links.ts).
        ...(key ? { linkKey: fleetLinkKey(key) } : {}),
      })
    : undefined;
  const ctx: RunContext = {
    redis,
    host: name,
    workerId: id,
    tools: options.tools ?? [],
    env: options.env ?? process.env,
    agentEnv: options.agentEnv ?? {},
    ...(options.grokCliBinaryPath ? { grokCliBinaryPath: options.grokCliBinaryPath } : {}),
    retainSeconds,
    running,
    ...(notifier ? { notifier } : {}),
    isClosing: () => closing,
    log,
    ...(options.budget ? { budget: options.budget } : {}),
    ...(key ? { fleetKey: key } : {}),
    replication: { rule: () => rule, epoch, timeoutMs: ackTimeoutMs },
  };
  // Which replicas count is re-read all along (a replica added, one Sentinel lost sight of, a failover); a read
  // that fails keeps the rule as it was.
  const refresh = setInterval(() => {
    void readReplicaRule(redis, target.sentinel, rule).then(
      (next) => {
        if (next.required !== rule.required) log(describeRule(next, ackTimeoutMs));
        rule = next;
      },
      () => undefined,
    );
  }, REPLICA_REFRESH_MS);
  refresh.unref();
  // Cancels arrive as pub/sub messages (the job id); the key in Redis covers a job not yet taken and a message
  // lost while this subscriber reconnected (every heartbeat re-reads it).
  subscriber.on("message", (channel: string, jobId: string) => {
    const entry = running.get(jobId);
    // An answered approval: read it back now rather than at the next poll (the answer itself is in Redis).
    if (channel === APPROVAL_ANSWERED_CHANNEL) return void entry?.readAnswers?.();
    if (entry && !entry.cancelled) {
      log(`job ${jobId}: cancel received`);
      void acknowledgeCancel(ctx, entry);
    }
  });
  await subscriber.subscribe(CANCEL_CHANNEL, APPROVAL_ANSWERED_CHANNEL).catch((error: unknown) => {
    // A login whose ACL role may not subscribe (not a worker's) is refused here, named, before any job is taken.
    redis.disconnect();
    subscriber.disconnect();
    throw redisError(target, error);
  });

  const settings = {
    connection: bullConnection(target),
    prefix: BULL_PREFIX,
    lockDuration: options.lockDurationMs ?? 10_000,
    stalledInterval: options.stalledIntervalMs ?? 5_000,
    // Stall recovery must stay on: it is how an undispatched job reaches another worker. A dispatched one that
    // comes back is refused by runJob, so a high count never re-sends anything.
    maxStalledCount: 100,
    name: id,
  };
  const processor = (job: Parameters<typeof runJob>[1], token?: string) => runJob(ctx, job, token);
  const workers = [
    new Worker(SHARED_QUEUE, processor, { ...settings, concurrency: options.concurrency ?? 1 }),
    new Worker(hostQueue(name), processor, { ...settings, concurrency: 1 }),
  ];
  for (const worker of workers) {
    worker.on("error", (error) => log(`worker error: ${error.message}`));
    worker.on("failed", (job, error) => {
      if (error?.name !== "WaitingError" && error?.name !== "DelayedError")
        log(`job ${job?.id ?? "?"}: BullMQ failed it: ${error?.message ?? "unknown"}`);
    });
  }
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  if (follower) {
    for (const w of workers) {
      // BullMQ 6: the Redis backend owns the worker's connections — its regular one and the blocking one that
      // waits for jobs; both must follow the move.
      follower.add((await w.backend.client) as unknown as import("ioredis").Redis);
      const blocking = w.backend.blockingClient;
      if (blocking) follower.add((await blocking) as unknown as import("ioredis").Redis);
    }
  }
  log(`worker ${id} taking jobs from ${SHARED_QUEUE} and ${hostQueue(name)} on ${target.displayUrl}`);
  let closed: Promise<void> | undefined;
  return {
    name,
    id,
    get running() {
      return running.size;
    },
    get replicaRule() {
      return rule;
    },
    close() {
      closed ??= (async () => {
        closing = true;
        clearInterval(refresh);
        await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
        // What is held for a target goes now; a receiver that never answers is abandoned after the grace.
        await notifier?.close().catch(() => undefined);
        subscriber.disconnect();
        redis.disconnect();
        follower?.close();
        log(`worker ${id} stopped`);
      })();
      return closed;
    },
  };
}
