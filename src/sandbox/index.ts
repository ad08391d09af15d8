/*
 * Sandbox front door: hermetic homes and the loopback-only namespace for tests and the demo.
 */
export { createSandbox, sandboxConfigToml } from "./home.js";
export type { Sandbox, SandboxOptions } from "./home.js";
export { isInLoopbackNamespace, canUnshareNetwork, runInLoopbackNamespace } from "./netns.js";
