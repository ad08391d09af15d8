/*
 * Approval target: what a held permission request would touch, as a person reads it before answering.
 * Owns: describeRequest() — the title, command, paths and tool name of a request, each redacted and bounded.
 * Does not own: the category (permissions/categorize.ts) or holding the request (queue.ts).
 * Invariant: every string leaves through redactText() and is cut to a bounded length; agent-supplied fields
 *   are only read, never trusted to be of the right type.
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { redactText } from "../internal/redact.js";
import type { PendingApproval } from "../acp/index.js";

const MAX_TEXT = 2_000;
const MAX_PATHS = 32;

function bounded(text: string): string {
  const clean = redactText(text);
  return clean.length > MAX_TEXT ? `${clean.slice(0, MAX_TEXT)}…` : clean;
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The title and target of a permission request, redacted (see PendingApproval). */
export function describeRequest(request: RequestPermissionRequest): { title: string; target: PendingApproval["target"] } {
  const call = record(request?.toolCall);
  const rawInput = record(call.rawInput);
  const target: PendingApproval["target"] = {};
  const command = [rawInput.command, rawInput.cmd].find((v) => typeof v === "string" || Array.isArray(v));
  if (typeof command === "string") target.command = bounded(command);
  else if (Array.isArray(command)) target.command = bounded(command.map(String).join(" "));
  const paths = new Set<string>();
  for (const location of Array.isArray(call.locations) ? call.locations : []) {
    const path = record(location).path;
    if (typeof path === "string") paths.add(path);
  }
  for (const key of ["path", "file_path", "target_file", "filePath"]) if (typeof rawInput[key] === "string") paths.add(rawInput[key] as string);
  if (paths.size > 0) target.paths = [...paths].slice(0, MAX_PATHS).map(bounded);
  const xai = record(record(call._meta)["x.ai/tool"]);
  const toolName = typeof rawInput.tool_name === "string" ? rawInput.tool_name : typeof xai.name === "string" ? xai.name : undefined;
  if (toolName !== undefined) target.toolName = bounded(toolName);
  const title = typeof call.title === "string" && call.title.trim() !== "" ? call.title : toolName ?? "tool call";
  return { title: bounded(title), target };
}
