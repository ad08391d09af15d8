/*
 * Approvals API: listApprovals() and answerApproval() — every held approval this user can answer.
 * Owns: combining this process's queues (approvals/local.ts) with the other live runs of this user (remote.ts).
 * Does not own: holding (approvals/queue.ts), the socket (control/), Redis (fleet/approvals.ts, loaded only when `redis`
 *   is given: imported on use, so listing local approvals never loads BullMQ).
 * Invariant: an answer reaches at most the one run that holds the id; that run's queue decides first-wins, so
 *   a second answer from anywhere is told APPROVAL_ALREADY_ANSWERED naming the first.
 */
import { SeatError, isSeatError } from "../errors.js";
import type { PendingApproval } from "../acp/index.js";
import { snapshotIdentitySource } from "../identity/index.js";
import {
  assertApprovalId,
  parseAnswer,
  isLocalApproval,
  processApprovals,
  readApprovalRecord,
} from "../approvals/index.js";
import type { ApprovalAnswer } from "../approvals/index.js";
import { answerRemote, lastListedRun, remoteRuns } from "./remote.js";
import { processAlive } from "../internal/process-alive.js";

/** Where to look: this machine's runs, plus the fleet's jobs when `redis` is given. */
export interface ApprovalsOptions {
  /** A fleet's Redis URL (as `seat worker --redis`): its jobs' held approvals are listed and answered too. */
  redis?: string;
  /** Environment whose GROK_SEAT_HOME / HOME locates the control sockets. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

/** Runs `use` on a connection to the fleet's Redis (closed after); failures are FLEET_REDIS_UNAVAILABLE. */
async function withFleet<T>(
  url: string,
  env: NodeJS.ProcessEnv | undefined,
  use: (fleet: typeof import("../fleet/index.js"), redis: import("ioredis").Redis) => Promise<T>,
): Promise<T> {
  const fleet = await import("../fleet/index.js");
  const target = fleet.parseRedisUrl(url, env ?? process.env);
  await fleet.checkRedisTarget(target);
  const redis = fleet.connectRedis(target, { name: "seat-approvals" });
  try {
    return await use(fleet, redis);
  } catch (error) {
    throw isSeatError(error) ? error : fleet.redisError(target, error);
  } finally {
    redis.disconnect();
  }
}

/** Every pending approval of this user on this machine: this process's sessions, then the other live runs. */
export async function listApprovals(options?: ApprovalsOptions): Promise<PendingApproval[]> {
  // A listing: each run's pid is proven against one snapshot of the fd tables (a pid holding many sockets is read once).
  const remote = await remoteRuns({ ...(options?.env ? { env: options.env } : {}), source: snapshotIdentitySource() });
  const fleet =
    options?.redis !== undefined
      ? await withFleet(options.redis, options.env, (f, redis) => f.listFleetApprovals(redis))
      : [];
  return [...processApprovals.list(), ...remote.flatMap((r) => r.approvals), ...fleet];
}

/**
 * Answers one pending approval wherever it is held. Throws APPROVAL_ANSWER_INVALID (malformed), APPROVAL_NOT_FOUND,
 * APPROVAL_ALREADY_ANSWERED (naming the first answer) or APPROVAL_EXPIRED.
 */
export async function answerApproval(
  id: string,
  answer: ApprovalAnswer,
  options?: ApprovalsOptions,
): Promise<{ id: string; decision: "allow" | "deny" }> {
  assertApprovalId(id);
  const checked = parseAnswer(answer);
  if (isLocalApproval(id)) return processApprovals.answer(id, checked);
  // Listed here moments ago by a proven run: answer it there without listing every run again. A socket only our
  // uid can reach, and ids are random: any other holder refuses with NOT_FOUND, and then every run is asked.
  const listed = lastListedRun(id);
  if (listed) {
    try {
      return await answerRemote(listed, id, checked);
    } catch (error) {
      if (isSeatError(error) && error.code !== "APPROVAL_NOT_FOUND") throw error;
    }
  }
  const runs = await remoteRuns(options?.env ? { env: options.env } : {});
  // The run listing it pending first; else every run, since a settled id is no longer listed but still known.
  const holder = runs.find((r) => r.approvals.some((a) => a.id === id));
  const ordered = holder ? [holder] : runs;
  for (const run of ordered) {
    try {
      return await answerRemote(run, id, checked);
    } catch (error) {
      if (!isSeatError(error)) continue;
      if (error.code !== "APPROVAL_NOT_FOUND") throw error;
    }
  }
  // No live run holds it: a run that is gone may have left its record (approvals/record.ts), so a late answer
  // hears what became of the approval rather than that it never existed.
  const late = lateRefusal(id, options?.env);
  if (late) throw late;
  if (options?.redis !== undefined)
    return withFleet(options.redis, options.env, (f, redis) => f.answerFleetApproval(redis, id, checked));
  throw new SeatError(
    "APPROVAL_NOT_FOUND",
    `No pending approval has id ${id} in this user's live runs. List them with \`seat approvals\`.`,
    { context: { id, runs: runs.length } },
  );
}

/** The refusal a record of a run that no longer answers for `id` calls for, if any. */
function lateRefusal(id: string, env: NodeJS.ProcessEnv | undefined): SeatError | undefined {
  const record = readApprovalRecord(id, env ?? process.env);
  if (!record) return undefined;
  if (record.state === "answered") {
    return new SeatError(
      "APPROVAL_ALREADY_ANSWERED",
      `Approval ${id} was already answered: ${record.decision ?? "deny"}${record.by ? ` by ${record.by}` : ""}. The first answer stands.`,
      { context: { id, decision: record.decision ?? "deny", ...(record.by ? { by: record.by } : {}) } },
    );
  }
  if (record.state === "expired") {
    const why =
      record.why === "timeout"
        ? "its deadline passed and it was denied (APPROVAL_TIMEOUT)"
        : "its turn ended before an answer; it was denied";
    return new SeatError("APPROVAL_EXPIRED", `Approval ${id} is no longer pending: ${why}.`, {
      context: { id, why: record.why ?? "turn-ended" },
    });
  }
  // Pending when its run last wrote: the run is gone (killed before it could settle it), so the call was never run.
  if (record.pid !== process.pid && !processAlive(record.pid)) {
    return new SeatError(
      "APPROVAL_EXPIRED",
      `Approval ${id} is no longer pending: the run that held it (pid ${record.pid}) ended before an answer.`,
      { context: { id, why: "run-ended", pid: record.pid } },
    );
  }
  if (Date.parse(record.deadline) <= Date.now()) {
    return new SeatError(
      "APPROVAL_EXPIRED",
      `Approval ${id} is no longer pending: its deadline (${record.deadline}) passed and it was denied (APPROVAL_TIMEOUT).`,
      { context: { id, why: "timeout" } },
    );
  }
  return undefined;
}
