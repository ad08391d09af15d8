/*
 * grok-seat/testing front door: the offline rig for tests of code that drives grok — a scripted loopback
 * model, a throwaway HOME/GROK_HOME pointing grok at it, and the loopback-only network namespace.
 * Owns: the list of names published as the `grok-seat/testing` subpath export (by hand, no `export *`).
 * Does not own: the seats themselves (the main front door, src/index.ts).
 * Invariant: test rigs live here, never on the main front door; test/integration/package/exports.test.ts pins both lists.
 */
export { startMockModel, parseScript, offlineWiring } from "./mock-model/index.js";
export type {
  MockModelServer,
  MockModelOptions,
  LoggedRequest,
  MockScript,
  MockRule,
  MockReply,
  MockToolCall,
  ModelDialect,
  OfflineWiring,
} from "./mock-model/index.js";
export { createSandbox, sandboxConfigToml, canUnshareNetwork, runInLoopbackNamespace } from "./sandbox/index.js";
export type { Sandbox, SandboxOptions } from "./sandbox/index.js";
export { startRedisServer } from "./fleet/index.js";
export type { RedisServer, RedisServerOptions } from "./fleet/index.js";
export { startSentinelSet } from "./fleet/index.js";
export type { SentinelSetRig, SentinelSetOptions } from "./fleet/index.js";
