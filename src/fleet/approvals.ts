/*
 * Fleet approvals: a fleet job's held approvals in Redis, listed and answered from any host.
 * Owns: the approvals hash of a job (`grok-seat:job:{id}:approvals`, approval id → record JSON), the index of
 *   jobs that hold one and of approval ids (which job holds an id), the answer script (compare-and-set on the
 *   approval's state, the job's status and the run token, all in one atomic step), the worker's side (publish
 *   an asked approval, settle a local outcome, poll for a remote answer) and the listing.
 * Does not own: holding the turn (approvals/queue.ts in the worker's process) or the job's lifecycle (state.ts,
 *   run-job.ts): a worker that dies while an approval is pending leaves a dispatched job, which the existing
 *   rules record `uncertain` and never re-send.
 * Invariant: an answer is accepted only while the approval is pending, its job is `dispatched` by the very run
 *   that asked, that run still beats, and the deadline is more than ANSWER_MARGIN_MS away (so the worker sees
 *   it before its own deadline denies); anything else is refused (EXPIRED / ALREADY_ANSWERED naming the first).
 *   Nothing in Redis can allow a call by itself: only the worker's queue applies an answer it read back. An answer
 *   carrying a digest lands only when it is the listed view's digest (else APPROVAL_TARGET_CHANGED, nothing
 *   written), and the worker checks it again against the call it really holds (a record changed in Redis is
 *   denied, never run). The view is stored as the queue made it: value-masked at its source, never by shape.
 */
import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { SeatError } from "../errors.js";
import type { PendingApproval } from "../acp/index.js";
import { APPROVAL_ANSWERED_CHANNEL, jobKeys } from "./keys.js";

/** Jobs that hold (or held) an approval, for listing across hosts. */
export const APPROVAL_JOBS = "grok-seat:approval-jobs";
/** Approval id → job id. */
export const APPROVAL_INDEX = "grok-seat:approval-index";

/** An answer must land this long before the deadline, so the worker can read it before denying (ms). */
export const ANSWER_MARGIN_MS = 1_000;

/** How often a worker with a pending approval reads its answers when no announcement came (ms). */
export const ANSWER_POLL_MS = 200;

/** A job's approvals hash key. */
export function approvalsKey(jobId: string): string {
  return `${jobKeys(jobId).state.replace(/:state$/, "")}:approvals`;
}

/** An approval as stored. */
export interface StoredApproval {
  view: PendingApproval;
  run: string;
  deadlineMs: number;
  state: "pending" | "answered" | "expired";
  decision?: "allow" | "deny";
  always?: boolean;
  by?: string;
  why?: string;
  /** The digest the accepted answer carried (the worker checks it against the call it holds). */
  digest?: string;
}

// KEYS: approvals, state, alive. ARGV: approval id, decision, always ("1"/"0"), by, now (ms), job id, this answer's
// token, digest ("" for none). Returns {outcome, record JSON}: outcome answered | missing | answered-before |
// expired | changed (a digest that is not the stored view's: nothing is written). An accepted answer
// is announced on APPROVAL_ANSWERED_CHANNEL in the same atomic step, so the worker reads it back at once. The
// same answer re-sent by the client after a lost reply (its token) is answered, not "answered before".
const ANSWER = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return {'missing', ''} end
local a = cjson.decode(raw)
if a.state == 'answered' and a.answerToken == ARGV[7] then return {'answered', raw} end
if a.state == 'answered' then return {'answered-before', raw} end
if a.state ~= 'pending' then return {'expired', raw} end
if ARGV[8] ~= '' and (type(a.view) ~= 'table' or a.view.digest ~= ARGV[8]) then return {'changed', raw} end
local status = redis.call('HGET', KEYS[2], 'status')
local run = redis.call('HGET', KEYS[2], 'run')
local alive = redis.call('GET', KEYS[3])
if status ~= 'dispatched' or run ~= a.run or alive ~= a.run or tonumber(ARGV[5]) > a.deadlineMs - ${ANSWER_MARGIN_MS} then
  return {'expired', raw}
end
a.state = 'answered'
a.decision = ARGV[2]
if ARGV[3] == '1' then a.always = true end
if ARGV[4] ~= '' then a.by = ARGV[4] end
a.answerToken = ARGV[7]
if ARGV[8] ~= '' then a.digest = ARGV[8] end
local out = cjson.encode(a)
redis.call('HSET', KEYS[1], ARGV[1], out)
redis.call('PUBLISH', '${APPROVAL_ANSWERED_CHANNEL}', ARGV[6])
return {'answered', out}
`;

// KEYS: approvals, state. ARGV: approval id, record JSON, run. Writes only while this run owns the job.
const PUBLISH = `
if redis.call('HGET', KEYS[2], 'run') ~= ARGV[3] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

