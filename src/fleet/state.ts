/*
 * Job state: the durable record of where a fleet job is — waiting → active → dispatched → completed / failed /
 *   cancelled / uncertain — and the one guarded transition that moves it.
 * Owns: the state hash (`grok-seat:job:{id}:state`), the transition script (compare status, write fields,
 *   append the transition to the job's event stream, set expiry once the job has ended — one atomic step),
 *   the heartbeat key (its value is the run token; beat and drop are compare-and-set on that token), the
 *   re-judging of an `uncertain` job whose run still beats, and how a reader derives `uncertain` from a
 *   dispatched job with no heartbeat.
 * Does not own: BullMQ's own job state (queued, locked, stalled) or the stream reading (events.ts).
 * Invariant: `dispatched` is written (and acknowledged by Redis) before a prompt is sent; a job that is
 *   dispatched is never dispatched again — only a transition out of waiting/active can reach `dispatched`.
 *   A late result from the run that owned a job may still settle an `uncertain` job (late evidence), no one else.
 */
import type { Redis } from "ioredis";
import { redact } from "../internal/redact.js";
import { jobKeys } from "./keys.js";
import { readUsage, type Usage } from "../acp/index.js";
import type { SideCallUsage } from "../metering/index.js";

/** Where a fleet job is. */
export type JobStatus = "waiting" | "active" | "dispatched" | "completed" | "failed" | "cancelled" | "uncertain";

/** Statuses after which nothing more happens (the keys then expire). */
export const TERMINAL: readonly JobStatus[] = ["completed", "failed", "cancelled", "uncertain"];

/** How long a heartbeat lives; a dispatched job without one is in doubt. */
export const HEARTBEAT_TTL_MS = 10_000;

/** How often a worker renews the heartbeat of a job it runs. */
export const HEARTBEAT_EVERY_MS = 2_000;

/** Stream length kept per job (approximate trim, MAXLEN ~). */
export const EVENTS_MAX_LEN = 10_000;

/** A job's record as stored (all strings in Redis, typed here). */
export interface JobRecord {
  id: string;
  status: JobStatus;
  /** True when the reader derived `uncertain` (dispatched, no heartbeat) before anyone recorded it. */
  derived?: boolean;
  prompt?: string;
  agent?: string;
  worker?: string;
  host?: string;
  queue?: string;
  session?: string;
  promptId?: string;
  stopReason?: string;
  code?: string;
  message?: string;
  submittedAt?: number;
  dispatchedAt?: number;
  endedAt?: number;
  /** The worker that acknowledged a cancel (it acted on it), and when (ms). */
  cancelAckedBy?: string;
  cancelAckedAt?: number;
  /** The running session's last attention state (starting, working, waiting, …), when its worker reported one. */
  attentionState?: string;
  /** When that state began (ISO 8601). */
  attentionSince?: string;
  /** With `waiting`: what it waits on (approval, question). */
  attentionWaitingOn?: string;
  /** A job with a repo: the branch it pushed (seat/<job id>), its head commit and a diffstat against the base. */
  branch?: string;
  commit?: string;
  diffstat?: string;
  /** The turn's usage as the agent reported it (absent: unknown, never zero). */
  usage?: Usage;
  /** The model calls of the turn its agent did not report (grok's turn summary, titles): metered or estimated. */
  sideCalls?: SideCallUsage[];
  /** Who submitted the job, and the sha256 of the spec they sealed (the only spec a worker runs: job-seal.ts). */
  submittedBy?: string;
  specDigest?: string;
  /** True when the submitter signed the spec with the fleet key. */
  signed?: boolean;
}

