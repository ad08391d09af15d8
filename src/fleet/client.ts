/*
 * Fleet client: the submitter's side — enqueue a job onto BullMQ, open handles on jobs, list them.
 * Owns: creating a job's record (waiting) before BullMQ sees it, choosing its queue (the shared queue, or the
 *   host queue of the host that owns its named session), the job index (pruned of expired jobs on every
 *   enqueue), and the client's connections.
 * Does not own: running jobs (worker.ts) or following one (handle.ts).
 * Invariant: a job is visible in Redis as `waiting` before any worker can take it; its spec is validated
 *   here and again by the worker; the Redis password never appears in anything this prints or throws.
 */
import { randomUUID } from "node:crypto";
import { hostname, userInfo } from "node:os";
import { resolve } from "node:path";
import { Job, Queue } from "bullmq";
import type { ChainableCommander, Redis } from "ioredis";
import { SeatError } from "../errors.js";
import {
  followSwitches,
  checkTarget,
  connect,
  parseRedisUrl,
  redisError,
  type RedisTarget,
  fatalCause,
} from "../redis/index.js";
import {
  confirmReplicated,
  connectionEpoch,
  readReplicaRule,
  REPLICA_ACK_TIMEOUT_MS,
  REPLICA_REFRESH_MS,
  type ReplicaRule,
} from "./replication.js";
import { BULL_PREFIX, JOBS_INDEX, SHARED_QUEUE, hostQueue, isJobId, jobKeys, sessionHostKey } from "./keys.js";
import { JOB_SCHEMA, validateJobSpec, type JobSpec } from "./job-spec.js";
import { fleetKey, sealJob } from "./job-seal.js";
import { readJob, touchRecord, transitionAnswer, transitionCall, type JobRecord } from "./state.js";
import { jobHandle, type JobHandle } from "./handle.js";

/**
 * What to run: a job spec without its schema name (`cwd` is made absolute against this process's cwd), plus
 * your own job id ([A-Za-z0-9._-], ≤128; default a random UUID).
 */
export interface JobRequest extends Omit<JobSpec, "schema"> {
  jobId?: string;
}

/** Options of connectFleet. */
export interface FleetClientOptions {
  /** How long a job's record and events live after it ended (s). Default 86400. */
  retainSeconds?: number;
  /** Where the Redis password and the fleet key (GROK_SEAT_FLEET_KEY: sign every job) come from. Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Who submits, as recorded and signed with each job. Default `<user>@<hostname>`. */
  submitter?: string;
}

/** A connection to a fleet's Redis for submitting and watching jobs. */
export interface FleetClient {
  /** The Redis URL with any password masked. */
  readonly displayUrl: string;
  enqueue(request: JobRequest): Promise<JobHandle>;
  /** A handle on an existing job (throws FLEET_JOB_NOT_FOUND on first use when there is none). */
  job(id: string): JobHandle;
  /** The newest jobs first. */
  list(limit?: number): Promise<JobRecord[]>;
  close(): Promise<void>;
}

/** Connects to the fleet's Redis at `url` (a password may come from GROK_SEAT_REDIS_PASSWORD instead). */
export async function connectFleet(url: string, options: FleetClientOptions = {}): Promise<FleetClient> {
  const target = parseRedisUrl(url, options.env);
  const key = fleetKey(options.env ?? process.env);
  await checkTarget(target);
  const redis = connect(target, { name: "grok-seat-client" });
  try {
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw redisError(target, error);
  }
  return createClient(target, redis, options.retainSeconds ?? 86_400, {
    submitter: options.submitter ?? defaultSubmitter(),
    key,
  });
}

