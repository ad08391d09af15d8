/*
 * Leader front door: the client for a grok TUI leader's private socket.
 * Owns: the list of names siblings may import from leader/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: siblings import "../leader/index.js", never a file inside leader/.
 */
export { encodeFrame, FrameDecoder, MAX_FRAME_BYTES } from "./frames.js";
export type { LeaderFrame } from "./frames.js";
export { acpFrame, parseAcpPayload } from "./payload.js";
export { buildRegisterFrame, parseRegistered, LEADER_PROTOCOL_VERSION } from "./registration.js";
export type { LeaderRegistration } from "./registration.js";
export { connectLeader } from "./client.js";
export type {
  ConnectLeaderOptions,
  LeaderActivity,
  LeaderClient,
  LeaderClosed,
  LeaderControlCommand,
} from "./client.js";
