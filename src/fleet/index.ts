/*
 * Fleet front door: seat fleets on BullMQ and Redis — submit jobs, run workers, follow events.
 * Owns: the public names of fleet/ (listed by hand). Sits above runtime/ and sessions/, never below them.
 */
export { connectFleet, enqueue } from "./client.js";
export type { FleetClient, FleetClientOptions, JobRequest } from "./client.js";
export type { JobHandle, JobResult, EventsOptions, CancelOutcome } from "./handle.js";
export { startWorker } from "./worker.js";
export type { FleetWorker, WorkerOptions } from "./worker.js";
export type { JobStatus, JobRecord } from "./state.js";
export type { FleetEvent, JobEvent, CursorEvent } from "./events.js";
export { START as EVENTS_START, isCursor } from "./events.js";
export { parseRedisUrl, REDIS_PASSWORD_ENV } from "../redis/index.js";
export { loadToolModules } from "./tool-modules.js";
export { listFleetApprovals, answerFleetApproval } from "./approvals.js";
export { connect as connectRedis, redisError } from "../redis/index.js";
export { checkTarget as checkRedisTarget } from "../redis/index.js";
export { startRedisServer } from "./redis-server.js";
export type { RedisServer, RedisServerOptions } from "./redis-server.js";
export { startSentinelSet } from "./sentinel-rig.js";
export type { SentinelSetRig, SentinelSetOptions } from "./sentinel-rig.js";
export { openFleetQueues } from "./queues.js";
export type { FleetQueues } from "./queues.js";
export { parseFleetBudget, reserveBudget, settleBudget, budgetKey } from "./budget.js";
export type { FleetBudget, Reservation } from "./budget.js";
export { ACL_ROLES, aclRules, aclSetuserLine, aclUser } from "./acl.js";
export type { AclRole } from "./acl.js";
export {
  BOARD_LINKS_TTL_MS,
  fleetApprovalLinks,
  fleetLinkKey,
  publishBoardLinks,
  readBoardLinks,
  verifyBoardLinksRecord,
  withdrawBoardLinks,
} from "./approval-links.js";
export { fleetKey } from "./job-seal.js";
