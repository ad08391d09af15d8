/*
 * MCP front door: `seat mcp`, grok-seat served as an MCP server — its tools and the boundaries a caller stays in.
 * Owns: the list of names other rooms may import from mcp/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../mcp/index.js", never a file inside mcp/; it loads the MCP server SDK, so the CLI
 *   loads it with the `mcp` verb only.
 */
export { createSeatMcpServer, SERVER_INFO } from "./server.js";
export type { SeatMcpServer } from "./server.js";
export { narrowPolicy, realDirectory } from "./boundaries.js";
export type { PolicyNarrowing } from "./boundaries.js";
