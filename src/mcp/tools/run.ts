/*
 * The `run` tool: one headless turn on a seat — the final text, stop reason, usage and diagnostics as structured
 *   content plus text; streamed text, tool calls and permission decisions as progress notifications.
 * Owns: the tool's input and output schemas, checking a call against the server's limits, and the mapping of
 *   seat events to progress notifications.
 * Does not own: running the turn (turn.ts) or the checks (boundaries.ts).
 * Cancel: the SDK aborts the handler's signal on the client's notifications/cancelled and when the transport
 *   closes; the signal cancels the turn, and the agent is disposed before the handler settles.
 */
import { z } from "zod";
import type { SeatEvent } from "../../acp/index.js";
import { PERMISSION_CATEGORIES } from "../../permissions/index.js";
import { assertWorktreeName } from "../../names/index.js";
import { checkSessionWorktree, checkTurnRequest, checkWorktreeRepository, resolveCwd } from "../boundaries.js";
import { seatHome } from "../../home/index.js";
import type { ToolContext } from "../context.js";
import { guarded, progressSender, toolResult, type ProgressSender } from "../results.js";
import { runMcpTurn } from "../turn.js";

const category = z.enum(PERMISSION_CATEGORIES);

/** The run tool's arguments (the tool registry checks them strictly: an unknown one is MCP_ARGUMENT_INVALID). */
export const RUN_ARGUMENTS = {
  prompt: z.string().min(1).describe("The prompt for the turn."),
  agent: z
    .string()
    .optional()
    .describe("The ACP agent to drive (one the server allows with --agents; default its first)."),
  model: z.string().optional().describe("grok-cli/<id>, grok/<id> or a bare id; default the agent's own."),
  session: z.string().optional().describe("A named session to continue (created on first use; per cwd)."),
  cwd: z
    .string()
    .optional()
    .describe("Absolute working directory, under a --root or a root the client declared; default the first root."),
  allow: z
    .array(category)
    .optional()
    .describe("Narrow the server's policy: only these categories may be allowed (each must be allowed by the server)."),
  block: z.array(category).optional().describe("Narrow the server's policy: refuse these categories."),
  worktree: z
    .string()
    .optional()
    .describe(
      "Work in a seat worktree of cwd's repository (branch seat/<name>, under the seat home), one commit per turn; \"\" for the session's name or a fresh run-… name. The repository's top level must lie under a root.",
    ),
  maxTokens: z
    .number()
    .int()
    .positive()
    .optional()
    .describe("The turn's token budget: it is cancelled (BUDGET_EXCEEDED) once its model calls have used more."),
  maxCostUsd: z
    .number()
    .positive()
    .optional()
    .describe("The turn's cost budget in US dollars (the agent's reported cost): BUDGET_EXCEEDED once it is spent."),
};

/** The run tool's structured result. */
export const RUN_OUTPUT = {
  text: z.string().describe("The agent's answer (streamed text of the turn)."),
  stopReason: z.string().nullable().describe("end_turn, cancelled, max_tokens, …; null when the agent gave none."),
  promptId: z.string(),
  agent: z.string(),
  cwd: z.string(),
  usage: z.record(z.string(), z.number()).describe("Token counts the agent reported (empty when it reported none)."),
  diagnostics: z.array(z.object({ code: z.string(), message: z.string() })),
  session: z
    .object({
      name: z.string(),
      resumed: z.boolean(),
      agentSessionId: z.string().nullable(),
      interrupted: z.array(z.string()),
    })
    .optional(),
  worktree: z
    .object({ name: z.string(), branch: z.string(), path: z.string(), commit: z.string().nullable() })
    .optional()
    .describe("The worktree the turn worked in and its commit (null: no changes, or not committed)."),
};

