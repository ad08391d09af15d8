/*
 * Approval target: what a held permission request would touch, as a person reads it before answering.
 * Owns: describeRequest() — the title, command, paths and tool name of a request, exactly as the agent sent them
 *   except for registered secret values (maskSecretValues: value-only, never by shape), the names of what was
 *   masked, and targetDigest() — the digest of the exact, unmasked target an answer may carry.
 * Does not own: the category (permissions/categorize.ts) or holding the request (queue.ts).
 * Invariant: model-chosen text is never masked by shape and never cut: what a person approves is, byte for byte,
 *   what the agent will run, save a known secret value, and then the view says so (`masked`). Agent-supplied
 *   fields are only read, never trusted to be of the right type.
 * Spec: docs/supervision.md#approvals ("What a held approval is", "The digest").
 */
import { createHash } from "node:crypto";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { maskSecretValues } from "../internal/redact.js";
import type { PendingApproval } from "../acp/index.js";

/** The schema name that opens a target's canonical serialisation (part of what is digested). */
export const TARGET_DIGEST_SCHEMA = "grok-seat.approval-target.v1";

type Target = PendingApproval["target"];

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * The exact target's canonical serialisation: the UTF-8 bytes of
 * `JSON.stringify([TARGET_DIGEST_SCHEMA, command ?? null, paths ?? [], toolName ?? null])`.
 */
export function canonicalTarget(target: Target): string {
  return JSON.stringify([TARGET_DIGEST_SCHEMA, target.command ?? null, target.paths ?? [], target.toolName ?? null]);
}

/** sha256 (lower-case hex) of the exact, unmasked target's canonical serialisation. */
export function targetDigest(target: Target): string {
  return createHash("sha256").update(canonicalTarget(target), "utf8").digest("hex");
}

/** The exact, unmasked title and target of a permission request (what the agent will run). */
export function exactRequest(request: RequestPermissionRequest): { title: string; target: Target } {
  const call = record(request?.toolCall);
  const rawInput = record(call.rawInput);
  const target: Target = {};
  const command = [rawInput.command, rawInput.cmd].find((v) => typeof v === "string" || Array.isArray(v));
  if (typeof command === "string") target.command = command;
  // An argv is shown as the JSON array it is: joining it with spaces would show `sh -c a b` for ["sh","-c","a b"].
  else if (Array.isArray(command)) target.command = JSON.stringify(command.map(String));
  const paths = new Set<string>();
  for (const location of Array.isArray(call.locations) ? call.locations : []) {
    const path = record(location).path;
    if (typeof path === "string") paths.add(path);
  }
  for (const key of ["path", "file_path", "target_file", "filePath"])
    if (typeof rawInput[key] === "string") paths.add(rawInput[key] as string);
  if (paths.size > 0) target.paths = [...paths];
  const xai = record(record(call._meta)["x.ai/tool"]);
  const toolName =
    typeof rawInput.tool_name === "string" ? rawInput.tool_name : typeof xai.name === "string" ? xai.name : undefined;
  if (toolName !== undefined) target.toolName = toolName;
  const title = typeof call.title === "string" && call.title.trim() !== "" ? call.title : (toolName ?? "tool call");
  return { title, target };
}

/**
 * The title and target of a permission request as a person is shown them: exact, with only registered secret
 * values masked (`masked` names them, absent when nothing was), and the digest of the exact, unmasked target.
 */
export function describeRequest(request: RequestPermissionRequest): {
  title: string;
  target: Target;
  digest: string;
  masked?: string[];
} {
  const exact = exactRequest(request);
  const names = new Set<string>();
  const mask = (text: string): string => {
    const out = maskSecretValues(text);
    for (const name of out.masked) names.add(name);
    return out.text;
  };
  const target: Target = {};
  if (exact.target.command !== undefined) target.command = mask(exact.target.command);
  if (exact.target.paths !== undefined) target.paths = exact.target.paths.map(mask);
  if (exact.target.toolName !== undefined) target.toolName = mask(exact.target.toolName);
  const title = mask(exact.title);
  return {
    title,
    target,
    digest: targetDigest(exact.target),
    ...(names.size > 0 ? { masked: [...names].sort() } : {}),
  };
}
