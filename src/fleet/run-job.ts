/*
 * Running one fleet job on a worker: the fence across hosts.
 * Owns: the processor BullMQ calls — take the job (active, with a fresh run token), refuse a job already
 *   dispatched (stalled-job recovery lands here: the job is recorded uncertain, never re-sent), start the session,
 *   check cancel and shutdown, record `dispatched`, send the prompt, stream its events, record how it ended;
 *   the run's heartbeat (which also re-checks the cancel key), the hand-back of a job that was not sent.
 * Does not own: BullMQ's queueing, locks and stall detection (worker.ts configures them), the session itself
 *   (runtime/, sessions/), the permission decisions (permissions/).
 * Invariant: a job runs only when BullMQ's copy of its spec matches the seal its submitter wrote in its record
 *   (job-seal.ts; FLEET_JOB_TAMPERED / FLEET_JOB_UNSIGNED otherwise, before any session starts).
 *   The prompt is sent only after `dispatched` was written by the guarded transition and Redis
 *   acknowledged it; a job whose record says dispatched (or anything after) is never prompted again.
 *   Every write after the take — heartbeat, end, hand-back, cancel ack — is compare-and-set on this run's token,
 *   so a stale run (a worker that was stopped while another took the job) changes nothing.
 *   Before dispatch, nothing was sent: a Redis error or a shutdown hands the job back to be run (here or
 *   elsewhere), a busy named session puts it back behind the running turn, a cancel ends it cancelled. A mark
 *   the primary lost in a failover (the one the connection follows now does not hold it) is handed back too.
 */
import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import { DelayedError, WaitingError } from "bullmq";
import type { Redis } from "ioredis";
import type { SeatEvent, TurnResult } from "../acp/index.js";
import { ledgerEntriesOf, recordUsage, sideCallTokens } from "../usage/index.js";
import { ensurePrivateDir, journalPath, seatHome } from "../home/index.js";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { budgetRefusal, createSession, type HeadlessSession, type SessionOptions } from "../runtime/index.js";
import { openSession } from "../sessions/index.js";
import { createPermissionGate, DEFAULT_POLICY } from "../permissions/index.js";
import type { HostTool } from "../tools/index.js";
import { appendEvent } from "./events.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS, parseAnswer, queueFor } from "../approvals/index.js";
import { ANSWER_POLL_MS, publishApproval, readAnswers, settleApproval } from "./approvals.js";
import { jobKeys, sessionHostKey } from "./keys.js";
import { validateJobSpec, type JobSpec } from "./job-spec.js";
import { checkSeal } from "./job-seal.js";
import { reservationOf, reserveBudget, settleBudget, type FleetBudget, type Reservation } from "./budget.js";
import {
  beat,
  dropHeartbeat,
  HEARTBEAT_EVERY_MS,
  HEARTBEAT_TTL_MS,
  setIfRun,
  settleDerivedUncertain,
  touchMark,
  transition,
  type JobStatus,
  type Transition,
} from "./state.js";
import { awaitReplicasOnline, confirmReplicated, type ReplicaRule } from "./replication.js";
import { claimSessionHost, confirmSessionHost, releaseSessionHost } from "./session-host.js";
import { finishJobWorktree, prepareJobWorktree, type JobWorktree } from "../worktrees/index.js";
import { approvalCommand, type NotifyEventName } from "../notify/index.js";
import type { FleetNotifier } from "./notify.js";

/** A job this worker is running, as the cancel listener sees it. */
export interface RunningJob {
  id: string;
  run: string;
  cancelled: boolean;
  session?: HeadlessSession;
  turnRunning: boolean;
  /** Reads this job's answered approvals now (the worker calls it when an answer is announced). */
  readAnswers?: () => void;
}

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

/** Events `seat run --json` does not print are not streamed either. */
const QUIET = new Set(["queue", "mcp_initialized", "prompt_complete", "user_text"]);

/** How long a job waits for a named session's lease before going back behind the running turn (ms). */
export const SESSION_WAIT_MS = 2_000;

/** How long a job put back behind a busy named session waits before it is offered again (ms). */
export const SESSION_RETRY_MS = 1_000;

