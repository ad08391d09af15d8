/*
 * Tool modules: the host tools a worker serves, loaded from the modules named by `seat worker --tools`.
 * Owns: importing each module and taking its `tools` export (or default export): a HostTool or a list of them.
 * Does not own: validating schemas or serving the tools (tools/ does, as for createSession).
 * Invariant: a module that cannot be imported or exports no tools is a FLEET_TOOLS_INVALID error naming it;
 *   the worker does not start with half its tools.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { SeatError, messageOf } from "../errors.js";
import type { HostTool } from "../tools/index.js";

function isToolLike(value: unknown): value is HostTool {
  const tool = value as HostTool | undefined;
  return !!tool && typeof tool === "object" && typeof tool.name === "string" && typeof tool.execute === "function";
}

/** Imports each module (a path, relative to `cwd`) and returns all the HostTools they export. */
export async function loadToolModules(paths: readonly string[], cwd = process.cwd()): Promise<HostTool[]> {
  const tools: HostTool[] = [];
  for (const path of paths) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(resolve(cwd, path)).href)) as Record<string, unknown>;
    } catch (error) {
      throw new SeatError(
        "FLEET_TOOLS_INVALID",
        `The tools module ${path} could not be imported: ${messageOf(error)}.`,
        { cause: error, context: { path } },
      );
    }
    const exported = mod.tools ?? mod.default;
    const list = Array.isArray(exported) ? exported : [exported];
    if (list.length === 0 || !list.every(isToolLike)) {
      throw new SeatError(
        "FLEET_TOOLS_INVALID",
        `The tools module ${path} must export \`tools\` (or a default export): a HostTool or an array of them ({name, description, inputSchema, execute}).`,
        { context: { path } },
      );
    }
    tools.push(...list);
  }
  return tools;
}
