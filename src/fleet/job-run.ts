/*
 * One run of a fleet job on a worker: what its steps share.
 * Owns: the run's identity (job id, a fresh run token, the worker's tag), what the run holds while it lasts — its
 *   entry among the worker's running jobs, the heartbeat (which also re-reads the cancel key), the budget
 *   reservation, the job worktree, the session-host claim, whether its session opened and whether it was dispatched —
 *   its event stream (job-stream.ts) and the one door its notices go through (`tell`); the two ways a Redis command
 *   is made (`viaRedis`: coded; `persist`: retried through an outage).
 * Does not own: the steps (run-job.ts and the job-*.ts files it calls), the transitions (state.ts).
 * Invariant: every write after the take names this run's token (compare-and-set), so a stale run changes nothing.
 */
import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import type { Redis } from "ioredis";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import type { HeadlessSession } from "../runtime/index.js";
import type { HostTool } from "../tools/index.js";
import type { JobWorktree } from "../worktrees/index.js";
import type { FleetBudget, Reservation } from "./budget.js";
import { acknowledgeCancel, type RunningJob } from "./job-cancel.js";
import { notifyNamesOf, type JobNotice } from "./job-notices.js";
import { JobStream } from "./job-stream.js";
import type { FleetNotifier } from "./notify.js";
import type { ReplicaRule } from "./replication.js";
import { beat, HEARTBEAT_EVERY_MS } from "./state.js";

/** What the processor needs from its worker. */
export interface RunContext {
  redis: Redis;
  host: string;
  workerId: string;
  tools: HostTool[];
  env: NodeJS.ProcessEnv;
  agentEnv: Record<string, string>;
  grokCliBinaryPath?: string;
  retainSeconds: number;
  running: Map<string, RunningJob>;
  isClosing(): boolean;
  log(line: string): void;
  /** How long a write that must land (hand-back, end) is retried through a Redis outage (ms). Default 30000. */
  persistMs?: number;
  /** The queue's shared budget (fleet/budget.ts): each job reserves its turn budget before dispatch. */
  budget?: FleetBudget;
  /** Tells the targets a job names of its events, once across the fleet (fleet/notify.ts). */
  notifier?: FleetNotifier;
  /** The fleet key (GROK_SEAT_FLEET_KEY): only jobs whose signature verifies with it run. */
  fleetKey?: string;
  /** With replicas: the dispatch mark waits for them (replication.ts) before the prompt is sent. */
  replication?: {
    /** The rule now (how many replicas must acknowledge). */
    rule(): ReplicaRule;
    /** The epoch of `redis`'s connection (moves on every reconnect). */
    epoch(): number;
    timeoutMs: number;
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Any failure of a Redis command, as a coded error (the hand-back decides by this code). */
export async function viaRedis<T>(op: Promise<T>): Promise<T> {
  try {
    return await op;
  } catch (error) {
    throw isSeatError(error)
      ? error
      : new SeatError("FLEET_REDIS_UNAVAILABLE", `A Redis command failed: ${messageOf(error)}.`, {
          cause: error,
          retryable: true,
        });
  }
}

/** Retries `op` through Redis errors until `ms` has passed; resolves its value, or undefined when it never landed. */
export async function persist<T>(ms: number, op: () => Promise<T>): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await op();
    } catch {
      if (Date.now() > deadline) return undefined;
      await sleep(250);
    }
  }
}

/** One run of job `job` on this worker: created per call of the processor, shared by its steps. */
export class JobRun {
  readonly id: string;
  readonly redis: Redis;
  readonly retainSeconds: number;
  readonly persistMs: number;
  /** This run's token: every write after the take is compare-and-set on it. */
  readonly run = randomUUID();
  /** Who runs it, on every event this run writes. */
  readonly tag: { worker: string; host: string };
  readonly stream: JobStream;
  /** The cancel listener's view of this run (in `ctx.running` from `start()` until the clean-up). */
  readonly entry: RunningJob;
  /** The job's worktree, until its turn's work was committed (or it was removed). */
  tree: JobWorktree | undefined;
  reservation: Reservation | undefined;
  /** A named session's host this run claimed (released unless the session opened). */
  claimedHost = false;
  /** The session started (ready): a claimed host is then the session's for good. */
  opened = false;
  /** The `dispatched` mark is confirmed and the prompt is (about to be) sent: from here the job is never re-run. */
  dispatched = false;
  private timer: NodeJS.Timeout | undefined;
  private owned = true;
  // The targets this job names, from this worker's own config (the job carries names only); told in the background.
  private readonly notifyTargets: ReturnType<FleetNotifier["targetsFor"]>;

