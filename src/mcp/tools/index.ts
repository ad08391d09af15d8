/*
 * The tools of `seat mcp`: one register function per group, in one list. Adding a tool group is one file under
 *   tools/ exporting `registerXTools(context)` and one line here.
 * Owns: the list and which groups need what (the fleet's only with --redis).
 * Does not own: any tool's behaviour.
 */
import type { ToolContext } from "../context.js";
import { registerRunTool } from "./run.js";
import { registerSessionTools } from "./sessions.js";
import { registerApprovalTools } from "./approvals.js";

/** One group of tools; `when` says whether the server's options serve it (default: always). */
export interface ToolGroup {
  name: string;
  register(context: ToolContext): void | Promise<void>;
  when?(context: ToolContext): boolean;
}

/** Every tool group, in the order tools/list shows them. */
export const TOOL_GROUPS: readonly ToolGroup[] = [
  { name: "run", register: registerRunTool },
  { name: "sessions", register: registerSessionTools },
  { name: "visible", register: async (context) => (await import("./visible.js")).registerVisibleTools(context) },
  { name: "approvals", register: registerApprovalTools },
  { name: "spend", register: async (context) => (await import("./spend.js")).registerSpendTools(context) },
  // Loaded only with --redis: BullMQ and ioredis are not paid for otherwise.
  {
    name: "fleet",
    register: async (context) => (await import("./fleet.js")).registerFleetTools(context),
    when: (context) => context.options.redisUrl !== undefined,
  },
];
