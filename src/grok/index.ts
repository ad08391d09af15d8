/*
 * grok/ front door: locate, probe and launch xAI's grok binary and own its child processes.
 * Owns: the list of names siblings may import from grok/ (by hand, no `export *`).
 * Does not own: ACP (acp/), sessions (runtime/), the visible seat (seat/, leader/).
 * Invariant: adding a name here is an API decision.
 */
export { resolveGrokBinary, ensureGrokBinary, defaultGrokNpmPackage } from "./binary.js";
export type { GrokBinary, GrokBinarySource, ResolveGrokBinaryOptions } from "./binary.js";
export { installBrotliBinary, PINNED_GROK_SHA256, PINNED_GROK_VERSION } from "./npm-binary.js";
export type { InstallBrotliOptions, InstallOutcome } from "./npm-binary.js";
export { parseGrokVersion, compareVersions, probeGrok } from "./version.js";
export type { GrokVersion, GrokProbe, ProbeGrokOptions } from "./version.js";
export {
  parseGrokModels,
  listGrokModels,
  toProviderModelIds,
  normalizeModelSelection,
  laneMarker,
  GROK_PROVIDER,
} from "./models.js";
export type { GrokAuth, GrokModelEntry, GrokModels, ListGrokModelsOptions } from "./models.js";
export {
  buildAgentArgv,
  buildAgentEnv,
  isAllowedAgentEnvName,
  AGENT_ENV_ALLOW_LIST,
  AGENT_ENV_ALLOW_PREFIXES,
  AGENT_ENV_FORCED,
} from "./launch.js";
export type { AgentArgvOptions } from "./launch.js";
export { spawnAgent } from "./process.js";
export type { SpawnAgentOptions, AgentProcess, AgentExit } from "./process.js";
export { killProcessTree, snapshotTree, readProcStat, isAlive, hasProcFs } from "./process-tree.js";
export type { ProcessRef, KillTreeOptions } from "./process-tree.js";
export { runGrokCommand } from "./grok-command.js";
export type { GrokCommandResult, GrokCommandOptions } from "./grok-command.js";
export {
  hasAskEveryCommandRule,
  shellGateReport,
  ASK_EVERY_COMMAND_TOML,
  ASKED_SHELL_EXAMPLES,
  UNASKED_FACTS_VERSION,
  UNASKED_SHELL_EXAMPLES,
} from "./unasked.js";
export type { ShellGateReport } from "./unasked.js";
export { grokModelRoute, XAI_API_BASE_URL } from "./model-route.js";
export type { ModelRoute } from "./model-route.js";
