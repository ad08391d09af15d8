/*
 * Runtime front door: the headless seat.
 */
export { createSession } from "./session.js";
export type { HeadlessSession, SessionState, AuditEvent } from "./session.js";
export type { SessionOptions, PermissionHook, PermissionDecider, PromptInput } from "./options.js";
export { agentLabel, promptText } from "./labels.js";
export { probeAcp } from "./probe.js";
export type { AcpProbe, ProbeOptions } from "./probe.js";
export { handshake } from "./handshake.js";
export type { HandshakeOptions, HandshakeResult } from "./handshake.js";
export { attachMethodFor } from "./attach.js";
export type { AttachRequest, AttachResult } from "./attach.js";
export { agentLaunch, resolveAgentProfile } from "./agent-launch.js";
export { budgetRefusal } from "./budget-gate.js";
export { toAcpMcpServers } from "./mcp-servers.js";
export type { OperatorMcpServer, OperatorRemoteServer, OperatorStdioServer } from "./mcp-servers.js";