/** Registers `run`. */
export function registerRunTool(context: ToolContext): void {
  context.registerTool(
    "run",
    {
      title: "Run a turn on a seat",
      description:
        "Run one prompt on a headless agent seat (grok by default) under the server's permission gate, and return its answer. Progress notifications carry streamed text, tool calls and permission decisions when a progress token is sent; cancelling the call cancels the turn. For work that may outlast the client's tool timeout, use submit (with --redis).",
      inputSchema: RUN_ARGUMENTS,
      outputSchema: RUN_OUTPUT,
    },
    (args, extra) =>
      guarded(async () => {
        const { options } = context;
        const { agent, model, policy } = checkTurnRequest(args, options);
        const roots = await context.roots();
        const cwd = resolveCwd(args.cwd, roots);
        // The worktree's name and repository are checked with the other arguments, before a slot is taken.
        if (args.worktree !== undefined && args.worktree !== "") assertWorktreeName(args.worktree);
        if (args.worktree !== undefined) await checkWorktreeRepository(cwd, roots);
        // A named session's earlier worktree is held to the same rule: it checks out the whole repository.
        else if (args.session !== undefined) await checkSessionWorktree(seatHome(), cwd, args.session, roots);
        // Taken after every check of the call and given back when its turn ended: a refused call holds none.
        const releaseSlot = context.runSlots.take();
        const progress = heartbeat(progressSender(extra), options.heartbeatMs);
        const signal = eitherSignal(extra.signal, context.closing);
        const outcome = await context
          .track(
            runMcpTurn({
              prompt: args.prompt,
              agent,
              cwd,
              policy,
              approvalTimeoutMs: options.approvalTimeoutMs,
              ...(model ? { model } : {}),
              ...(args.session !== undefined ? { session: args.session } : {}),
              ...(args.worktree !== undefined ? { worktree: { name: args.worktree } } : {}),
              ...(args.maxTokens !== undefined || args.maxCostUsd !== undefined
                ? {
                    budget: {
                      ...(args.maxTokens !== undefined ? { maxTokens: args.maxTokens } : {}),
                      ...(args.maxCostUsd !== undefined ? { maxCostUsd: args.maxCostUsd } : {}),
                    },
                  }
                : {}),
              ...(options.grokCliBinaryPath ? { grokCliBinaryPath: options.grokCliBinaryPath } : {}),
              ...(options.notify ? { notify: options.notify } : {}),
              ...(options.turnTimeoutMs ? { turnTimeoutMs: options.turnTimeoutMs } : {}),
              ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
              signal: signal.signal,
              onEvent: (event) => reportProgress(progress, event),
            }),
          )
          .finally(() => {
            progress.stop();
            signal.release();
            releaseSlot();
          });
        const { result, diagnostics } = outcome;
        const usage = Object.fromEntries(
          Object.entries(result.usage ?? {}).filter((e): e is [string, number] => typeof e[1] === "number"),
        );
        const structured = {
          text: result.text,
          stopReason: result.stopReason ?? null,
          promptId: result.promptId,
          agent,
          cwd,
          usage,
          diagnostics,
          ...(outcome.session ? { session: outcome.session } : {}),
          ...(outcome.worktree ? { worktree: outcome.worktree } : {}),
        };
        // A turn that ended abnormally (no stop reason, or a coded stop such as a timeout) is a tool error that
        // still carries everything the turn produced; an answered turn with a note (a denial) is not.
        const failed =
          result.stopReason === undefined || (result.stopReason !== "end_turn" && result.diagnostic !== undefined);
        const notes = diagnostics
          .map((d) => `\n! ${d.message}${d.message.includes(`[${d.code}]`) ? "" : ` [${d.code}]`}`)
          .join("");
        const tail = failed || notes ? `(stop reason: ${result.stopReason ?? "none"})${notes}` : "";
        return toolResult(structured, [result.text, tail].filter((part) => part !== "").join("\n\n"), failed);
      }),
  );
}

/**
 * A signal aborted by either input. Not AbortSignal.any: its result is held only weakly by its sources, and a
 * turn's listener on it must not be collected while the turn waits. release() takes its listeners off both
 * inputs once the turn ended: the server's `closing` signal lives as long as the server, and a listener left on
 * it per call would pile up (and, past ten, print a MaxListenersExceededWarning on stderr).
 */
function eitherSignal(a: AbortSignal, b: AbortSignal): { signal: AbortSignal; release(): void } {
  const both = new AbortController();
  const abort = () => both.abort();
  if (a.aborted || b.aborted) both.abort();
  a.addEventListener("abort", abort, { once: true });
  b.addEventListener("abort", abort, { once: true });
  return {
    signal: both.signal,
    release() {
      a.removeEventListener("abort", abort);
      b.removeEventListener("abort", abort);
    },
  };
}

/**
 * A progress sender that also says "still working" when nothing was sent for `everyMs`: a client that resets
 * its tool-call timeout on progress then never gives up on a long, quiet turn. stop() ends the beat.
 */
function heartbeat(send: ProgressSender, everyMs: number | undefined): ProgressSender & { stop(): void } {
  const started = Date.now();
  let last = started;
  const beat = (message: string, event?: unknown) => {
    last = Date.now();
    send(message, event);
  };
  const timer = everyMs
    ? setInterval(
        () => {
          if (Date.now() - last >= everyMs)
            beat(`still working (${Math.round((Date.now() - started) / 1000)} s)`, {
              type: "heartbeat",
              elapsedMs: Date.now() - started,
            });
        },
        Math.max(100, Math.floor(everyMs / 2)),
      )
    : undefined;
  timer?.unref();
  return Object.assign(beat, { stop: () => clearInterval(timer) });
}

/** One progress notification per event a host may want to watch; other events are not sent. */
function reportProgress(progress: ProgressSender, event: SeatEvent): void {
  switch (event.type) {
    case "text":
      return progress(event.text, { type: "text", text: event.text });
    case "tool_start":
      return progress(
        `tool: ${event.toolName && event.toolName !== event.title ? `${event.toolName}: ` : ""}${event.title}`,
        {
          type: "tool_start",
          toolCallId: event.toolCallId,
          title: event.title,
          ...(event.kind ? { kind: event.kind } : {}),
          ...(event.toolName ? { toolName: event.toolName } : {}),
        },
      );
    case "tool_end":
      return progress(`tool ${event.status}: ${event.title ?? event.toolCallId}`, {
        type: "tool_end",
        toolCallId: event.toolCallId,
        status: event.status,
        ...(event.title ? { title: event.title } : {}),
      });
    case "permission":
      return progress(`permission ${event.category}: ${event.decision}`, event);
    case "approval_asked":
      return progress(
        `approval needed (${event.approval.category}): ${event.approval.title} — seat approve ${event.approval.id} | seat deny ${event.approval.id}`,
        event,
      );
    case "approval_answered":
      return progress(`approval ${event.id}: ${event.decision} (${event.via})`, event);
    case "diagnostic":
      return progress(`! ${event.diagnostic.message}`, event);
    case "retry":
      return progress(
        `the agent is retrying its model request: ${event.reason} (attempt ${event.attempt}/${event.max})`,
        event,
      );
    default:
      return undefined;
  }
}