// KEYS: state, events, alive. ARGV: allowed statuses (JSON list; "" = no record yet), new status, fields (JSON
// object), event (JSON), stream max length, expiry seconds (0 = none), run token that must match ("" = any),
// "1" when the heartbeat must be gone, events to append before the job event (JSON list of JSON strings).
const TRANSITION = `
local cur = redis.call('HGET', KEYS[1], 'status') or ''
-- A run's own transition replayed (ioredis re-sends a command whose reply a dropped connection lost): it has
-- landed already, so it reports moved and changes nothing.
-- Only a transition this run itself made counts as its replay (moved_by): an 'uncertain' a reader recorded
-- (heartbeat-lost) is not the run's own, so the run's end still writes its reason over it.
if ARGV[7] ~= '' and cur == ARGV[2] and redis.call('HGET', KEYS[1], 'run') == ARGV[7] and redis.call('HGET', KEYS[1], 'moved_by') == ARGV[7] then return 'OK' end
local ok = false
for _, s in ipairs(cjson.decode(ARGV[1])) do if s == cur then ok = true end end
if not ok then return cur end
if ARGV[8] == '1' and redis.call('EXISTS', KEYS[3]) == 1 then return cur end
if ARGV[7] ~= '' and redis.call('HGET', KEYS[1], 'run') ~= ARGV[7] then return cur end
local fields = cjson.decode(ARGV[3])
local flat = {'status', ARGV[2], 'moved_by', ARGV[7]}
for k, v in pairs(fields) do table.insert(flat, k); table.insert(flat, tostring(v)) end
redis.call('HSET', KEYS[1], unpack(flat))
for _, e in ipairs(cjson.decode(ARGV[9])) do redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'e', e) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'e', ARGV[4])
if ARGV[6] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[6])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
return 'OK'
`;

/** One guarded transition. */
export interface Transition {
  from: readonly (JobStatus | "")[];
  to: JobStatus;
  fields?: Record<string, string | number>;
  /** Extra fields of the `job` event appended to the stream. */
  event?: Record<string, unknown>;
  /** Only when the record's run token is this one. */
  run?: string;
  /** Seconds the keys live once the job has ended. */
  retainSeconds?: number;
  /** Only when the job's heartbeat key is gone (its worker stopped beating). */
  heartbeatGone?: boolean;
  /**
   * Events appended just before the `job` event, in the same atomic step, and only when the job moves: a turn's
   * `done` goes here, so the stream never says done without the job's end being recorded (or the reverse).
   */
  before?: readonly object[];
}

/**
 * Moves job `id` to `t.to` if its status is one of `t.from`; appends `{type:"job", status}` to its stream in the
 * same atomic step. Resolves true when it moved, false (with the current status) when it did not. With `t.run`,
 * a job already at `t.to` under that run counts as moved (the run's own transition, replayed): idempotent.
 */
export async function transition(
  redis: Redis,
  id: string,
  t: Transition,
): Promise<{ moved: boolean; current: JobStatus | "" }> {
  return transitionAnswer(t, (await redis.eval(...transitionCall(id, t))) as string);
}

/** The EVAL arguments of transition(): for a MULTI that must write a transition together with other writes. */
export function transitionCall(id: string, t: Transition): [string, number, ...string[]] {
  const keys = jobKeys(id);
  const now = Date.now();
  // Redacted like every event: a job's message (a diagnostic's text) is read back by `seat jobs show`.
  const fields = redact({
    ...(t.fields ?? {}),
    updated_at: now,
    ...(TERMINAL.includes(t.to) ? { ended_at: now } : {}),
  });
  const event = JSON.stringify(redact({ type: "job", id, status: t.to, atMs: now, ...(t.event ?? {}) }));
  const expire = TERMINAL.includes(t.to) ? String(t.retainSeconds ?? 86_400) : "0";
  const before = JSON.stringify((t.before ?? []).map((e) => JSON.stringify(redact(e))));
  return [
    TRANSITION,
    3,
    keys.state,
    keys.events,
    keys.alive,
    JSON.stringify(t.from),
    t.to,
    JSON.stringify(fields),
    event,
    String(EVENTS_MAX_LEN),
    expire,
    t.run ?? "",
    t.heartbeatGone ? "1" : "0",
    before,
  ];
}

/** What a transition's script answered, as transition() resolves it. */
export function transitionAnswer(t: Transition, answer: string): { moved: boolean; current: JobStatus | "" } {
  return answer === "OK" ? { moved: true, current: t.to } : { moved: false, current: answer as JobStatus | "" };
}

function parseUsage(text: string): Usage | undefined {
  try {
    return readUsage(JSON.parse(text));
  } catch {
    return undefined; // a record written by hand; its usage is unknown
  }
}

function parseSideCalls(text: string): SideCallUsage[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    return Array.isArray(parsed) ? (parsed as SideCallUsage[]) : [];
  } catch {
    return []; // a record written by hand: no side calls known
  }
}

