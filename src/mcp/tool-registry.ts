/*
 * The tools of `seat mcp` and the one door their calls come in by: every tool is registered here, and the
 *   server's `tools/call` handler is ours, set through the SDK's public low-level API (Server.setRequestHandler).
 * Owns: checking a call's arguments against the tool's input schema ourselves (strict: a wrong type, a missing or
 *   unknown field is MCP_ARGUMENT_INVALID), an unknown tool (MCP_TOOL_UNKNOWN), and checking a result's
 *   structured content against its output schema.
 * Does not own: listing the tools (the SDK's McpServer serves tools/list from the same registrations) or what
 *   any tool does (tools/).
 * Invariant: no call reaches a handler unchecked, whatever the SDK's own validation does or stops doing; the
 *   handler is installed after every tool is registered, so the SDK's lazily set handler is replaced, never kept.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { CallToolRequestSchema, type CallToolResult, type ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { SeatError } from "../errors.js";
import { toolError, type ToolExtra } from "./results.js";

/** What a tool declares: its listing and its schemas (zod raw shapes, as the SDK takes them). */
export interface SeatToolConfig<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  title?: string;
  description?: string;
  inputSchema: I;
  outputSchema?: O;
  annotations?: ToolAnnotations;
}

/** A tool's handler: called only with arguments that passed the input schema. */
export type SeatToolHandler<I extends z.ZodRawShape> = (
  args: z.output<z.ZodObject<I>>,
  extra: ToolExtra,
) => CallToolResult | Promise<CallToolResult>;

/** Registers tools and, once they all are, takes over `tools/call`. */
export interface ToolRegistry {
  register<I extends z.ZodRawShape, O extends z.ZodRawShape>(
    name: string,
    config: SeatToolConfig<I, O>,
    handler: SeatToolHandler<I>,
  ): void;
  /** Makes our handler answer `tools/call`; call after every tool is registered. */
  install(): void;
}

interface Entry {
  input: z.ZodType;
  output?: z.ZodType;
  handler: (args: unknown, extra: ToolExtra) => CallToolResult | Promise<CallToolResult>;
}

/** The most schema issues a refusal names. */
const MAX_ISSUES = 5;

/** A registry on `server`: tools/list stays the SDK's, tools/call becomes ours at install(). */
export function createToolRegistry(server: McpServer): ToolRegistry {
  const tools = new Map<string, Entry>();
  return {
    register(name, config, handler) {
      const input = z.strictObject(config.inputSchema);
      tools.set(name, {
        input,
        ...(config.outputSchema ? { output: z.object(config.outputSchema) } : {}),
        handler: handler as Entry["handler"],
      });
      // The SDK keeps the registration for tools/list (its JSON Schema rendering of the same strict object, so the
      // listing says `additionalProperties: false` as the check does); its call path is replaced at install().
      (server.registerTool as (name: string, config: unknown, cb: unknown) => unknown)(
        name,
        { ...config, inputSchema: input },
        handler,
      );
    },
    install() {
      server.server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
        callTool(tools, request.params.name, request.params.arguments, extra),
      );
    },
  };
}

async function callTool(
  tools: Map<string, Entry>,
  name: string,
  args: unknown,
  extra: ToolExtra,
): Promise<CallToolResult> {
  const tool = tools.get(name);
  if (!tool)
    return toolError(
      new SeatError(
        "MCP_TOOL_UNKNOWN",
        `This server has no tool ${JSON.stringify(name.slice(0, 80))}; tools/list names the ones it serves.`,
        { context: { tool: name.slice(0, 80) } },
      ),
    );
  const parsed = await tool.input.safeParseAsync(args ?? {});
  if (!parsed.success) {
    return toolError(
      new SeatError(
        "MCP_ARGUMENT_INVALID",
        `The arguments of ${name} do not fit its input schema: ${describeIssues(parsed.error)}.`,
        { context: { tool: name } },
      ),
    );
  }
  let result: CallToolResult;
  try {
    result = await tool.handler(parsed.data, extra);
  } catch (error) {
    return toolError(error);
  }
  if (tool.output && result.isError !== true) {
    const checked = await tool.output.safeParseAsync(result.structuredContent);
    // Our own bug, never the caller's: said as an internal error rather than sent half-shaped.
    if (!checked.success)
      return toolError(
        new Error(`the result of ${name} does not fit its output schema: ${describeIssues(checked.error)}`),
      );
  }
  return result;
}

/** `path: problem` for the first few issues, e.g. `prompt: Invalid input: expected string, received number`. */
function describeIssues(error: z.ZodError): string {
  const issues = error.issues
    .slice(0, MAX_ISSUES)
    .map((issue) => `${issue.path.length > 0 ? `${issue.path.join(".")}: ` : ""}${issue.message}`);
  const more = error.issues.length > MAX_ISSUES ? ` (and ${error.issues.length - MAX_ISSUES} more)` : "";
  return `${issues.join("; ")}${more}`;
}