// KEYS: approvals. ARGV: approval id, state, decision, why. Settles a still-pending record (the worker's outcome).
const SETTLE = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local a = cjson.decode(raw)
if a.state ~= 'pending' then return 0 end
a.state = ARGV[2]
a.decision = ARGV[3]
if ARGV[4] ~= '' then a.why = ARGV[4] end
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(a))
return 1
`;

/** Worker side: records an asked approval of job `jobId` for run `run` (only while that run owns the job). */
export async function publishApproval(
  redis: Redis,
  jobId: string,
  run: string,
  view: PendingApproval,
  retainSeconds: number,
): Promise<boolean> {
  // Stored as the queue made it (value-masked at its source, approvals/target.ts): shape masking here would show
  // another host a command that is not the one that runs.
  const record: StoredApproval = { view, run, deadlineMs: Date.parse(view.deadline), state: "pending" };
  const written = (await redis.eval(
    PUBLISH,
    2,
    approvalsKey(jobId),
    jobKeys(jobId).state,
    view.id,
    JSON.stringify(record),
    run,
  )) as number;
  if (written !== 1) return false;
  await redis
    .multi()
    .sadd(APPROVAL_JOBS, jobId)
    .hset(APPROVAL_INDEX, view.id, jobId)
    .expire(approvalsKey(jobId), retainSeconds)
    .exec();
  return true;
}

/** Worker side: records how an approval ended here (timeout, turn ended, or an answer applied) if still pending. */
export async function settleApproval(
  redis: Redis,
  jobId: string,
  id: string,
  outcome: { state: "answered" | "expired"; decision: "allow" | "deny"; why?: string },
): Promise<void> {
  await redis.eval(SETTLE, 1, approvalsKey(jobId), id, outcome.state, outcome.decision, outcome.why ?? "");
}

/** Worker side: the answers recorded for these pending approval ids (ids still pending are left out). */
export async function readAnswers(redis: Redis, jobId: string, ids: string[]): Promise<StoredApproval[]> {
  if (ids.length === 0) return [];
  const raws = await redis.hmget(approvalsKey(jobId), ...ids);
  return raws.flatMap((raw) => {
    if (raw === null) return [];
    const record = JSON.parse(raw) as StoredApproval;
    return record.state === "answered" ? [record] : [];
  });
}

/** The pending approvals of every fleet job whose asking run still beats. */
export async function listFleetApprovals(redis: Redis): Promise<PendingApproval[]> {
  const jobs = await redis.smembers(APPROVAL_JOBS);
  const out: PendingApproval[] = [];
  for (const jobId of jobs) {
    const keys = jobKeys(jobId);
    const [records, status, run, alive] = await Promise.all([
      redis.hvals(approvalsKey(jobId)),
      redis.hget(keys.state, "status"),
      redis.hget(keys.state, "run"),
      redis.get(keys.alive),
    ]);
    if (records.length === 0) {
      await redis.srem(APPROVAL_JOBS, jobId);
      continue;
    }
    for (const raw of records) {
      const record = JSON.parse(raw) as StoredApproval;
      if (record.state === "pending" && status === "dispatched" && run === record.run && alive === record.run)
        out.push(record.view);
    }
  }
  return out.sort((a, b) => a.askedAt.localeCompare(b.askedAt));
}

/**
 * Answers a fleet approval atomically (first answer wins). Throws APPROVAL_NOT_FOUND, APPROVAL_ALREADY_ANSWERED
 * naming the first answer, or APPROVAL_EXPIRED (its turn ended, its worker stopped beating, or its deadline is
 * too near for the worker to act on the answer).
 */
export async function answerFleetApproval(
  redis: Redis,
  id: string,
  answer: { decision: "allow" | "deny"; always?: boolean; by?: string; digest?: string },
): Promise<{ id: string; decision: "allow" | "deny" }> {
  const jobId = await redis.hget(APPROVAL_INDEX, id);
  if (!jobId)
    throw new SeatError(
      "APPROVAL_NOT_FOUND",
      `No fleet job holds approval ${id}. List them with \`seat approvals --redis URL\`.`,
      { context: { id } },
    );
  const keys = jobKeys(jobId);
  const [outcome, raw] = (await redis.eval(
    ANSWER,
    3,
    approvalsKey(jobId),
    keys.state,
    keys.alive,
    id,
    answer.decision,
    answer.always === true && answer.decision === "allow" ? "1" : "0",
    answer.by ?? "",
    String(Date.now()),
    jobId,
    randomUUID(),
    answer.digest ?? "",
  )) as [string, string];
  if (outcome === "answered") return { id, decision: answer.decision };
  // The index says a job held it: its records are gone with the job's retention, so the answer is late, not lost.
  if (outcome === "missing")
    throw new SeatError(
      "APPROVAL_EXPIRED",
      `Approval ${id} (fleet job ${jobId}) is no longer pending: its job ended and its records were dropped.`,
      { context: { id, jobId } },
    );
  const record = JSON.parse(raw) as StoredApproval;
  if (outcome === "changed") {
    throw new SeatError(
      "APPROVAL_TARGET_CHANGED",
      `Approval ${id} (fleet job ${jobId}) holds a call whose exact target has digest ${record.view?.digest ?? "(none)"}, not ${answer.digest}: what you saw is not what would run. Nothing was answered; list it again with \`seat approvals --full ${id} --redis URL\`.`,
      { context: { id, jobId, digest: record.view?.digest, given: answer.digest } },
    );
  }
  if (outcome === "answered-before") {
    throw new SeatError(
      "APPROVAL_ALREADY_ANSWERED",
      `Approval ${id} (fleet job ${jobId}) was already answered: ${record.decision}${record.by ? ` by ${record.by}` : ""}. The first answer stands.`,
      { context: { id, jobId, decision: record.decision, ...(record.by ? { by: record.by } : {}) } },
    );
  }
  const why =
    record.state === "expired"
      ? record.why === "timeout"
        ? "its deadline passed and it was denied (APPROVAL_TIMEOUT)"
        : "its turn ended before an answer; it was denied"
      : "its worker no longer runs the turn, or its deadline is too near to act on an answer";
  throw new SeatError("APPROVAL_EXPIRED", `Approval ${id} (fleet job ${jobId}) is no longer pending: ${why}.`, {
    context: { id, jobId },
  });
}
