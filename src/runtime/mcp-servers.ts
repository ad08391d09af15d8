/*
 * Operator MCP servers: reshapes the embedder's MCP server list into the ACP session/new wire format.
 * Owns: toAcpMcpServers() and its input checks (stdio: command/args/env record; http|sse: url/headers record).
 * Does not own: the host-tools server entry (tools/tool-bridge.ts builds that one already in wire format).
 * Invariant: wire env/headers are `[{name, value}]` arrays; http/sse carry `type`; a bad entry is refused
 *   with TOOL_MCP_SERVER_INVALID naming its index, name and field — nothing is silently dropped.
 */
import type { McpServer } from "@agentclientprotocol/sdk";
import { SeatError } from "../errors.js";

/** An operator stdio MCP server (`type` may be omitted). */
export interface OperatorStdioServer {
  type?: "stdio";
  name: string;
  command: string;
  args?: string[];
  env?: Record<string, string>;
}

/** An operator remote MCP server over streamable HTTP or SSE. */
export interface OperatorRemoteServer {
  type: "http" | "sse";
  name: string;
  url: string;
  headers?: Record<string, string>;
}

/** An MCP server as the operator configures it. */
export type OperatorMcpServer = OperatorStdioServer | OperatorRemoteServer;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(index: number, name: unknown, field: string, problem: string): never {
  const label = typeof name === "string" && name ? `"${name}"` : "(unnamed)";
  throw new SeatError(
    "TOOL_MCP_SERVER_INVALID",
    `MCP server #${index} ${label}: ${field} ${problem}. Fix that entry of the operator MCP server list.`,
    { context: { index, name: typeof name === "string" ? name : undefined, field } },
  );
}

function pairs(index: number, name: string, field: string, value: unknown): Array<{ name: string; value: string }> {
  if (value === undefined) return [];
  if (!isRecord(value)) fail(index, name, field, "must be an object of string values");
  return Object.entries(value).map(([key, v]) => {
    if (typeof v !== "string") fail(index, name, `${field}.${key}`, "must be a string");
    return { name: key, value: v };
  });
}

/** Reshapes operator MCP servers to ACP wire entries; throws TOOL_MCP_SERVER_INVALID on the first bad entry. */
export function toAcpMcpServers(operatorServers: readonly OperatorMcpServer[] | undefined): McpServer[] {
  if (operatorServers === undefined) return [];
  if (!Array.isArray(operatorServers)) fail(0, undefined, "mcpServers", "must be an array");
  const seen = new Set<string>();
  return operatorServers.map((raw: unknown, index): McpServer => {
    if (!isRecord(raw)) fail(index, undefined, "entry", "must be an object");
    const { name, type } = raw;
    if (typeof name !== "string" || name.trim() === "") fail(index, name, "name", "must be a non-empty string");
    if (seen.has(name)) fail(index, name, "name", "is used by an earlier entry; names must be unique");
    seen.add(name);
    if (type === "http" || type === "sse") {
      const url = raw.url;
      if (typeof url !== "string") fail(index, name, "url", "must be a string");
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        fail(index, name, "url", `is not a URL (${JSON.stringify(url)})`);
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
        fail(index, name, "url", "must use http: or https:");
      return { type, name, url, headers: pairs(index, name, "headers", raw.headers) };
    }
    if (type !== undefined && type !== "stdio")
      fail(index, name, "type", `must be "stdio", "http" or "sse" (got ${JSON.stringify(type)})`);
    const { command, args } = raw;
    if (typeof command !== "string" || command.trim() === "")
      fail(index, name, "command", "must be a non-empty string");
    if (args !== undefined && (!Array.isArray(args) || !args.every((a) => typeof a === "string"))) {
      fail(index, name, "args", "must be an array of strings");
    }
    return {
      name,
      command,
      args: [...((args as string[] | undefined) ?? [])],
      env: pairs(index, name, "env", raw.env),
    };
  });
}