  constructor(
    readonly ctx: RunContext,
    readonly job: Job,
    /** BullMQ's lock token for this job (the hand-back moves the job with it). */
    readonly token: string | undefined,
  ) {
    this.id = job.id!;
    this.redis = ctx.redis;
    this.retainSeconds = ctx.retainSeconds;
    this.persistMs = ctx.persistMs ?? 30_000;
    this.tag = { worker: ctx.workerId, host: ctx.host };
    this.notifyTargets = ctx.notifier?.targetsFor(this.id, notifyNamesOf(job.data)) ?? [];
    this.stream = new JobStream({
      redis: this.redis,
      id: this.id,
      run: this.run,
      retainSeconds: this.retainSeconds,
      tell: (...notice) => this.tell(...notice),
    });
    this.entry = {
      id: this.id,
      run: this.run,
      cancelled: false,
      turnRunning: false,
      readAnswers: () => void this.stream.pollAnswers(),
    };
  }

  /** The session, once one was opened (disposed by the run's clean-up; the cancel listener reaches it here). */
  get session(): HeadlessSession | undefined {
    return this.entry.session;
  }

  /** Whether this job names notification targets this worker knows (a notice would go anywhere). */
  get notifies(): boolean {
    return this.ctx.notifier !== undefined && this.notifyTargets.length > 0;
  }

  /** Tells the job's targets of an event, in the background: every notice of a run goes through here. */
  tell(...[event, seq, text, approval, deadline]: JobNotice): void {
    if (this.ctx.notifier && this.notifyTargets.length > 0)
      void this.ctx.notifier.tell(this.notifyTargets, {
        jobId: this.id,
        event,
        seq,
        text,
        ...(approval ? { approval } : {}),
        ...(deadline ? { deadline } : {}),
      });
  }

  /** The run took the job: it is listed as running (cancel reaches it) and its heartbeat starts. */
  start(): void {
    this.ctx.running.set(this.id, this.entry);
    this.timer = setInterval(() => void this.heartbeat(), HEARTBEAT_EVERY_MS);
  }

  /** Stops the heartbeat (a run whose end is written, or the clean-up). */
  stopHeartbeat(): void {
    clearInterval(this.timer);
  }

  /** One beat (compare-and-set on the run token); acts on a cancel it finds. Never throws. */
  async heartbeat(): Promise<void> {
    const { ctx, id } = this;
    try {
      const b = await beat(this.redis, id, this.run, ctx.workerId);
      if (!b.owned && this.owned) ctx.log(`job ${id}: this run no longer owns the job; its heartbeat stopped`);
      this.owned = b.owned;
      if (b.rejudged) ctx.log(`job ${id}: recorded uncertain while this run was alive; dispatched again`);
      // The cancel key is re-read on every beat: a pub/sub message lost in a reconnect is not a lost cancel.
      if (b.owned && b.cancelRequested && !this.entry.cancelled) {
        ctx.log(`job ${id}: cancel found on heartbeat`);
        void acknowledgeCancel(ctx, this.entry);
      }
    } catch {
      // A Redis blip: the next beat retries (the heartbeat lives 10 s).
    }
  }

  /** Whether a cancel was asked for (heard, or found by a beat now); a Redis error is FLEET_REDIS_UNAVAILABLE. */
  async cancelRequested(): Promise<boolean> {
    return (
      this.entry.cancelled || (await viaRedis(beat(this.redis, this.id, this.run, this.ctx.workerId))).cancelRequested
    );
  }
}