/** Reads job `id`'s record, deriving `uncertain` for a dispatched job whose worker stopped its heartbeat. */
export async function readJob(redis: Redis, id: string): Promise<JobRecord | undefined> {
  const keys = jobKeys(id);
  const [hash, alive] = await Promise.all([redis.hgetall(keys.state), redis.get(keys.alive)]);
  if (!hash.status) return undefined;
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const record: JobRecord = {
    id,
    status: hash.status as JobStatus,
    ...(hash.prompt !== undefined ? { prompt: hash.prompt } : {}),
    ...(hash.agent ? { agent: hash.agent } : {}),
    ...(hash.worker ? { worker: hash.worker } : {}),
    ...(hash.host ? { host: hash.host } : {}),
    ...(hash.queue ? { queue: hash.queue } : {}),
    ...(hash.session ? { session: hash.session } : {}),
    ...(hash.prompt_id ? { promptId: hash.prompt_id } : {}),
    ...(hash.stop_reason ? { stopReason: hash.stop_reason } : {}),
    ...(hash.code ? { code: hash.code } : {}),
    ...(hash.message ? { message: hash.message } : {}),
    ...(hash.submitted_at ? { submittedAt: num(hash.submitted_at)! } : {}),
    ...(hash.dispatched_at ? { dispatchedAt: num(hash.dispatched_at)! } : {}),
    ...(hash.ended_at ? { endedAt: num(hash.ended_at)! } : {}),
    ...(hash.cancel_acked_by ? { cancelAckedBy: hash.cancel_acked_by } : {}),
    ...(hash.cancel_acked_at ? { cancelAckedAt: num(hash.cancel_acked_at)! } : {}),
    ...(hash.attention_state ? { attentionState: hash.attention_state } : {}),
    ...(hash.attention_since ? { attentionSince: hash.attention_since } : {}),
    ...(hash.attention_waiting_on ? { attentionWaitingOn: hash.attention_waiting_on } : {}),
    ...(hash.branch ? { branch: hash.branch } : {}),
    ...(hash.commit ? { commit: hash.commit } : {}),
    ...(hash.diffstat !== undefined ? { diffstat: hash.diffstat } : {}),
    ...(hash.usage ? { usage: parseUsage(hash.usage) } : {}),
    ...(hash.side_calls ? { sideCalls: parseSideCalls(hash.side_calls) } : {}),
    ...(hash.submitted_by ? { submittedBy: hash.submitted_by } : {}),
    ...(hash.spec_digest ? { specDigest: hash.spec_digest } : {}),
    ...(hash.spec_digest ? { signed: Boolean(hash.spec_sig) } : {}),
  };
  const beating = alive !== null && hash.run !== undefined && alive === hash.run;
  if (record.status === "dispatched" && !beating) return { ...record, status: "uncertain", derived: true };
  // Re-judged: a run recorded uncertain that still beats is running its turn (its next beat records it so).
  if (record.status === "uncertain" && beating) {
    const { code: _c, message: _m, endedAt: _e, ...running } = record;
    return { ...running, status: "dispatched" };
  }
  return record;
}

/**
 * Records `uncertain` for a dispatched job whose heartbeat is gone (any reader may: the transition is guarded,
 * so a job that meanwhile ended or still beats is left alone). Resolves true when this call recorded it.
 */
export async function settleDerivedUncertain(
  redis: Redis,
  id: string,
  by: string,
  retainSeconds?: number,
): Promise<boolean> {
  const moved = await transition(redis, id, {
    from: ["dispatched"],
    to: "uncertain",
    fields: {
      code: "FLEET_JOB_UNCERTAIN",
      message: `the worker stopped its heartbeat after dispatch (noticed by ${by}); the prompt may have reached the model and is not re-sent`,
      uncertain_reason: "heartbeat-lost",
    },
    event: { code: "FLEET_JOB_UNCERTAIN", reason: "heartbeat-lost", noticedBy: by },
    heartbeatGone: true,
    ...(retainSeconds ? { retainSeconds } : {}),
  });
  return moved.moved;
}

// KEYS: state, alive, events, cancel. ARGV: run token, heartbeat ttl (ms), event (JSON, for a re-judged job),
// stream max length. Returns {owned, cancel requested, re-judged}. A run beats only while the record names it
// (or while the record is gone entirely: then its beat tells watchers a turn still runs).
const BEAT = `
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- The record vanished (Redis lost it): still say this run is alive, so a watcher waits for its end.
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
  return {0, redis.call('EXISTS', KEYS[4]), 0}
end
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return {0, redis.call('EXISTS', KEYS[4]), 0} end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2])
local rejudged = 0
if redis.call('HGET', KEYS[1], 'status') == 'uncertain' then
  redis.call('HSET', KEYS[1], 'status', 'dispatched', 'moved_by', ARGV[1])
  redis.call('HDEL', KEYS[1], 'code', 'message', 'ended_at', 'uncertain_reason')
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[3])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'e', ARGV[3])
  rejudged = 1
end
return {1, redis.call('EXISTS', KEYS[4]), rejudged}
`;

