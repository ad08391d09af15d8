/*
 * The checks a fleet job passes before it is dispatched, and the options its agent session gets.
 * Owns: before the session starts — the job's spec (valid, and sealed by its submitter), a cancel asked for, a named
 *   session's host (claimed for this worker), the job's worktree, its reservation from the queue's budget, a turn
 *   budget nobody can keep; the session options (the submitter's policy, approvals held in Redis, the run's events);
 *   once the session opened — the named session's host confirmed, a cancel asked for meanwhile, a worker closing.
 * Does not own: the seal and the spec's shape (job-seal.ts, job-spec.ts), the budget's arithmetic (budget.ts),
 *   the dispatch mark (job-fence.ts), opening the session (job-turn.ts).
 * Invariant: a job refused here never reaches an agent or the model; its reservation and claimed host are given back
 *   by the run's clean-up.
 */
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../approvals/index.js";
import { isSeatError, messageOf } from "../errors.js";
import { createPermissionGate, DEFAULT_POLICY } from "../permissions/index.js";
import { budgetRefusal, type SessionOptions } from "../runtime/index.js";
import { seatHome } from "../home/index.js";
import { prepareJobWorktree } from "../worktrees/index.js";
import { reservationOf, reserveBudget } from "./budget.js";
import { cancelBeforeDispatch, endBefore, handBack } from "./job-end.js";
import { viaRedis, type JobRun } from "./job-run.js";
import { checkSeal } from "./job-seal.js";
import { validateJobSpec, type JobSpec } from "./job-spec.js";
import { jobKeys, sessionHostKey } from "./keys.js";
import { claimSessionHost, confirmSessionHost } from "./session-host.js";
import type { JobStatus } from "./state.js";

/** A job that passed its checks: its spec, and the options of its agent session. */
export interface PreparedJob {
  spec: JobSpec;
  options: SessionOptions;
}

/**
 * Checks job `jr` before its session starts and prepares what it runs in. Resolves the prepared job, or the status
 * it ended with here (failed, cancelled). A Redis error rejects with FLEET_REDIS_UNAVAILABLE (the job is handed back).
 */
export async function prepareJob(jr: JobRun): Promise<PreparedJob | JobStatus> {
  const { ctx, id, redis, job } = jr;
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
    return await endBefore(jr, "failed", { code, message: messageOf(error) }, { code, message: messageOf(error) });
  }
  await jr.heartbeat();
  if (await jr.cancelRequested()) return await cancelBeforeDispatch(jr);
  if (spec.session) {
    const claim = await viaRedis(claimSessionHost(redis, sessionHostKey(spec.cwd ?? "", spec.session), ctx.host));
    if (!claim.ours) {
      const message = `named session ${spec.session} lives on host ${claim.holder}; this worker is ${ctx.host}`;
      return await endBefore(
        jr,
        "failed",
        { code: "FLEET_JOB_INVALID", message },
        { code: "FLEET_JOB_INVALID", message },
      );
    }
    jr.claimedHost = claim.claimedNow;
  }
  // A job with a repo works in its own worktree of this worker's cache clone (made before dispatch).
  if (spec.repo)
    jr.tree = await prepareJobWorktree({
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
      return await endBefore(jr, "failed", { code: "BUDGET_UNMETERED", message }, { code: "BUDGET_UNMETERED" });
    }
    const reserved = await viaRedis(reserveBudget(redis, job.queueName, ctx.budget, amount));
    if (!reserved.ok) {
      const message = `Queue ${job.queueName} has spent ${reserved.spent} of its ${limit} ${unit} this ${period}; this job's ${amount} would go over. Not dispatched.`;
      ctx.log(`job ${id}: over the fleet budget, not dispatched`);
      return await endBefore(jr, "failed", { code: "BUDGET_EXCEEDED", message }, { code: "BUDGET_EXCEEDED" });
    }
    jr.reservation = reserved.reservation;
  }
  const options = sessionOptions(jr, spec);
  // A budget nobody can keep is refused before any session starts: the job never reaches the model.
  const refusal = spec.budget ? budgetRefusal(spec.budget, options, false) : undefined;
  if (refusal)
    return await endBefore(jr, "failed", { code: refusal.code, message: refusal.message }, { code: refusal.code });
  return { spec, options };
}

/** The options of the job's agent session: the worker's agent and tools, the job's model, cwd, policy and limits. */
function sessionOptions(jr: JobRun, spec: JobSpec): SessionOptions {
  const { ctx, tree } = jr;
  return {
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
      owner: { kind: "job", id: jr.id },
    },
    callbacks: { onEvent: jr.stream.onEvent },
    diagnosticsAsText: false,
    turnTimeoutMs: spec.turnTimeoutMs || 15 * 60_000,
    idleTimeoutMs: spec.idleTimeoutMs || 3 * 60_000,
    ...(spec.budget ? { budget: spec.budget } : {}),
    ...(spec.allowUnmetered ? { allowUnmetered: true } : {}),
  };
}

/**
 * The checks once the job's session opened: a named session is bound to this host for good, a cancel asked for
 * meanwhile ends the job cancelled, and a worker shutting down hands the job back (nothing was sent). Resolves
 * undefined when the job goes on to its dispatch mark.
 */
export async function checkOpened(jr: JobRun, spec: JobSpec): Promise<"cancelled" | undefined> {
  jr.opened = true;
  if (spec.session)
    await viaRedis(confirmSessionHost(jr.redis, sessionHostKey(spec.cwd ?? "", spec.session), jr.ctx.host));
  if (await jr.cancelRequested()) return await cancelBeforeDispatch(jr);
  // Graceful stop: nothing was sent, so the job goes back to its queue for another worker.
  if (jr.ctx.isClosing()) return await handBack(jr, "handed-back");
  return undefined;
}
