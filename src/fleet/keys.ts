/*
 * Fleet keys: every Redis key and queue name the fleet uses, in one place.
 * Owns: the naming scheme (versioned `grok-seat.fleet.v1` by the key prefix), BullMQ's prefix and queue names.
 * Does not own: what is stored under them (state.ts, events.ts).
 * Invariant: every key of one job carries the job id as a Redis Cluster hash tag (`{id}`), so a MULTI or a
 *   script over one job's keys stays in one slot; BullMQ's own keys share the `{grok-seat}` tag (one slot per
 *   queue set, which is what BullMQ's Lua scripts need on Cluster). Spec: docs/fleet.md#keys.
 */

/** BullMQ's key prefix: a hash tag, so BullMQ's multi-key scripts work on Redis Cluster. */
export const BULL_PREFIX = "{grok-seat}";

/** The shared queue every worker takes headless jobs from. */
export const SHARED_QUEUE = "jobs";

/** A host's own queue (jobs bound to files on that host: a named session it ran first). */
export function hostQueue(host: string): string {
  return `host-${host}`;
}

/** Redis keys of one job. */
export function jobKeys(id: string): { state: string; events: string; cancel: string; alive: string } {
  const base = `grok-seat:job:{${id}}`;
  return { state: `${base}:state`, events: `${base}:events`, cancel: `${base}:cancel`, alive: `${base}:alive` };
}

/** Sorted set of job ids by submit time (for `seat jobs list`). */
export const JOBS_INDEX = "grok-seat:jobs";

/** Pub/sub channel on which cancels are announced (the message is the job id). */
export const CANCEL_CHANNEL = "grok-seat:cancel";
/** Where a `seat board --redis` serving the fleet's approval links leaves its address (fleet/approval-links.ts). */
export const BOARD_LINKS_KEY = "grok-seat:board-links";

/** Pub/sub channel announcing that one of a job's approvals was answered (message: the job id). */
export const APPROVAL_ANSWERED_CHANNEL = "grok-seat:approval-answered";

/** Which host owns a named session (its journal and agent files live there). */
export function sessionHostKey(scope: string, name: string): string {
  return `grok-seat:session:${scope}:${name}`;
}

/** A job id we accept: what enqueue makes (uuid) or a caller's own id of safe characters. */
export function isJobId(id: string): boolean {
  return /^[A-Za-z0-9._-]{1,128}$/.test(id);
}

/** The claim that one worker tells `target` of a job's event (docs/fleet.md#notifications): SET NX PX. */
export function notifyClaimKey(id: string, eventId: string, target: string): string {
  return `grok-seat:job:{${id}}:notified:${eventId}:${target}`;
}