// KEYS: alive. ARGV: run token.
const DROP = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

// KEYS: state. ARGV: run token, then field/value pairs.
const SET_IF_RUN = `
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`;

/** What one heartbeat found. */
export interface Beat {
  /** The record still names this run (false: another run took the job, or the record is gone). */
  owned: boolean;
  /** The job's cancel key is set. */
  cancelRequested: boolean;
  /** The job had been recorded uncertain while this run was alive; it is `dispatched` again. */
  rejudged: boolean;
}

/**
 * Renews job `id`'s heartbeat for run `run` — only while the record names that run (compare-and-set, one
 * script) — and reports whether a cancel is requested. A job recorded `uncertain` while this run was in fact
 * alive goes back to `dispatched` (with a `{"type":"job","status":"dispatched","reason":"rejudged"}` event).
 */
export async function beat(redis: Redis, id: string, run: string, by: string): Promise<Beat> {
  const keys = jobKeys(id);
  const event = JSON.stringify({
    type: "job",
    id,
    status: "dispatched",
    atMs: Date.now(),
    reason: "rejudged",
    worker: by,
  });
  const [owned, cancel, rejudged] = (await redis.eval(
    BEAT,
    4,
    keys.state,
    keys.alive,
    keys.events,
    keys.cancel,
    run,
    String(HEARTBEAT_TTL_MS),
    event,
    String(EVENTS_MAX_LEN),
  )) as number[];
  return { owned: owned === 1, cancelRequested: cancel === 1, rejudged: rejudged === 1 };
}

/** Deletes job `id`'s heartbeat only when it is run `run`'s (a stale run never removes another run's beat). */
export async function dropHeartbeat(redis: Redis, id: string, run: string): Promise<boolean> {
  return ((await redis.eval(DROP, 1, jobKeys(id).alive, run)) as number) === 1;
}

/** Writes `fields` on job `id`'s record only while the record names run `run`. */
export async function setIfRun(
  redis: Redis,
  id: string,
  run: string,
  fields: Record<string, string | number>,
): Promise<boolean> {
  const flat = Object.entries(fields).flatMap(([k, v]) => [k, String(v)]);
  return ((await redis.eval(SET_IF_RUN, 1, jobKeys(id).state, run, ...flat)) as number) === 1;
}

// KEYS: state. ARGV: run token, now (ms). The mark of run ARGV[1] is on this server: write again (so the writing
// connection's WAIT covers it) and say so.
const TOUCH_MARK = `
local status = redis.call('HGET', KEYS[1], 'status')
if redis.call('HGET', KEYS[1], 'run') ~= ARGV[1] or (status ~= 'dispatched' and status ~= 'uncertain') then return 0 end
redis.call('HSET', KEYS[1], 'mark_checked_at', ARGV[2])
return 1
`;

/**
 * True when job `id`'s record on this server holds run `run`'s dispatch mark (dispatched, or uncertain since);
 * it then writes `mark_checked_at`, so a WAIT on this same connection covers the mark (replication is in order).
 */
export async function touchMark(redis: Redis, id: string, run: string): Promise<boolean> {
  return ((await redis.eval(TOUCH_MARK, 1, jobKeys(id).state, run, String(Date.now()))) as number) === 1;
}

// KEYS: state. ARGV: field, now (ms).
const TOUCH_RECORD = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

/** True when job `id`'s record exists on this server; it then writes `field` (so a WAIT on this connection covers it). */
export async function touchRecord(redis: Redis, id: string, field: string): Promise<boolean> {
  return ((await redis.eval(TOUCH_RECORD, 1, jobKeys(id).state, field, String(Date.now()))) as number) === 1;
}

/** True when job `id`'s heartbeat key exists (some run of it is alive). */
export async function isBeating(redis: Redis, id: string): Promise<boolean> {
  return (await redis.exists(jobKeys(id).alive)) === 1;
}
