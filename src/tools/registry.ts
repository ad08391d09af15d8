/*
 * Tool registry: the host tools of one session, projected for listing and guarded for calling.
 * Owns: HostTool, name checks, projection + validator per tool, and turning results/throws into MCP results.
 * Does not own: transport (bridge.ts serves this over HTTP; mcp-server.ts speaks MCP).
 * Invariant: a call is validated against the tool's ORIGINAL schema before `execute` runs; a refused
 *   call never reaches `execute`. Tool failures are MCP `isError` results, never HTTP or JSON-RPC errors.
 *   One unusable tool (bad name, duplicate, schema that does not compile) is omitted on its own; the rest
 *   are served (buildToolRegistry). A throwing `execute` reaches the model as
 *   `Host tool "<name>" failed [TOOL_EXECUTE_FAILED]` and nothing more — an exception message may carry paths or
 *   secrets (an upstream's `api_key=…`), so the error goes only to the host's onExecuteError. A tool author who
 *   wants the model to read a message throws a HostToolError: its first line (at most 200 characters, redacted)
 *   follows `failed: `.
 */
import { SeatError, messageOf } from "../errors.js";
import { redactText } from "../internal/redact.js";
import { projectSchema, type JsonSchema, type ProjectionMode } from "./projection.js";
import { compileValidator, describeIssues, type ArgumentValidator } from "./validation.js";

/** How much of a HostToolError's message the model sees: the first line, at most this many characters. */
export const EXECUTE_ERROR_MODEL_CHARS = 200;

// A registered symbol, so a HostToolError from another copy of this package (a worker's tools module) still counts.
const HOST_TOOL_ERROR = Symbol.for("grok-seat.HostToolError");

/**
 * The error a host tool throws when the model should read why it failed: `Host tool "<name>" failed: <first line
 * of the message, at most 200 characters, known secret values masked> [TOOL_EXECUTE_FAILED]`. Any other thrown value
 * reaches the model as `Host tool "<name>" failed [TOOL_EXECUTE_FAILED]` only. Write the message for the model:
 * no paths, ids or secrets it should not see.
 */
export class HostToolError extends Error {
  readonly [HOST_TOOL_ERROR] = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "HostToolError";
  }
}

/** True when `error` is a HostToolError (from this or another copy of grok-seat). */
export function isHostToolError(error: unknown): error is HostToolError {
  return (
    error instanceof HostToolError ||
    (typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[HOST_TOOL_ERROR] === true)
  );
}

/** What a host tool's `execute` receives besides its arguments; `signal` aborts when the call is abandoned. */
export interface ToolContext {
  signal: AbortSignal;
}

/**
 * A tool implemented in the host process and served to grok over MCP. `inputSchema` may be any JSON Schema
 * (object, root anyOf/oneOf, $ref/$defs, even a scalar root). A string result is sent as text, anything
 * else as JSON text; a throw becomes an MCP `isError` result (see HostToolError for what the model reads).
 */
export interface HostTool {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  // biome-ignore lint/suspicious/noExplicitAny: args were checked against inputSchema; a tool author types them.
  execute(args: any, ctx: ToolContext): unknown | Promise<unknown>;
}

/** A tool left out of a registry: its position in the given list, its name when usable, and why. */
export interface OmittedTool {
  index: number;
  /** The tool's name, only when it is a usable MCP tool name. */
  toolName?: string;
  error: SeatError;
}

/** Options of buildToolRegistry. */
export interface ToolRegistryOptions {
  /** Told about every throwing `execute`, with the whole error (the model gets a bounded line only). */
  onExecuteError?: (toolName: string, error: unknown) => void;
  /** How root schemas are listed (projection.ts); default "object-with-unions". Claude needs "wrap-unions". */
  projection?: ProjectionMode;
}

/** A tool as MCP lists it. */
export interface ListedTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: "object" };
}

/** An MCP CallToolResult with text content only. */
export interface ToolCallResult {
  content: Array<{ type: "text"; text: string }>;
  isError?: boolean;
}

/** The host tools of one session, ready to list and call. */
export interface ToolRegistry {
  readonly tools: readonly ListedTool[];
  /** True when the named tool's arguments arrive wrapped under `input`. */
  isWrapped(name: string): boolean;
  call(name: string, args: unknown, signal: AbortSignal): Promise<ToolCallResult>;
}

/** MCP tool names: what grok and the MCP SDK accept without mangling. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

interface Entry {
  tool: HostTool;
  listed: ListedTool;
  wrapped: boolean;
  validate: ArgumentValidator;
}

function textResult(text: string, isError = false): ToolCallResult {
  return isError ? { content: [{ type: "text", text }], isError: true } : { content: [{ type: "text", text }] };
}

function resultText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The text the model gets for a throwing `execute`, tagged with the code: the bare failure for any error, plus the
 * first line (bounded, known secret values masked) of a HostToolError's message.
 */
