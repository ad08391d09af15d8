/*
 * Server entry: where the compiled host-tools MCP server script lives on disk.
 * Owns: resolveServerEntry(), from the built layout (dist/src/tools/mcp-server.js beside this module)
 *   or, when this module is loaded as a `.ts` source, the compiled sibling under the nearest `dist/`.
 * Does not own: starting the process (grok does, from the ACP mcpServers entry).
 * Invariant: a missing asset is reported before the session starts (TOOL_BRIDGE_FAILED,
 *   reason mcp-schema-server-missing), never as grok's opaque "handshake failed" at MCP initialize.
 */
import { existsSync } from "node:fs";
import { dirname, join, parse, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SeatError } from "../errors.js";
import { builtFile } from "../internal/package-files.js";

/** File name of the compiled MCP server script. */
export const SERVER_FILE = "mcp-server.js";

function candidates(moduleUrl: string): string[] {
  const modulePath = fileURLToPath(moduleUrl);
  const moduleDir = dirname(modulePath);
  const found = [join(moduleDir, SERVER_FILE)];
  if (modulePath.endsWith(".ts")) {
    // <root>/src/tools/x.ts → <root>/dist/src/tools/mcp-server.js: try each ancestor as <root>.
    let ancestor = moduleDir;
    const { root } = parse(moduleDir);
    while (true) {
      found.push(join(ancestor, "dist", relative(ancestor, moduleDir), SERVER_FILE));
      if (ancestor === root) break;
      ancestor = dirname(ancestor);
    }
  }
  return found;
}

/**
 * Returns the absolute path of the MCP server script for the module at `moduleUrl` (default: this one, where the
 * compiled tree has it: the bundled `seat` runs it from a chunk elsewhere).
 * Throws TOOL_BRIDGE_FAILED with context.reason "mcp-schema-server-missing" when no candidate exists.
 */
export function resolveServerEntry(
  moduleUrl: string = pathToFileURL(builtFile("src", "tools", "server-entry.js")).href,
): string {
  const tried = candidates(moduleUrl);
  const hit = tried.find((path) => existsSync(path));
  if (hit) return hit;
  throw new SeatError(
    "TOOL_BRIDGE_FAILED",
    "GROK_SEAT_TOOL_BRIDGE_FAILED: mcp-schema-server-missing — the host-tools MCP server script is not beside " +
      `the loaded module (looked for ${SERVER_FILE} in ${tried.length} places). Run \`npm run build\` so it is compiled.`,
    { context: { reason: "mcp-schema-server-missing", tried } },
  );
}