function defaultSubmitter(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid-${process.getuid?.() ?? "unknown"}@${hostname()}`;
  }
}

function createClient(
  target: RedisTarget,
  redis: Redis,
  retainSeconds: number,
  signer: { submitter: string; key: string | undefined },
): FleetClient {
  // Behind Sentinel: the client's connection follows the primary's moves at once (redis/sentinel.ts).
  const follower = target.sentinel ? followSwitches(target.sentinel) : undefined;
  follower?.add(redis);
  // A submit is acknowledged once the replicas that could be promoted have it (replication.ts), so a failover
  // right after cannot lose a job its submitter was told exists. The rule is re-read at most every 2 s.
  const epoch = connectionEpoch(redis);
  let rule: { value: ReplicaRule; at: number } | undefined;
  const currentRule = async () => {
    // A submitter whose ACL does not permit INFO keeps the rule it had (none at first: the submit is not waited for;
    // the dispatch mark, which decides what is sent, is still waited for by the worker).
    if (!rule || Date.now() - rule.at > REPLICA_REFRESH_MS)
      rule = {
        value: await readReplicaRule(redis, target.sentinel, rule?.value).catch(
          () => rule?.value ?? { rule: "single-primary" as const, required: 0, source: "INFO not permitted" },
        ),
        at: Date.now(),
      };
    return rule.value;
  };
  const queues = new Map<string, Queue>();
  const queueFor = (name: string) => {
    let queue = queues.get(name);
    if (!queue) queues.set(name, (queue = new Queue(name, { connection: redis, prefix: BULL_PREFIX })));
    return queue;
  };
  const deps = {
    target,
    redis,
    blocking: () => connect(target, { blocking: true, name: "grok-seat-watch" }),
    retainSeconds,
  };
  return {
    displayUrl: target.displayUrl,
    async enqueue(request) {
      const id = request.jobId ?? randomUUID();
      if (!isJobId(id))
        throw new SeatError(
          "FLEET_JOB_INVALID",
          `A job id may only use [A-Za-z0-9._-] (1–128 characters), not "${id}".`,
        );
      const spec: JobSpec = validateJobSpec(
        stripUndefined({
          schema: JOB_SCHEMA,
          prompt: request.prompt,
          agent: request.agent,
          model: request.model,
          cwd: request.cwd === undefined ? undefined : resolve(request.cwd),
          session: request.session,
          repo: request.repo,
          base: request.base,
          policy: request.policy,
          turnTimeoutMs: request.turnTimeoutMs,
          idleTimeoutMs: request.idleTimeoutMs,
          budget: request.budget,
          allowUnmetered: request.allowUnmetered,
          notify: request.notify,
        }),
      );
      try {
        const owner = spec.session ? await redis.get(sessionHostKey(spec.cwd ?? "", spec.session)) : null;
        const queueName = owner ? hostQueue(owner) : SHARED_QUEUE;
        const now = Date.now();
        // This call's own mark: a creation the client re-sent after a lost reply is recognised as ours, not
        // refused as "already exists" (which would leave the job recorded but never queued).
        const submitToken = randomUUID();
        // The seal (spec digest, submitter, signature with a fleet key) is written in the record's own creation, a
        // key BullMQ and bull-board never write: the worker runs the job only if BullMQ's copy of the spec matches.
        const seal = sealJob(id, spec, signer.submitter, signer.key);
        // Every write of a submit — the record (this call's token), the index, BullMQ's job (same id) — in one
        // MULTI: Redis applies it whole or not at all and replicates it as one, so a failover (or this process
        // dying) between them can never leave a record that says waiting with no job behind it. Safe to repeat:
        // a record with this call's token is ours (re-sent after a lost reply, or after a reconnect, so the
        // replicas' acknowledgement covers what the primary now holds), and BullMQ keeps an existing job of the id.
        const queue = queueFor(queueName);
        await queue.waitUntilReady();
        const record = {
          from: [""] as const,
          to: "waiting" as const,
          fields: stripUndefined({
            prompt: spec.prompt.slice(0, 200),
            agent: spec.agent ?? "grok",
            queue: queueName,
            session: spec.session,
            submitted_at: now,
            submit_token: submitToken,
            ...seal,
          }) as Record<string, string | number>,
          event: { queue: queueName },
        };
        const writeAll = async () => {
          // Someone else's job of this id is refused before anything is written (BullMQ would keep theirs anyway).
          const holder = await redis.hget(jobKeys(id).state, "submit_token");
          if (holder !== null && holder !== submitToken)
            throw alreadyExists(id, (await redis.hget(jobKeys(id).state, "status")) ?? "");
          // BullMQ's own view of this connection (its MULTI carries the script calls BullMQ queues on it).
          const multi = ((await queue.backend.client) as unknown as { multi(): ChainableCommander }).multi();
          multi.eval(...transitionCall(id, record));
          multi.zadd(JOBS_INDEX, now, id);
          const job = new Job(
            queue,
            "turn",
            spec,
            { jobId: id, attempts: 1, removeOnComplete: { age: retainSeconds }, removeOnFail: { age: retainSeconds } },
            id,
          );
          await job.addJob(multi as unknown as Parameters<Job["addJob"]>[0]);
          // A MULTI Redis refused to queue (EXECABORT) names its cause in the command that was refused (NOPERM, say).
          const replies = await multi.exec().catch((error: unknown) => {
            throw (error as { previousErrors?: unknown[] }).previousErrors?.[0] ?? error;
          });
          if (!replies)
            throw new SeatError(
              "FLEET_REDIS_UNAVAILABLE",
              `Redis discarded the submit of job ${id}; nothing was written.`,
              { retryable: true },
            );
          for (const [error] of replies) if (error) throw error;
          const created = transitionAnswer(record, replies[0]![1] as string);
          // A same-id submit that raced this one between the check and the MULTI: its record and job stand.
          if (!created.moved && (await redis.hget(jobKeys(id).state, "submit_token")) !== submitToken)
            throw alreadyExists(id, created.current);
        };
        const required = (await currentRule()).required;
        const epochBefore = epoch();
        await writeAll();
        await pruneIndex(redis, now - retainSeconds * 1_000);
        const ack = await confirmReplicated(redis, epoch, epochBefore, required, REPLICA_ACK_TIMEOUT_MS, async () => {
          await writeAll();
          return touchRecord(redis, id, "submit_checked_at");
        });
        if (!ack.confirmed) {
          throw new SeatError(
            "FLEET_SUBMIT_UNCONFIRMED",
            `Job ${id} was queued, but ${Math.max(0, ack.acknowledged)} of the ${ack.required} replica(s) that could be promoted acknowledged it within ${REPLICA_ACK_TIMEOUT_MS} ms: a failover now could lose it. Check \`seat jobs show ${id}\` before submitting it again.`,
            { retryable: true, context: { jobId: id } },
          );
        }
      } catch (error) {
        throw redisError(target, error);
      }
      return jobHandle(deps, id);
    },
    job(id) {
      if (!isJobId(id)) throw new SeatError("FLEET_JOB_NOT_FOUND", `"${id}" is not a fleet job id.`);
      return jobHandle(deps, id);
    },
    async list(limit = 50) {
      const ids = await redis.zrevrange(JOBS_INDEX, 0, Math.max(0, limit - 1));
      const records = await Promise.all(ids.map((id) => readJob(redis, id)));
      const gone = ids.filter((_, i) => !records[i]);
      // Expired jobs leave the index too (by a reader that may write: a watcher's role may not, and still lists).
      if (gone.length > 0)
        await redis.zrem(JOBS_INDEX, ...gone).catch((error: unknown) => {
          if (fatalCause(error) !== "forbidden") throw error;
        });
      return records.filter((r): r is JobRecord => r !== undefined);
    },
    async close() {
      await Promise.all([...queues.values()].map((q) => q.close().catch(() => undefined)));
      redis.disconnect();
      follower?.close();
    },
  };
}

