/*
 * Mock model front door: the scripted loopback model used by tests and `seat demo`.
 */
export { startMockModel } from "./server.js";
export type { MockModelServer, MockModelOptions, LoggedRequest } from "./server.js";
export { classifyRequest, chooseReply, lastUserQuery, parseScript } from "./script.js";
export type { MockScript, MockRule, MockReply, MockToolCall, RequestKind, ChatRequest } from "./script.js";
export { OFFLINE_WIRING, offlineWiring } from "./agent-wiring.js";
export type { ModelDialect, OfflineWiring } from "./agent-wiring.js";
