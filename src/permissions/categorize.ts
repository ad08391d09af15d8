/*
 * Permission categories: which kind of action an ACP `session/request_permission` asks for.
 * Owns: PermissionCategory and categorize(), a pure function of the request.
 * Does not own: what to do about a category (policy.ts) or answering the agent (gate.ts).
 * Invariant: every field is agent-supplied, so when the tool name and the ACP `kind` disagree the more
 *   sensitive category wins — a hint can make a call stricter, never looser.
 * Exception: Codex (codex-acp 2.6.0) asks for MCP tool calls with `_meta.is_mcp_tool_approval: true` on the
 *   request and a bare tool call `{kind: "execute"}` (no title, no rawInput). When that marker is set and the tool
 *   call names nothing else, the category is `mcp`: the kind is Codex's placeholder, not a shell command, and
 *   the agent (not the model) sets the marker. Any name hint present still applies the stricter rule.
 * Spec: docs grok-wire §7 (MCP calls arrive as grok's `use_tool`, titles `<server>__<tool>`), §9 (kinds, `x.ai/tool`).
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";

/** The categories the gate decides on. */
export const PERMISSION_CATEGORIES = ["read", "edit", "execute", "network", "mcp", "other"] as const;

/** One permission category. */
export type PermissionCategory = (typeof PERMISSION_CATEGORIES)[number];

/** Sensitivity order used to settle disagreements between hints (higher wins). */
const RANK: Record<PermissionCategory, number> = { read: 0, other: 1, mcp: 2, network: 3, edit: 4, execute: 5 };

/** grok's own tool names (`_meta["x.ai/tool"].name`) and common peers', by category. */
const TOOL_NAMES: Record<string, PermissionCategory> = {
  read: "read",
  read_file: "read",
  view: "read",
  ls: "read",
  list: "read",
  list_dir: "read",
  glob: "read",
  grep: "read",
  search: "read",
  codebase_search: "read",
  file_search: "read",
  write: "edit",
  edit: "edit",
  multi_edit: "edit",
  multiedit: "edit",
  apply_patch: "edit",
  str_replace: "edit",
  create_file: "edit",
  delete: "edit",
  delete_file: "edit",
  move: "edit",
  rename: "edit",
  notebook_edit: "edit",
  bash: "execute",
  shell: "execute",
  run_terminal_command: "execute",
  run_command: "execute",
  terminal: "execute",
  exec: "execute",
  execute: "execute",
  fetch: "network",
  web_fetch: "network",
  url_fetch: "network",
  fetch_url: "network",
  web_search: "network",
  search_web: "network",
  x_keyword_search: "network",
  x_semantic_search: "network",
  x_user_search: "network",
  x_thread_fetch: "network",
  browse: "network",
  use_tool: "mcp",
};

/** ACP ToolKind → category. `search` is local unless the tool name says web. */
const KINDS: Record<string, PermissionCategory> = {
  read: "read",
  search: "read",
  edit: "edit",
  delete: "edit",
  move: "edit",
  execute: "execute",
  fetch: "network",
};

/** An MCP-qualified tool name as grok shows it: `<server>__<tool>`. */
const QUALIFIED = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*__[A-Za-z0-9_.-]+$/;

function stricter(
  a: PermissionCategory | undefined,
  b: PermissionCategory | undefined,
): PermissionCategory | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return RANK[b] > RANK[a] ? b : a;
}

function xaiToolName(meta: unknown): string | undefined {
  if (typeof meta !== "object" || meta === null) return undefined;
  const tool = (meta as Record<string, unknown>)["x.ai/tool"];
  if (typeof tool !== "object" || tool === null) return undefined;
  const name = (tool as Record<string, unknown>).name;
  return typeof name === "string" ? name : undefined;
}

function byName(name: string | undefined): PermissionCategory | undefined {
  if (!name) return undefined;
  if (QUALIFIED.test(name)) return "mcp";
  return TOOL_NAMES[name.toLowerCase()];
}

/** Derives the category of a permission request from its tool call's `_meta["x.ai/tool"].name`, kind, title and rawInput. */
export function categorize(
  request: Pick<RequestPermissionRequest, "toolCall"> & { _meta?: unknown },
): PermissionCategory {
  const call = request.toolCall ?? ({} as RequestPermissionRequest["toolCall"]);
  const requestMeta =
    typeof request._meta === "object" && request._meta !== null ? (request._meta as Record<string, unknown>) : {};
  const bare =
    call.title == null &&
    (call.rawInput == null || (typeof call.rawInput === "object" && Object.keys(call.rawInput).length === 0)) &&
    xaiToolName(call._meta) === undefined;
  if (requestMeta.is_mcp_tool_approval === true && bare) return "mcp";
  const title = typeof call.title === "string" ? call.title.trim() : undefined;
  const rawInput = (typeof call.rawInput === "object" && call.rawInput !== null ? call.rawInput : {}) as Record<
    string,
    unknown
  >;
  // grok's use_tool carries the MCP tool in rawInput.tool_name; the variant names grok's tool (e.g. "UseTool").
  const nestedName = typeof rawInput.tool_name === "string" ? rawInput.tool_name : undefined;
  const variant =
    typeof rawInput.variant === "string" ? rawInput.variant.replace(/([a-z])([A-Z])/g, "$1_$2") : undefined;
  const titleWord = title?.split(/[\s`(:]/)[0];
  // Codex's MCP approval: title "Approve MCP tool call", rawInput.server_name, no kind; Gemini's: kind "other",
  // title "<tool> (<server> MCP Server)".
  const mcpServer =
    typeof rawInput.server_name === "string" ||
    (title !== undefined && (/^approve mcp tool call\b/i.test(title) || /\([\w.-]+ MCP Server\)$/.test(title)));

  let category: PermissionCategory | undefined;
  category = stricter(category, byName(xaiToolName(call._meta)));
  category = stricter(category, byName(nestedName) === undefined ? undefined : "mcp");
  category = stricter(category, byName(variant));
  category = stricter(category, mcpServer ? "mcp" : undefined);
  category = stricter(category, byName(title) ?? byName(titleWord));
  const kindCategory = typeof call.kind === "string" ? KINDS[call.kind] : undefined;
  category = stricter(category, kindCategory);
  return category ?? "other";
}
