/*
 * Tools front door: host tools served to grok as an MCP server, and operator MCP servers in wire format.
 * Owns: the public names of tools/ (listed by hand; adding one is an API decision).
 * Does not own: the MCP server process entry (mcp-server.ts is a script, never imported).
 */
export { projectSchema } from "./projection.js";
export type { JsonSchema, ProjectedSchema, ProjectionMode } from "./projection.js";
export { compileValidator, describeIssues } from "./validation.js";
export type { ArgumentIssue, ArgumentValidator, ValidationResult } from "./validation.js";
export {
  buildToolRegistry,
  createToolRegistry,
  executeFailureText,
  isHostToolError,
  HostToolError,
  EXECUTE_ERROR_MODEL_CHARS,
} from "./registry.js";
export type {
  HostTool,
  ListedTool,
  OmittedTool,
  ToolCallResult,
  ToolContext,
  ToolRegistry,
  ToolRegistryOptions,
} from "./registry.js";
export { startBridge } from "./bridge.js";
export type { Bridge, BridgeOptions } from "./bridge.js";
export { resolveServerEntry, SERVER_FILE } from "./server-entry.js";
export {
  agentToolRulesText,
  bridgeFailureAudit,
  bridgeFailureReason,
  createToolBridge,
  toolOmittedAudit,
  toolRulesText,
} from "./tool-bridge.js";
export type {
  BridgeFailureAudit,
  BridgeFailureReason,
  ToolBridge,
  ToolBridgeOptions,
  ToolOmittedAudit,
} from "./tool-bridge.js";