/** How long a job waits before its mark for the counted replicas to be in sync (ms), then goes back to its queue. */
export const REPLICAS_WAIT_MS = 3_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Any failure of a Redis command, as a coded error (the hand-back decides by this code). */
async function viaRedis<T>(op: Promise<T>): Promise<T> {
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
async function persist<T>(ms: number, op: () => Promise<T>): Promise<T | undefined> {
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

/** Runs job `job` (BullMQ's processor); resolves the final status it recorded. */
export async function runJob(ctx: RunContext, job: Job, token: string | undefined): Promise<JobStatus | "skipped"> {
  const id = job.id!;
  const { redis } = ctx;
  const retainSeconds = ctx.retainSeconds;
  const persistMs = ctx.persistMs ?? 30_000;
  const run = randomUUID();
  const tag = { worker: ctx.workerId, host: ctx.host };
  /** An end transition of this run: before dispatch from active, after it from dispatched/uncertain. */
  // The turn's `done` is held back and appended by the end transition itself (one atomic step), so a worker that
  // dies between the two leaves neither: a watcher never sees `done` on a job that then reads `uncertain`.
  let heldDone: SeatEvent | undefined;
  /** Appends so far: each event's mark is this run's token and its number, so a re-sent append lands once. */
  let appended = 0;
  // The targets this job names, from this worker's own config (the job carries names only); told in the background.
  const notifyTargets = ctx.notifier?.targetsFor(id, notifyNamesOf(job.data)) ?? [];
  const tell = (
    event: NotifyEventName,
    seq: string,
    text: string,
    approval?: Parameters<FleetNotifier["tell"]>[1]["approval"],
  ) => {
    if (ctx.notifier && notifyTargets.length > 0)
      void ctx.notifier.tell(notifyTargets, { jobId: id, event, seq, text, ...(approval ? { approval } : {}) });
  };
  let asked = 0;
  const end = async (
    to: JobStatus,
    fields: Record<string, string | number>,
    event: Record<string, unknown>,
    afterDispatch: boolean,
  ) => {
    const r = await transition(redis, id, {
      from: afterDispatch ? ["dispatched", "uncertain"] : ["active"],
      to,
      fields,
      event: { ...tag, ...event },
      retainSeconds,
      run,
      ...(afterDispatch && heldDone ? { before: [heldDone] } : {}),
    });
    // Told only once the end is recorded, by the run that recorded it (a compare-and-set: one run per end).
    if (r.moved) tell(...endNotification(to, fields));
    return r;
  };

  // Held approvals: published to Redis before their event, answered from any host, read back here
  // as soon as the answer is announced on APPROVAL_ANSWERED_CHANNEL (worker.ts), and every ANSWER_POLL_MS in case
  // the announcement was lost (pub/sub is at most once).
  const pendingApprovals = new Set<string>();
  let answerPoll: NodeJS.Timeout | undefined;
  const pollAnswers = async () => {
    for (const record of await readAnswers(redis, id, [...pendingApprovals]).catch(() => [])) {
      try {
        // Straight to this job's own queue: Redis already settled this answer (its compare-and-set).
        const queue = queueFor(record.view.id);
        if (!queue) continue;
        try {
          queue.answer(
            record.view.id,
            parseAnswer({
              decision: record.decision ?? "deny",
              ...(record.always ? { always: true } : {}),
              ...(record.by ? { by: record.by } : {}),
              ...(record.digest ? { digest: record.digest } : {}),
            }),
          );
        } catch (error) {
          // The digest the person saw is not the call this worker holds (the record was changed in Redis): deny it.
          if (!(isSeatError(error) && error.code === "APPROVAL_TARGET_CHANGED")) throw error;
          queue.answer(record.view.id, {
            decision: "deny",
            by: `worker: ${record.by ?? "an answer"} named another target (APPROVAL_TARGET_CHANGED)`,
          });
        }
      } catch {
        // Settled here first (deadline, end of turn): the local outcome stands and is recorded by its event.
      }
    }
  };
  const trackApprovals = (event: SeatEvent): Promise<unknown> => {
    if (event.type === "approval_asked") {
      const a = event.approval;
      // The n-th approval of this job: a job is never prompted twice, so no other worker asks its n-th again.
      tell(
        "waiting",
        `approval-${++asked}`,
        `waits for your approval: ${a.category} ${a.title} — answer with \`seat approve ${a.id} --digest ${a.digest}\` or \`seat deny ${a.id}\` (--redis)`,
        {
          id: a.id,
          category: a.category,
          command: approvalCommand(a),
          digest: a.digest,
        },
      );
      pendingApprovals.add(event.approval.id);
      answerPoll ??= setInterval(() => void pollAnswers(), ANSWER_POLL_MS);
      return publishApproval(redis, id, run, event.approval, retainSeconds);
    }
    if (event.type === "approval_answered") {
      pendingApprovals.delete(event.id);
      const why = event.via === "timeout" ? "timeout" : event.via === "expired" ? "turn-ended" : undefined;
      return settleApproval(redis, id, event.id, {
        state: why ? "expired" : "answered",
        decision: event.decision,
        ...(why ? { why } : {}),
      });
    }
    return Promise.resolve();
  };

  // Events reach the stream in the order the session produced them; transitions wait for the chain.
  let chain: Promise<unknown> = Promise.resolve();
  const onEvent = (event: SeatEvent) => {
    if (QUIET.has(event.type)) return;
    if (event.type === "done") {
      heldDone = event;
      return;
    }
    const mark = `${run}:${++appended}`;
    chain = chain
      .then(() => trackApprovals(event))
      .catch(() => undefined)
      .then(() => appendEvent(redis, id, event, mark))
      .catch(() => undefined);
    // The session's attention state is also kept on the record (only while it names this run), so a lister
    // (`seat ps --redis`) reads one hash per job instead of scanning its stream.
    if (event.type === "state") {
      const fields = {
        attention_state: event.state,
        attention_since: event.since,
        attention_waiting_on: event.waitingOn ?? "",
      };
      chain = chain.then(() => setIfRun(redis, id, run, fields)).catch(() => undefined);
    }
  };

  /**
   * Gives a job that was not sent back to its queue: the record moves to waiting (only from this run), then
   * BullMQ's job (delayed when `delayMs`). Retried through a Redis outage; if it never lands, BullMQ's
   * stalled-job recovery re-offers the job once its lock lapses (the record's `active` is taken over then).
   */
  const handBack = async (reason: string, delayMs = 0): Promise<never> => {
    await chain;
    const back = await persist(persistMs, () =>
      transition(redis, id, {
        from: ["active", "dispatched", "uncertain"],
        to: "waiting",
        run,
        event: { reason, worker: ctx.workerId },
      }),
    );
    let said: string;
    if (!back) said = "Redis did not answer; stalled-job recovery will re-offer it";
    // Not ours any more (another run took it, it ended, or the record is gone): leave BullMQ's job alone.
    else if (!back.moved && back.current !== "waiting") said = `left alone (it is ${back.current || "gone"})`;
    else {
      try {
        if (delayMs > 0) await job.moveToDelayed(Date.now() + delayMs, token);
        else await job.moveToWait(token);
        said = "back in its queue";
      } catch (error) {
        said = `its queue did not take it back (${messageOf(error)}); stalled-job recovery will re-offer it`;
      }
    }
    ctx.log(`job ${id}: handed back (${reason}): ${said}`);
    throw delayMs > 0 ? new DelayedError() : new WaitingError();
  };

  let took: Awaited<ReturnType<typeof transition>>;
  try {
    took = await viaRedis(
      transition(redis, id, {
        from: ["waiting", "active"],
        to: "active",
        fields: { ...tag, run },
        event: { ...tag, attempt: job.attemptsStarted },
      }),
    );
  } catch {
    // The take may or may not have landed; nothing was sent either way.
    return handBack("redis-error-at-take");
  }
  if (!took.moved) {
    if (took.current === "dispatched") {
      // Stalled-job recovery gave us a job whose prompt may already have reached the model: never re-send.
      const doubt = await transition(redis, id, {
        from: ["dispatched"],
        to: "uncertain",
        heartbeatGone: true,
        retainSeconds,
        fields: {
          code: "FLEET_JOB_UNCERTAIN",
          message: "its worker died after dispatch; the prompt may have reached the model and was not re-sent",
          uncertain_reason: "stalled-after-dispatch",
        },
        event: { code: "FLEET_JOB_UNCERTAIN", reason: "stalled-after-dispatch", noticedBy: ctx.workerId },
      }).catch(() => ({ moved: false }));
      if (doubt.moved)
        tell("uncertain", "end", "uncertain (its worker died after dispatch; the prompt was not re-sent)");
      // Still beating: BullMQ will not offer the job again, so this worker watches until the beat lapses (then
      // the job is uncertain, told once) or the job ends (told by the run that ends it). In the background.
      else if (ctx.notifier && notifyTargets.length > 0)
        void watchForUncertain(ctx, id, () =>
          tell("uncertain", "end", "uncertain (its worker stopped after dispatch; the prompt was not re-sent)"),
        );
      ctx.log(
        doubt.moved
          ? `job ${id}: uncertain (its worker died after dispatch; not re-sent)`
          : `job ${id}: dispatched and still beating elsewhere; left alone`,
      );
      return doubt.moved ? "uncertain" : "skipped";
    }
    // Recorded uncertain by a reader (`seat jobs show`, a watcher) that noticed the heartbeat gone: the worker that
    // recovers the job tells it, as it would have had it recorded it (the claim keeps it to once across the fleet).
    if (took.current === "uncertain")
      tell("uncertain", "end", "uncertain (its worker stopped after dispatch; the prompt was not re-sent)");
    ctx.log(`job ${id}: already ${took.current || "gone"}; nothing to do`);
    return "skipped";
  }

  const entry: RunningJob = { id, run, cancelled: false, turnRunning: false, readAnswers: () => void pollAnswers() };
  ctx.running.set(id, entry);
  let owned = true;
  const heartbeat = async () => {
    try {
      const b = await beat(redis, id, run, ctx.workerId);
      if (!b.owned && owned) ctx.log(`job ${id}: this run no longer owns the job; its heartbeat stopped`);
      owned = b.owned;
      if (b.rejudged) ctx.log(`job ${id}: recorded uncertain while this run was alive; dispatched again`);
      // The cancel key is re-read on every beat: a pub/sub message lost in a reconnect is not a lost cancel.
      if (b.owned && b.cancelRequested && !entry.cancelled) {
        ctx.log(`job ${id}: cancel found on heartbeat`);
        void acknowledgeCancel(ctx, entry);
      }
    } catch {
      // A Redis blip: the next beat retries (the heartbeat lives 10 s).
    }
  };
  const timer = setInterval(() => void heartbeat(), HEARTBEAT_EVERY_MS);
  let session: HeadlessSession | undefined;
  let tree: JobWorktree | undefined;
  let dispatched = false;
  let reservation: Reservation | undefined;
  let claimedHost = false;
  let opened = false;
  const cancelRequested = async () =>
    entry.cancelled || (await viaRedis(beat(redis, id, run, ctx.workerId))).cancelRequested;
  /** Ends the job before dispatch (only while this run owns it); a Redis error hands it back instead. */
  const endBefore = async <S extends JobStatus>(
    to: S,
    fields: Record<string, string | number>,
    event: Record<string, unknown>,
  ): Promise<S> => {
    await chain;
    // A name this job claimed for its host is free again before anyone can see the job ended.
    if (claimedHost && !opened)
      await viaRedis(
        releaseSessionHost(
          redis,
          sessionHostKey((job.data as JobSpec).cwd ?? "", (job.data as JobSpec).session!),
          ctx.host,
        ),
      );
    const r = await viaRedis(end(to, fields, event, false));
    if (!r.moved) ctx.log(`job ${id}: not recorded ${to} (it is ${r.current || "gone"}; this run no longer owns it)`);
    return to;
  };
  const cancelBeforeDispatch = async () => {
    await viaRedis(setIfRun(redis, id, run, { cancel_acked_by: ctx.workerId, cancel_acked_at: Date.now() }));
    return endBefore(
      "cancelled",
      { stop_reason: "cancelled" },
      { stopReason: "cancelled", reason: "cancelled-before-dispatch" },
    );
  };
  try {
    let spec: JobSpec;
    try {
      spec = validateJobSpec(job.data);
      // What BullMQ handed us must be what the submitter sealed in the job's record (bull-board's update-data, a raw
      // Redis write): checked before anything starts, so a rewritten spec never reaches an agent or the model.
      const [digest, submitter, sig] = await viaRedis(
        redis.hmget(jobKeys(id).state, "spec_digest", "submitted_by", "spec_sig"),
      );
      checkSeal(
        id,
        spec,
        {
          ...(digest ? { spec_digest: digest } : {}),
          ...(submitter !== null ? { submitted_by: submitter } : {}),
          ...(sig ? { spec_sig: sig } : {}),
        },
        ctx.fleetKey,
      );
    } catch (error) {
      if (isSeatError(error) && error.code === "FLEET_REDIS_UNAVAILABLE") throw error;
      const code = isSeatError(error) ? error.code : "FLEET_JOB_INVALID";
      if (code === "FLEET_JOB_TAMPERED" || code === "FLEET_JOB_UNSIGNED")
        ctx.log(`job ${id}: refused (${code}); not run`);
      return await endBefore("failed", { code, message: messageOf(error) }, { code, message: messageOf(error) });
    }
    await heartbeat();
    if (await cancelRequested()) return await cancelBeforeDispatch();
    if (spec.session) {
      const claim = await viaRedis(claimSessionHost(redis, sessionHostKey(spec.cwd ?? "", spec.session), ctx.host));
      if (!claim.ours) {
        const message = `named session ${spec.session} lives on host ${claim.holder}; this worker is ${ctx.host}`;
        return await endBefore(
          "failed",
          { code: "FLEET_JOB_INVALID", message },
          { code: "FLEET_JOB_INVALID", message },
        );
      }
      claimedHost = claim.claimedNow;
    }
    // A job with a repo works in its own worktree of this worker's cache clone (made before dispatch).
    if (spec.repo)
      tree = await prepareJobWorktree({
        home: seatHome(),
        repo: spec.repo,
        name: id,
        ...(spec.base ? { base: spec.base } : {}),
      });
    if (ctx.budget) {
      // The queue's budget is reserved atomically before the dispatch mark: a job that does not fit never starts.
      const { limit, unit, period } = ctx.budget;
      const amount = reservationOf(ctx.budget, spec.budget);
      if (amount === undefined) {
        const message = `This worker keeps a fleet budget of ${limit} ${unit} per ${period}; a job must carry its own ${unit === "tokens" ? "--max-tokens" : "--max-cost"} to reserve from it. Not dispatched.`;
        return await endBefore("failed", { code: "BUDGET_UNMETERED", message }, { code: "BUDGET_UNMETERED" });
      }
      const reserved = await viaRedis(reserveBudget(redis, job.queueName, ctx.budget, amount));
      if (!reserved.ok) {
        const message = `Queue ${job.queueName} has spent ${reserved.spent} of its ${limit} ${unit} this ${period}; this job's ${amount} would go over. Not dispatched.`;
        ctx.log(`job ${id}: over the fleet budget, not dispatched`);
        return await endBefore("failed", { code: "BUDGET_EXCEEDED", message }, { code: "BUDGET_EXCEEDED" });
      }
      reservation = reserved.reservation;
    }
    const options: SessionOptions = {
      env: ctx.env,
      agentEnv: ctx.agentEnv,
      ...(ctx.grokCliBinaryPath ? { grokCliBinaryPath: ctx.grokCliBinaryPath } : {}),
      ...(spec.agent ? { agent: spec.agent } : {}),
      ...(spec.model ? { model: spec.model } : {}),
      ...(tree ? { cwd: tree.path } : spec.cwd ? { cwd: spec.cwd } : {}),
      ...(ctx.tools.length > 0 ? { tools: ctx.tools } : {}),
      // The submitter's policy; a call it sends for approval is held in Redis for anyone to answer (seat approve --redis).
      permissions: createPermissionGate({ policy: spec.policy ?? DEFAULT_POLICY }),
      approvals: {
        timeoutMs: spec.policy?.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS,
        owner: { kind: "job", id },
      },
      callbacks: { onEvent },
      diagnosticsAsText: false,
      turnTimeoutMs: spec.turnTimeoutMs || 15 * 60_000,
      idleTimeoutMs: spec.idleTimeoutMs || 3 * 60_000,
      ...(spec.budget ? { budget: spec.budget } : {}),
      ...(spec.allowUnmetered ? { allowUnmetered: true } : {}),
    };
    // A budget nobody can keep is refused before any session starts: the job never reaches the model.
    const refusal = spec.budget ? budgetRefusal(spec.budget, options, false) : undefined;
    if (refusal)
      return await endBefore("failed", { code: refusal.code, message: refusal.message }, { code: refusal.code });
    if (spec.session) {
      try {
        session = (await openSession({ ...options, name: spec.session, waitMs: SESSION_WAIT_MS })).session;
      } catch (error) {
        // Another turn of this named session runs (here): queue behind it rather than fail.
        if (isSeatError(error) && error.code === "SESSION_BUSY")
          return await handBack("session-busy", SESSION_RETRY_MS);
        throw error;
      }
    } else session = await createSession(options);
    entry.session = session;
    if (session.state !== "ready") {
      const d = session.diagnostics[0];
      return await endBefore(
        "failed",
        { code: d?.code ?? "ACP_SESSION_DEAD", message: d?.message ?? "the session did not start" },
        { code: d?.code ?? "ACP_SESSION_DEAD" },
      );
    }
    opened = true;
    if (spec.session) await viaRedis(confirmSessionHost(redis, sessionHostKey(spec.cwd ?? "", spec.session), ctx.host));
    if (await cancelRequested()) return await cancelBeforeDispatch();
    // Graceful stop: nothing was sent, so the job goes back to its queue for another worker.
    if (ctx.isClosing()) return await handBack("handed-back");
    const promptId = `fleet-${id}`;
    // A counted replica that is resyncing (after a failover, say) could not acknowledge a mark now: nothing is
    // written yet, so the job waits a little, then goes back to its queue (never uncertain for it).
    if (ctx.replication && ctx.replication.rule().required > 0) {
      const required = ctx.replication.rule().required;
      const online = await viaRedis(awaitReplicasOnline(redis, required, REPLICAS_WAIT_MS));
      if (online < required) return await handBack("replicas-behind", SESSION_RETRY_MS);
    }
    await chain;
    const epochBefore = ctx.replication?.epoch() ?? 0;
    const fenced = await viaRedis(
      transition(redis, id, {
        from: ["active"],
        to: "dispatched",
        run,
        fields: { prompt_id: promptId, dispatched_at: Date.now() },
        event: { ...tag, promptId },
      }),
    );
    if (!fenced.moved) {
      ctx.log(`job ${id}: not dispatched (it is ${fenced.current || "gone"})`);
      return "skipped";
    }
    // The mark counts only once every replica that could be promoted has it (replication.ts); until then nothing is sent.
    if (ctx.replication) {
      const rule = ctx.replication.rule();
      const ack = await confirmReplicated(
        redis,
        ctx.replication.epoch,
        epochBefore,
        rule.required,
        ctx.replication.timeoutMs,
        () => touchMark(redis, id, run),
      );
      // The primary the connection follows now has no mark of this run: the failover lost it with the write, nothing
      // was sent, and no primary to come can say `dispatched` for this run (the old one resyncs from this one), so
      // the job goes back to its queue to run — never uncertain, and never left `active` under a run that returned.
      if (!ack.confirmed && ack.lost) return await handBack("mark-lost-in-failover");
      if (!ack.confirmed) {
        const message = `the dispatch mark was ${ack.lost ? "lost by the primary before its replicas had it" : `acknowledged by ${Math.max(0, ack.acknowledged)} of the ${ack.required} replica(s) that could be promoted within ${ctx.replication.timeoutMs} ms`}; the prompt was not sent, but a future primary may still hold the mark`;
        const fields = { code: "FLEET_REPLICATION_UNCONFIRMED", message, uncertain_reason: "replication-unconfirmed" };
        const unsent = () =>
          end(
            "uncertain",
            fields,
            {
              code: "FLEET_REPLICATION_UNCONFIRMED",
              reason: "replication-unconfirmed",
              required: ack.required,
              acknowledged: ack.acknowledged,
            },
            true,
          );
        // The run's own word (never sent) must outlive the failover too: written on the primary the connection
        // follows now (over a heartbeat-lost a reader may have recorded meanwhile), and confirmed like the mark —
        // a write that landed on a primary about to be demoted is written again after the move. The heartbeat
        // stops once the end is written: a beat re-judges this run's `uncertain` as a live turn (`dispatched`).
        const endEpoch = ctx.replication.epoch();
        const ended = await persist(persistMs, unsent);
        clearInterval(timer);
        if (ended?.moved)
          await confirmReplicated(
            redis,
            ctx.replication.epoch,
            endEpoch,
            ctx.replication.rule().required,
            Math.max(ctx.replication.timeoutMs, 5_000),
            async () => (await unsent()).moved,
          ).catch(() => undefined);
        ctx.log(`job ${id}: uncertain (replication-unconfirmed): ${message}`);
        return "uncertain";
      }
    }
    dispatched = true;
    entry.turnRunning = true;
    const turn = session.prompt(spec.prompt, { promptId });
    if (entry.cancelled) void cancelTurn(entry);
    const result = await turn;
    entry.turnRunning = false;
    if (reservation && ctx.budget)
      await settleBudget(redis, reservation, spentOf(ctx.budget, result)).catch((error: unknown) =>
        ctx.log(`job ${id}: its fleet budget reservation could not be settled: ${messageOf(error)}`),
      );
    await chain;
    // grok ends a turn whose tool was denied as `cancelled`; a held approval nobody answered is a failure of the
    // job (APPROVAL_TIMEOUT, exit 124), not a cancel anyone asked for.
    const timedOut = result.diagnostic?.code === "APPROVAL_TIMEOUT" && !entry.cancelled;
    let status: JobStatus = timedOut
      ? "failed"
      : result.stopReason === "cancelled" || entry.cancelled
        ? "cancelled"
        : result.diagnostic
          ? "failed"
          : "completed";
    // A named session's turn is in the ledger already (sessions/), under its name.
    if (!spec.session) recordJobUsage(ctx, id, spec, result);
    // The turn's usage as the agent reported it (absent = unknown, never zero): the job's ledger entry.
    const usage: Record<string, string> = {
      ...(result.usage ? { usage: JSON.stringify(result.usage) } : {}),
      ...(result.sideCalls?.length ? { side_calls: JSON.stringify(result.sideCalls) } : {}),
    };
    const fields: Record<string, string | number> = {
      ...(result.stopReason ? { stop_reason: result.stopReason } : {}),
      ...(result.diagnostic ? { code: result.diagnostic.code, message: result.diagnostic.message } : {}),
      ...usage,
    };
    if (tree) {
      // The agent is gone before its work is committed; only a completed turn is pushed (one atomic push).
      await session.dispose().catch(() => undefined);
      const finishing = tree;
      tree = undefined;
      try {
        const out = await finishJobWorktree(
          finishing,
          { promptId, prompt: spec.prompt },
          { push: status === "completed" },
        );
        Object.assign(fields, { branch: out.branch, commit: out.commit, diffstat: out.diffstat });
      } catch (error) {
        status = "failed";
        Object.assign(fields, {
          code: isSeatError(error) ? error.code : "WORKTREE_GIT_FAILED",
          message: messageOf(error),
        });
      }
    }
    // A worktree job disposed its session above: that dispose's events reach the stream before the end (and its done).
    await chain;
    const event = {
      ...(result.stopReason ? { stopReason: result.stopReason } : {}),
      ...(result.diagnostic ? { code: result.diagnostic.code } : {}),
      ...(result.usage ? { usage: result.usage } : {}),
    };
    await recordEnd(ctx, id, end, status, fields, event, persistMs, heldDone);
    ctx.log(`job ${id}: ${status}`);
    return status;
  } catch (error) {
    if (error instanceof WaitingError || error instanceof DelayedError) throw error;
    await chain;
    // Before dispatch nothing was sent: a Redis failure hands the job back to be run; only this run may fail it.
    if (!dispatched && isSeatError(error) && error.code === "FLEET_REDIS_UNAVAILABLE")
      return await handBack("redis-error-before-dispatch");
    const message = messageOf(error);
    const code = isSeatError(error) ? error.code : "ACP_PROMPT_FAILED";
    if (!dispatched)
      return await endBefore("failed", { code, message }, { code, message }).catch(() =>
        handBack("redis-error-before-dispatch"),
      );
    await recordEnd(ctx, id, end, "failed", { code, message }, { code, message }, persistMs, heldDone);
    return "failed";
  } finally {
    // Reserved but never sent (a session that did not start, a cancel, a hand-back): the budget gets it back.
    if (reservation && !dispatched) await settleBudget(redis, reservation, 0).catch(() => undefined);
    clearInterval(timer);
    clearInterval(answerPoll);
    ctx.running.delete(id);
    await session?.dispose().catch(() => undefined);
    // A job that ended before its turn did (an error, no dispatch) leaves nothing: its worktree goes, unpushed.
    if (tree)
      await finishJobWorktree(tree, { promptId: `fleet-${id}`, prompt: "" }, { push: false }).catch(() => undefined);
    if (claimedHost && !opened) {
      const spec = job.data as JobSpec;
      await releaseSessionHost(redis, sessionHostKey(spec.cwd ?? "", spec.session!), ctx.host).catch(() => undefined);
    }
    await dropHeartbeat(redis, id, run).catch(() => undefined);
  }
}

/** What a turn spent in the fleet budget's unit, or undefined when the agent did not report it. */
function spentOf(budget: FleetBudget, result: TurnResult): number | undefined {
  const u = result.usage;
  if (budget.unit === "usd") return u?.costUsdTicks === undefined ? undefined : u.costUsdTicks / 1e10;
  // The calls grok made on its own (turn summary, titles) are spent too.
  const sides = result.sideCalls?.length ? sideCallTokens(result.sideCalls) : undefined;
  if (u?.totalTokens !== undefined) return u.totalTokens + (sides ?? 0);
  if (u?.inputTokens === undefined && u?.outputTokens === undefined) return sides;
  return (u.inputTokens ?? 0) + (u.outputTokens ?? 0) + (sides ?? 0);
}

/** Adds a job's turn to this host's ledger (seat usage --by job); a failure is logged, never the job's. */
function recordJobUsage(ctx: RunContext, id: string, spec: JobSpec, result: TurnResult): void {
  try {
    const home = seatHome();
    ensurePrivateDir(home);
    recordUsage(
      journalPath(home),
      ledgerEntriesOf(result, {
        source: "job",
        agent: spec.agent ?? "grok",
        jobId: id,
        ...(spec.session ? { session: spec.session } : {}),
        ...(spec.model ? { model: spec.model } : {}),
      }),
    );
  } catch (error) {
    ctx.log(`job ${id}: its usage could not be added to this host's ledger: ${messageOf(error)}`);
  }
}

/**
 * Records how this run ended after dispatch, retried through a Redis outage. A record that vanished (Redis restarted without
 * its AOF) is written again with what this run knows, so watchers still see the end.
 */
/**
 * After a stalled-job recovery that found the old run still beating: re-checks until the beat lapses (recording
 * the job uncertain, as any reader may) or the job is no longer dispatched; calls `uncertain` when it is uncertain.
 * Bounded by three heartbeat lifetimes; a Redis error ends the watch (a reader then records it, untold).
 */
async function watchForUncertain(ctx: RunContext, id: string, uncertain: () => void): Promise<void> {
  const until = Date.now() + 3 * HEARTBEAT_TTL_MS;
  try {
    while (Date.now() < until && !ctx.isClosing()) {
      await new Promise((r) => setTimeout(r, HEARTBEAT_EVERY_MS));
      await settleDerivedUncertain(ctx.redis, id, ctx.workerId, ctx.retainSeconds);
      const [status, alive, run] = await Promise.all([
        ctx.redis.hget(jobKeys(id).state, "status"),
        ctx.redis.get(jobKeys(id).alive),
        ctx.redis.hget(jobKeys(id).state, "run"),
      ]);
      if (status === "uncertain" && alive !== run) return uncertain();
      if (status !== "dispatched" && status !== "uncertain") return;
    }
  } catch {
    // the watch is a courtesy: the job's record is right without it
  }
}

/** The target names a job's data carries (validated with the spec; anything else names none). */
function notifyNamesOf(data: unknown): string[] | undefined {
  const names = (data as { notify?: unknown } | null)?.notify;
  return Array.isArray(names) && names.every((n) => typeof n === "string") ? names : undefined;
}

/** The notification a recorded end calls for: its event, its sequence (one end per job and event) and its text. */
function endNotification(to: JobStatus, fields: Record<string, string | number>): [NotifyEventName, string, string] {
  const code = typeof fields.code === "string" ? fields.code : undefined;
  if (code === "BUDGET_EXCEEDED") return ["budget", "end", `stopped by its budget (${code})`];
  if (to === "completed") return ["done", "end", "finished its turn"];
  if (to === "failed" || to === "cancelled" || to === "uncertain") return [to, "end", code ? `${to} (${code})` : to];
  return ["failed", `unexpected-${to}`, to];
}

async function recordEnd(
  ctx: RunContext,
  id: string,
  end: (
    to: JobStatus,
    fields: Record<string, string | number>,
    event: Record<string, unknown>,
    afterDispatch: boolean,
  ) => ReturnType<typeof transition>,
  status: JobStatus,
  fields: Record<string, string | number>,
  event: Record<string, unknown>,
  persistMs: number,
  done?: object,
): Promise<void> {
  const outcome = await persist(persistMs, () => end(status, fields, event, true));
  if (!outcome) {
    ctx.log(`job ${id}: its end (${status}) could not be recorded: Redis did not answer`);
    return;
  }
  if (!outcome.moved && outcome.current === "") {
    const again: Transition = {
      from: [""],
      to: status,
      fields: { ...fields, worker: ctx.workerId, host: ctx.host, record_lost: 1 },
      event: { ...event, worker: ctx.workerId, host: ctx.host, reason: "record-lost" },
      retainSeconds: ctx.retainSeconds,
      ...(done ? { before: [done] } : {}),
    };
    await persist(persistMs, () => transition(ctx.redis, id, again));
    ctx.log(`job ${id}: its record had vanished (Redis lost it); recorded ${status} again`);
  } else if (!outcome.moved)
    ctx.log(`job ${id}: not recorded ${status} (it is ${outcome.current}; another run owns it)`);
}

/** Acts on a cancel for a running job: records the acknowledgement (only while this run owns it), cancels the turn. */
export async function acknowledgeCancel(
  ctx: Pick<RunContext, "redis" | "workerId" | "log">,
  entry: RunningJob,
): Promise<void> {
  const first = !entry.cancelled;
  const cancelling = cancelTurn(entry);
  if (first)
    await setIfRun(ctx.redis, entry.id, entry.run, {
      cancel_acked_by: ctx.workerId,
      cancel_acked_at: Date.now(),
    }).catch(() => undefined);
  await cancelling;
}

/** Cancels a running turn now and again shortly after (a cancel that raced the prompt's start is not lost). */
export async function cancelTurn(entry: RunningJob): Promise<void> {
  entry.cancelled = true;
  for (const delayMs of [0, 150, 500]) {
    if (delayMs) await sleep(delayMs);
    if (!entry.turnRunning) return;
    await entry.session?.cancel().catch(() => undefined);
  }
}