export function executeFailureText(toolName: string, error: unknown): string {
  if (!isHostToolError(error)) return `Host tool "${toolName}" failed [TOOL_EXECUTE_FAILED]`;
  const firstLine = ((error.message ?? "").split(/\r?\n/, 1)[0] ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim();
  // Masked after cutting too: a cut must not leave the start of a known secret value the whole line would have masked.
  const shown = redactText(
    firstLine.length > EXECUTE_ERROR_MODEL_CHARS
      ? `${redactText(firstLine).slice(0, EXECUTE_ERROR_MODEL_CHARS)}…`
      : firstLine,
  );
  return `Host tool "${toolName}" failed: ${shown || "(no message)"} [TOOL_EXECUTE_FAILED]`;
}

/** Checks one tool and compiles its validators; throws TOOL_SCHEMA_INVALID when it cannot be served. */
function compileEntry(tool: HostTool, taken: { has(name: string): boolean }, projection: ProjectionMode): Entry {
  if (typeof tool?.name !== "string" || !TOOL_NAME.test(tool.name)) {
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `Host tool name ${JSON.stringify(tool?.name)} is not usable over MCP; use 1-64 letters, digits, "_" or "-". That tool is not served.`,
      { context: { toolName: tool?.name } },
    );
  }
  if (taken.has(tool.name)) {
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `Host tool "${tool.name}" is registered twice; names must be unique. The second one is not served.`,
      {
        context: { toolName: tool.name },
      },
    );
  }
  const schema = tool.inputSchema;
  if (typeof schema !== "boolean" && (typeof schema !== "object" || schema === null || Array.isArray(schema))) {
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `Host tool "${tool.name}" has an input schema that is not a JSON Schema object. That tool is not served.`,
      {
        context: { toolName: tool.name },
      },
    );
  }
  try {
    const { listed, wrapped } = projectSchema(schema, projection);
    const validate = compileValidator(tool.name, schema, wrapped ? "/input" : "");
    // Compile the listed schema too: a projection that does not compile would break every client.
    compileValidator(tool.name, listed);
    return {
      tool,
      wrapped,
      validate,
      listed: { name: tool.name, description: String(tool.description ?? ""), inputSchema: listed },
    };
  } catch (error) {
    if (error instanceof SeatError) throw error;
    throw new SeatError(
      "TOOL_SCHEMA_INVALID",
      `Host tool "${tool.name}" has an input schema that could not be projected: ${messageOf(error)}. That tool is not served.`,
      {
        context: { toolName: tool.name },
        cause: error,
      },
    );
  }
}

/** Builds a registry; throws TOOL_SCHEMA_INVALID (the first unusable tool) for a bad name, a duplicate or a bad schema. */
export function createToolRegistry(tools: readonly HostTool[], options: ToolRegistryOptions = {}): ToolRegistry {
  const { registry, omitted } = buildToolRegistry(tools, options);
  if (omitted[0]) throw omitted[0].error;
  return registry;
}

/** Builds a registry of the usable tools and lists the unusable ones (each with its TOOL_SCHEMA_INVALID). */
export function buildToolRegistry(
  tools: readonly HostTool[],
  options: ToolRegistryOptions = {},
): { registry: ToolRegistry; omitted: OmittedTool[] } {
  const entries = new Map<string, Entry>();
  const omitted: OmittedTool[] = [];
  tools.forEach((tool, index) => {
    try {
      const entry = compileEntry(tool, entries, options.projection ?? "object-with-unions");
      entries.set(entry.tool.name, entry);
    } catch (error) {
      const seatError =
        error instanceof SeatError ? error : new SeatError("TOOL_SCHEMA_INVALID", messageOf(error), { cause: error });
      const name: unknown = tool?.name;
      omitted.push({
        index,
        ...(typeof name === "string" && TOOL_NAME.test(name) ? { toolName: name } : {}),
        error: seatError,
      });
    }
  });
  const listedTools = [...entries.values()].map((e) => e.listed);

  const registry: ToolRegistry = {
    tools: listedTools,
    isWrapped: (name) => entries.get(name)?.wrapped ?? false,
    async call(name, args, signal) {
      const entry = entries.get(name);
      if (!entry) {
        const known = [...entries.keys()].join(", ") || "(none)";
        return textResult(`Unknown host tool "${name}". Available host tools: ${known}. [TOOL_NOT_FOUND]`, true);
      }
      const received = args ?? {};
      let value: unknown = received;
      if (entry.wrapped) {
        const isObj = typeof received === "object" && received !== null && !Array.isArray(received);
        if (!isObj || !("input" in received)) {
          const text = describeIssues(name, [{ path: "/", message: "must have required property 'input'" }]);
          return textResult(`${text} [TOOL_INVALID_ARGS]`, true);
        }
        const extra = Object.keys(received).filter((k) => k !== "input");
        if (extra.length > 0) {
          const text = describeIssues(name, [
            { path: "/", message: `must NOT have additional property '${extra[0]}'` },
          ]);
          return textResult(`${text} [TOOL_INVALID_ARGS]`, true);
        }
        value = (received as { input: unknown }).input;
      }
      const verdict = entry.validate(value);
      if (!verdict.ok) return textResult(`${describeIssues(name, verdict.issues)} [TOOL_INVALID_ARGS]`, true);
      try {
        const output = await entry.tool.execute(value, { signal });
        return textResult(resultText(output));
      } catch (error) {
        try {
          options.onExecuteError?.(name, error);
        } catch {
          // The host's hook must not change what the model gets.
        }
        return textResult(executeFailureText(name, error), true);
      }
    },
  };
  return { registry, omitted };
}
