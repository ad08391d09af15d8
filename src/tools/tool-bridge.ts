/*
 * Tool bridge assembly: host tools → registry → loopback bridge → the ACP stdio MCP entry grok starts.
 * Owns: createToolBridge() (what a session calls), the rules paragraph about tool naming, and the
 *   ids-only audit record for a bridge that could not start.
 * Does not own: passing the entry on session/new (runtime/, seat/) or emitting diagnostics from failures.
 * Invariant: on failure nothing half-started is left behind and no MCP entry is returned; the caller omits
 *   the host-tools server and records bridgeFailureAudit(reason, count) — no paths, schemas, prose or tokens.
 *   An unusable tool is not a bridge failure: it is listed in omittedTools (toolOmittedAudit records it,
 *   reason "tool-schema-invalid") and the other tools are served.
 *   grok 1.0.41 starts a stdio MCP server with its own whole environment plus the entry's `env`, so the
 *   entry runs `env -u <each secret name> -- node mcp-server.js`: the server never holds XAI_API_KEY & co.
 */
import { existsSync } from "node:fs";
import type { McpServerStdio } from "@agentclientprotocol/sdk";
import { SeatError, isSeatError } from "../errors.js";
import { secretNames } from "../internal/redact.js";
import { startBridge } from "./bridge.js";
import { buildToolRegistry, type HostTool, type OmittedTool } from "./registry.js";
import type { ProjectionMode } from "./projection.js";
import { resolveServerEntry } from "./server-entry.js";

/** Options of createToolBridge. */
export interface ToolBridgeOptions {
  tools: readonly HostTool[];
  /** MCP server name grok sees; tools become `<serverName>__<tool>` (default "host-tools"). */
  serverName?: string;
  /** Node binary grok runs the server with (default: this process's). */
  nodePath?: string;
  /** Explicit server script path; default resolves the compiled mcp-server.js beside this module. */
  serverEntry?: string;
  /** Loopback port for the bridge (default 0 = ephemeral). */
  port?: number;
  /** MCP server health-check period in ms, passed as GROK_SEAT_BRIDGE_HEALTH_MS (default: the server's 2000). */
  healthCheckMs?: number;
  /** Told about every throwing `execute` with the whole error (the model gets a bounded line only). */
  onExecuteError?: (toolName: string, error: unknown) => void;
  /** The session's `mcp` permission decision, applied by the bridge on every call (see BridgeOptions.authorize). */
  authorize?: (toolName: string) => boolean | Promise<boolean>;
  /** Root-schema projection for the consuming agent (default "object-with-unions"; Claude: "wrap-unions"). */
  projection?: ProjectionMode;
  /**
   * The name the consuming agent's model sees for a host tool (agents/ profiles). When given, the rules text
   * names tools this way instead of grok's `<server>__<tool>` via use_tool.
   */
  modelToolName?: (serverName: string, toolName: string) => string;
}

/** A started bridge: the ACP MCP entry to pass on session/new, qualified tool names, rules text, close(). */
export interface ToolBridge {
  mcpServer: McpServerStdio;
  toolNames: string[];
  rulesText: string;
  /** Tools left out because their name or schema is unusable (each with its TOOL_SCHEMA_INVALID). */
  omittedTools: readonly OmittedTool[];
  /** Stops the bridge; the MCP server process then exits at its next call or health check. Idempotent. */
  close(): Promise<void>;
}

/** Fixed reason codes of a bridge failure. */
export type BridgeFailureReason = "mcp-schema-server-missing" | "bridge-start-failed";

/** The ids-only audit record of a bridge failure (event `session:runtime-resolved`). */
export interface BridgeFailureAudit {
  event: "session:runtime-resolved";
  toolBridgeFailed: true;
  reason: BridgeFailureReason;
  requestedToolCount: number;
}

/** The `env` program that strips secret names before the MCP server starts (undefined: none found, run node directly). */
const ENV_PROGRAM = ["/usr/bin/env", "/bin/env"].find((path) => existsSync(path));

/** The command and args of the host-tools MCP server: node + script, behind `env -u <secret>…` when env exists. */
export function serverCommand(node: string, entry: string): { command: string; args: string[] } {
  if (!ENV_PROGRAM) return { command: node, args: [entry] };
  return { command: ENV_PROGRAM, args: [...secretNames().flatMap((name) => ["-u", name]), "--", node, entry] };
}

const SERVER_NAME = /^[A-Za-z0-9-]+(?:_[A-Za-z0-9-]+)*$/;

/** The ids-only audit record of one host tool left out of the bridge (event `session:runtime-resolved`). */
export interface ToolOmittedAudit {
  event: "session:runtime-resolved";
  toolOmitted: true;
  reason: "tool-schema-invalid";
  toolIndex: number;
  toolName?: string;
  requestedToolCount: number;
}

/** Builds the ids-only audit record for a tool omitted for its name or schema (the name only when usable). */
export function toolOmittedAudit(omitted: OmittedTool, requestedToolCount: number): ToolOmittedAudit {
  return {
    event: "session:runtime-resolved",
    toolOmitted: true,
    reason: "tool-schema-invalid",
    toolIndex: omitted.index,
    ...(omitted.toolName === undefined ? {} : { toolName: omitted.toolName }),
    requestedToolCount,
  };
}