/** How many index entries one enqueue checks for expired jobs (amortised: the index never grows without bound). */
const PRUNE_BATCH = 100;

/** Removes from the job index the ids submitted before `beforeMs` whose records have expired. */
export async function pruneIndex(redis: Redis, beforeMs: number): Promise<number> {
  const old = await redis.zrangebyscore(JOBS_INDEX, "-inf", `(${beforeMs}`, "LIMIT", 0, PRUNE_BATCH);
  if (old.length === 0) return 0;
  const alive = await Promise.all(old.map((id) => redis.exists(jobKeys(id).state)));
  const gone = old.filter((_, i) => alive[i] === 0);
  if (gone.length > 0) await redis.zrem(JOBS_INDEX, ...gone);
  return gone.length;
}

function alreadyExists(id: string, status: string): SeatError {
  return new SeatError(
    "FLEET_JOB_INVALID",
    `A fleet job ${id} already exists (${status || "being submitted"}); pick another id.`,
  );
}

function stripUndefined<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Submits one job and returns its handle; `close()` the client it made with `handle.close()`. */
export async function enqueue(
  url: string,
  request: JobRequest,
  options: FleetClientOptions = {},
): Promise<JobHandle & { close(): Promise<void> }> {
  const client = await connectFleet(url, options);
  try {
    const handle = await client.enqueue(request);
    return Object.assign(handle, { close: () => client.close() });
  } catch (error) {
    await client.close();
    throw error;
  }
}
