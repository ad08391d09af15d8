/*
 * Health front door: following grok's own log while a turn runs (retries, model-catalogue failures,
 * fail-fast). See docs/health.md.
 */
export { followLog } from "./follower.js";
export type { FollowerStats, LogFollower, LogFollowerOptions } from "./follower.js";
export { parseLogLine, readHealthSignal, summarizeReason, cleanReason, GROK_LOG_MSG } from "./log-line.js";
export type { HealthScope, HealthSignal, LogLine } from "./log-line.js";
export {
  startTurnHealth,
  grokLogPath,
  healthEvent,
  unreachableDiagnostic,
  DEFAULT_FAIL_FAST_RETRIES,
} from "./turn-health.js";
export type { TurnHealth, TurnHealthOptions, TurnHealthStats } from "./turn-health.js";