/** Builds the ids-only audit record for a bridge that could not start. */
export function bridgeFailureAudit(reason: BridgeFailureReason, requestedToolCount: number): BridgeFailureAudit {
  return { event: "session:runtime-resolved", toolBridgeFailed: true, reason, requestedToolCount };
}

/** The fixed reason code of a TOOL_BRIDGE_FAILED error, or undefined for any other error. */
export function bridgeFailureReason(error: unknown): BridgeFailureReason | undefined {
  if (!isSeatError(error, "TOOL_BRIDGE_FAILED")) return undefined;
  const reason = error.context.reason;
  return reason === "mcp-schema-server-missing" || reason === "bridge-start-failed" ? reason : undefined;
}

/** The `_meta.rules` paragraph telling the model how host tool names resolve and how to call them. */
export function toolRulesText(
  serverName: string,
  toolNames: readonly string[],
  wrappedNames: readonly string[] = [],
): string {
  if (toolNames.length === 0) return "";
  const example = toolNames[0]!;
  const bare = example.slice(serverName.length + 2);
  const wrapped =
    wrappedNames.length > 0
      ? ` These tools take their whole argument under a single "input" property: ${wrappedNames.join(", ")}.`
      : "";
  return (
    `Host tools are served by the MCP server "${serverName}": ${toolNames.join(", ")}. ` +
    `A bare host tool name resolves to ${serverName}__<name> (for example "${bare}" means "${example}"). ` +
    `MCP tools are called through use_tool with {"tool_name":"${example}","tool_input":{...}}; ` +
    `use search_tool first if the tool is not loaded yet.${wrapped}`
  );
}

/** The rules paragraph for a non-grok agent: the names its model sees, and the wrapped-argument note. */
export function agentToolRulesText(
  serverName: string,
  modelNames: readonly string[],
  wrappedModelNames: readonly string[] = [],
): string {
  if (modelNames.length === 0) return "";
  const wrapped =
    wrappedModelNames.length > 0
      ? ` These tools take their whole argument under a single "input" property: ${wrappedModelNames.join(", ")}.`
      : "";
  return `Host tools are served by the MCP server "${serverName}"; call them by these names: ${modelNames.join(", ")}.${wrapped}`;
}

/**
 * Starts a session's host-tools bridge and returns the ACP stdio MCP entry for it.
 * An unusable tool is left out (omittedTools). Throws TOOL_SCHEMA_INVALID for a bad server name and
 * TOOL_BRIDGE_FAILED (context.reason) when it cannot start.
 */
export async function createToolBridge(options: ToolBridgeOptions): Promise<ToolBridge> {
  const serverName = options.serverName ?? "host-tools";
  if (!SERVER_NAME.test(serverName) || serverName.length > 64) {
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `MCP server name ${JSON.stringify(serverName)} is not usable: use letters, digits, "-" and single "_" (no "__").`,
      { context: { serverName } },
    );
  }
  const { registry, omitted } = buildToolRegistry(options.tools, {
    ...(options.onExecuteError ? { onExecuteError: options.onExecuteError } : {}),
    ...(options.projection ? { projection: options.projection } : {}),
  });
  const entry = options.serverEntry ?? resolveServerEntry();
  if (options.serverEntry !== undefined) {
    // An explicit path gets the same up-front check as a resolved one.
    if (!existsSync(entry)) {
      throw new SeatError(
        "TOOL_BRIDGE_FAILED",
        "GROK_SEAT_TOOL_BRIDGE_FAILED: mcp-schema-server-missing — the configured host-tools MCP server script does not exist.",
        { context: { reason: "mcp-schema-server-missing", serverEntry: entry } },
      );
    }
  }
  const bridge = await startBridge(registry, {
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.authorize ? { authorize: options.authorize } : {}),
  });
  const env = [
    { name: "GROK_SEAT_BRIDGE_URL", value: bridge.url },
    { name: "GROK_SEAT_BRIDGE_TOKEN", value: bridge.token },
  ];
  if (options.healthCheckMs !== undefined)
    env.push({ name: "GROK_SEAT_BRIDGE_HEALTH_MS", value: String(options.healthCheckMs) });
  const toolNames = registry.tools.map((t) => `${serverName}__${t.name}`);
  const wrappedNames = registry.tools.filter((t) => registry.isWrapped(t.name)).map((t) => `${serverName}__${t.name}`);
  return {
    mcpServer: { name: serverName, ...serverCommand(options.nodePath ?? process.execPath, entry), env },
    toolNames,
    rulesText: options.modelToolName
      ? agentToolRulesText(
          serverName,
          registry.tools.map((t) => options.modelToolName!(serverName, t.name)),
          registry.tools
            .filter((t) => registry.isWrapped(t.name))
            .map((t) => options.modelToolName!(serverName, t.name)),
        )
      : toolRulesText(serverName, toolNames, wrappedNames),
    omittedTools: omitted,
    close: () => bridge.close(),
  };
}
