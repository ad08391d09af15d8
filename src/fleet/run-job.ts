/*
 * Running one fleet job on a worker: the fence across hosts.
 * Owns: the processor BullMQ calls — take the job (active), refuse a job already dispatched (stalled-job
 *   recovery lands here: the job is recorded uncertain, never re-sent), start the session, check cancel and
 *   shutdown, record `dispatched`, send the prompt, stream its events, record how it ended.
 * Does not own: BullMQ's queueing, locks and stall detection (worker.ts configures them), the session itself
 *   (runtime/, sessions/), the permission decisions (permissions/).
 * Invariant: the prompt is sent only after `dispatched` was written by the guarded transition and Redis
 *   acknowledged it; a job whose record says dispatched (or anything after) is never prompted again.
 *   Before dispatch, a cancel ends the job cancelled and a shutdown hands it back to its queue.
 */
import { randomUUID } from "node:crypto";
import type { Job } from "bullmq";
import { WaitingError } from "bullmq";
import type { Redis } from "ioredis";
import type { SeatEvent } from "../acp/index.js";
import { isSeatError, messageOf } from "../errors.js";
import { createSession, type HeadlessSession, type SessionOptions } from "../runtime/index.js";
import { openSession } from "../sessions/index.js";
import { createPermissionGate, DEFAULT_POLICY } from "../permissions/index.js";
import type { HostTool } from "../tools/index.js";
import { appendEvent } from "./events.js";
import { jobKeys, sessionHostKey } from "./keys.js";
import { validateJobSpec, type JobSpec } from "./job-spec.js";
import { HEARTBEAT_EVERY_MS, HEARTBEAT_TTL_MS, transition, type JobStatus } from "./state.js";

/** A job this worker is running, as the cancel listener sees it. */
export interface RunningJob {
  cancelled: boolean;
  session?: HeadlessSession;
  turnRunning: boolean;
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
}

/** Events `seat run --json` does not print are not streamed either. */
const QUIET = new Set(["queue", "mcp_initialized", "prompt_complete", "user_text"]);

/** Runs job `job` (BullMQ's processor); resolves the final status it recorded. */
export async function runJob(ctx: RunContext, job: Job, token: string | undefined): Promise<JobStatus | "handed-back" | "skipped"> {
  const id = job.id!;
  const { redis } = ctx;
  const retainSeconds = ctx.retainSeconds;
  const end = (to: JobStatus, fields: Record<string, string | number>, event: Record<string, unknown>, run?: string) =>
    transition(redis, id, { from: run ? ["dispatched", "uncertain"] : ["waiting", "active"], to, fields, event: { worker: ctx.workerId, host: ctx.host, ...event }, retainSeconds, ...(run ? { run } : {}) });

  let spec: JobSpec;
  try {
    spec = validateJobSpec(job.data);
  } catch (error) {
    const code = isSeatError(error) ? error.code : "FLEET_JOB_INVALID";
    await end("failed", { code, message: messageOf(error) }, { code, message: messageOf(error) });
    return "failed";
  }
  const run = randomUUID();
  const took = await transition(redis, id, { from: ["waiting", "active"], to: "active", fields: { worker: ctx.workerId, host: ctx.host, run }, event: { worker: ctx.workerId, host: ctx.host, attempt: job.attemptsStarted } });
  if (!took.moved) {
    if (took.current === "dispatched") {
      // Stalled-job recovery gave us a job whose prompt may already have reached the model: never re-send.
      const doubt = await transition(redis, id, {
        from: ["dispatched"],
        to: "uncertain",
        heartbeatGone: true,
        retainSeconds,
        fields: { code: "FLEET_JOB_UNCERTAIN", message: "its worker died after dispatch; the prompt may have reached the model and was not re-sent" },
        event: { code: "FLEET_JOB_UNCERTAIN", reason: "stalled-after-dispatch", noticedBy: ctx.workerId },
      });
      ctx.log(doubt.moved ? `job ${id}: uncertain (its worker died after dispatch; not re-sent)` : `job ${id}: dispatched and still beating elsewhere; left alone`);
      return doubt.moved ? "uncertain" : "skipped";
    }
    ctx.log(`job ${id}: already ${took.current || "gone"}; nothing to do`);
    return "skipped";
  }

  const entry: RunningJob = { cancelled: false, turnRunning: false };
  ctx.running.set(id, entry);
  const beat = () => redis.set(jobKeys(id).alive, ctx.workerId, "PX", HEARTBEAT_TTL_MS).catch(() => undefined);
  await beat();
  const heartbeat = setInterval(beat, HEARTBEAT_EVERY_MS);
  let session: HeadlessSession | undefined;
  // Events reach the stream in the order the session produced them; transitions wait for the chain.
  let chain: Promise<unknown> = Promise.resolve();
  const onEvent = (event: SeatEvent) => {
    if (QUIET.has(event.type)) return;
    chain = chain.then(() => appendEvent(redis, id, event)).catch(() => undefined);
  };
  const cancelRequested = async () => entry.cancelled || (await redis.exists(jobKeys(id).cancel)) === 1;
  try {
    if (await cancelRequested()) {
      await end("cancelled", { stop_reason: "cancelled" }, { stopReason: "cancelled", reason: "cancelled-before-dispatch" });
      return "cancelled";
    }
    if (spec.session) {
      const owner = sessionHostKey(spec.cwd ?? "", spec.session);
      await redis.set(owner, ctx.host, "NX");
      const holder = await redis.get(owner);
      if (holder !== ctx.host) {
        const message = `named session ${spec.session} lives on host ${holder}; this worker is ${ctx.host}`;
        await end("failed", { code: "FLEET_JOB_INVALID", message }, { code: "FLEET_JOB_INVALID", message });
        return "failed";
      }
    }
    const options: SessionOptions = {
      env: ctx.env,
      agentEnv: ctx.agentEnv,
      ...(ctx.grokCliBinaryPath ? { grokCliBinaryPath: ctx.grokCliBinaryPath } : {}),
      ...(spec.agent ? { agent: spec.agent } : {}),
      ...(spec.model ? { model: spec.model } : {}),
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
      ...(ctx.tools.length > 0 ? { tools: ctx.tools } : {}),
      // The submitter's policy; a worker has no approver, so require-approval is a deny (reported as an event).
      permissions: createPermissionGate({ policy: spec.policy ?? DEFAULT_POLICY }),
      callbacks: { onEvent },
      diagnosticsAsText: false,
      turnTimeoutMs: spec.turnTimeoutMs || 15 * 60_000,
      idleTimeoutMs: spec.idleTimeoutMs || 3 * 60_000,
    };
    session = spec.session ? (await openSession({ ...options, name: spec.session, waitMs: 60_000 })).session : await createSession(options);
    entry.session = session;
    if (session.state !== "ready") {
      await chain;
      const d = session.diagnostics[0];
      await end("failed", { code: d?.code ?? "ACP_SESSION_DEAD", message: d?.message ?? "the session did not start" }, { code: d?.code ?? "ACP_SESSION_DEAD" });
      return "failed";
    }
    if (await cancelRequested()) {
      await chain;
      await end("cancelled", { stop_reason: "cancelled" }, { stopReason: "cancelled", reason: "cancelled-before-dispatch" });
      return "cancelled";
    }
    if (ctx.isClosing()) {
      // Graceful stop: nothing was sent, so the job goes back to its queue for another worker.
      await chain;
      await transition(redis, id, { from: ["active"], to: "waiting", run, event: { reason: "handed-back", worker: ctx.workerId } });
      await job.moveToWait(token);
      throw new WaitingError();
    }
    const promptId = `fleet-${id}`;
    await chain;
    const fenced = await transition(redis, id, { from: ["active"], to: "dispatched", run, fields: { prompt_id: promptId, dispatched_at: Date.now() }, event: { worker: ctx.workerId, host: ctx.host, promptId } });
    if (!fenced.moved) {
      ctx.log(`job ${id}: not dispatched (it is ${fenced.current})`);
      return "skipped";
    }
    entry.turnRunning = true;
    const turn = session.prompt(spec.prompt, { promptId });
    if (entry.cancelled) void cancelTurn(entry);
    const result = await turn;
    entry.turnRunning = false;
    await chain;
    const status: JobStatus = result.stopReason === "cancelled" || entry.cancelled ? "cancelled" : result.diagnostic ? "failed" : "completed";
    const fields = { ...(result.stopReason ? { stop_reason: result.stopReason } : {}), ...(result.diagnostic ? { code: result.diagnostic.code, message: result.diagnostic.message } : {}) };
    await end(status, fields, { ...(result.stopReason ? { stopReason: result.stopReason } : {}), ...(result.diagnostic ? { code: result.diagnostic.code } : {}) }, run);
    ctx.log(`job ${id}: ${status}`);
    return status;
  } catch (error) {
    if (error instanceof WaitingError) throw error;
    await chain;
    // Before dispatch this ends the job failed; after it, the run token lets only this run settle it.
    const message = messageOf(error);
    const code = isSeatError(error) ? error.code : "ACP_PROMPT_FAILED";
    await end("failed", { code, message }, { code, message }).catch(() => undefined);
    await end("failed", { code, message }, { code, message }, run).catch(() => undefined);
    return "failed";
  } finally {
    clearInterval(heartbeat);
    ctx.running.delete(id);
    await session?.dispose().catch(() => undefined);
    await redis.del(jobKeys(id).alive).catch(() => undefined);
  }
}

/** Cancels a running turn now and again shortly after (a cancel that raced the prompt's start is not lost). */
export async function cancelTurn(entry: RunningJob): Promise<void> {
  entry.cancelled = true;
  for (const delayMs of [0, 150, 500]) {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    if (!entry.turnRunning) return;
    await entry.session?.cancel().catch(() => undefined);
  }
}
