/*
 * The named-session tools of `seat mcp`: `sessions` (list), `session_history` (the recorded turns), `cancel` (the
 *   running turn of a named session), and the resource template `seat://sessions/{name}/history`.
 * Owns: their schemas, and which sessions a caller may see — only those whose directory lies under a root the
 *   call may use (a global session counts by the directory it was created in).
 * Does not own: the journal, lookups, leases or the cancel proof (sessions/ does all of that, as for
 *   `seat sessions` and `seat cancel`).
 */
import { z } from "zod";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SeatError } from "../../errors.js";
import { cancelNamed, lookup, openStore, summarize, type SessionSummary } from "../../sessions/index.js";
import type { SessionRecord, SessionStore, TurnRecord } from "../../session-store/index.js";
import { assertSessionName } from "../../names/index.js";
import { seatHome } from "../../home/index.js";
import { isUnder, realDirectory, resolveCwd } from "../boundaries.js";
import type { ToolContext } from "../context.js";
import { guarded, toolResult } from "../results.js";
import { redact } from "../../internal/redact.js";

const SUMMARY = z.object({
  name: z.string(),
  scope: z.string(),
  agent: z.string(),
  cwd: z.string(),
  agentSessionId: z.string().nullable(),
  model: z.string().nullable(),
  state: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string(),
  turns: z.number(),
  interruptedTurns: z.number(),
  usage: z.record(z.string(), z.number()),
  lastStopReason: z.string().nullable(),
  running: z.object({ pid: z.number(), since: z.string() }).nullable(),
});

const TURN = z.object({
  promptId: z.string(),
  prompt: z.string(),
  state: z.string(),
  stopReason: z.string().nullable(),
  usage: z.record(z.string(), z.number()).nullable(),
  text: z.string(),
  errorCode: z.string().nullable(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
});

const NAME = z.string().describe("The session's name (as given to run's `session`).");
const CWD = z
  .string()
  .optional()
  .describe(
    "The directory whose names to use (absolute, under a root); default the first root. A global name is found from any directory.",
  );

/** True when a session's directory lies under one of `roots`. */
function withinRoots(record: SessionRecord, roots: readonly string[]): boolean {
  const real = realDirectory(record.cwd) ?? record.cwd;
  return roots.some((root) => isUnder(real, root));
}

/** Opens the journal for one call and closes it after. */
async function withStore<T>(body: (store: SessionStore) => Promise<T> | T): Promise<T> {
  const store = openStore(seatHome());
  try {
    return await body(store);
  } finally {
    store.close();
  }
}

/** Finds a session the call may see: SESSION_NAME_INVALID, SESSION_NOT_FOUND (also for one outside the roots). */
async function findVisible(
  context: ToolContext,
  store: SessionStore,
  name: string,
  cwd: string | undefined,
): Promise<SessionRecord> {
  assertSessionName(name);
  const roots = await context.roots();
  const where = resolveCwd(cwd, roots);
  const record = lookup(store, name, { cwd: where });
  // A session outside the roots is not this caller's to see: the same answer as one that does not exist.
  if (!withinRoots(record, roots))
    throw new SeatError(
      "SESSION_NOT_FOUND",
      `No session named "${name}" for ${where} (or global) under this server's roots.`,
      { context: { name, cwd: where } },
    );
  return record;
}

function plainSummary(s: SessionSummary): z.infer<typeof SUMMARY> {
  return {
    name: s.name,
    scope: s.scope,
    agent: s.agent,
    cwd: s.cwd,
    agentSessionId: s.agentSessionId,
    model: s.model,
    state: s.state,
    createdAt: s.createdAt,
    lastUsedAt: s.lastUsedAt,
    turns: s.turns,
    interruptedTurns: s.interruptedTurns,
    usage: s.usage,
    lastStopReason: s.lastStopReason,
    running: s.running,
  };
}

function historyText(name: string, turns: TurnRecord[]): string {
  if (turns.length === 0) return `${name}: no turns recorded`;
  return turns
    .map(
      (t) =>
        `── ${t.startedAt} ${t.promptId} (${t.state}${t.stopReason ? `, ${t.stopReason}` : ""})\n> ${t.prompt}\n${t.text}`,
    )
    .join("\n");
}

/** Registers `sessions`, `session_history`, `cancel` and the history resource template. */
export function registerSessionTools(context: ToolContext): void {
  const { server } = context;
  context.registerTool(
    "sessions",
    {
      title: "List named sessions",
      description:
        "The named sessions under this server's roots: name, directory, agent, turns, usage totals, last stop reason, and the process running a turn now.",
      inputSchema: {},
      outputSchema: { sessions: z.array(SUMMARY) },
    },
    () =>
      guarded(async () => {
        const roots = await context.roots();
        const sessions = await withStore((store) =>
          store
            .list()
            .filter((r) => withinRoots(r, roots))
            .map((r) => plainSummary(summarize(store, r))),
        );
        const text =
          sessions.length === 0
            ? "no named sessions (run with `session` creates one)"
            : sessions
                .map(
                  (s) =>
                    `${s.name} ${s.running ? `running (pid ${s.running.pid})` : s.state} ${s.turns} turns, last used ${s.lastUsedAt}, ${s.scope === "global" ? "global" : s.cwd}`,
                )
                .join("\n");
        return toolResult({ sessions }, text);
      }),
  );
  context.registerTool(
    "session_history",
    {
      title: "A named session's history",
      description: "The recorded prompts and answers of a named session, oldest first.",
      inputSchema: {
        name: NAME,
        cwd: CWD,
        limit: z.number().int().min(1).max(1000).optional().describe("Only the newest N turns."),
      },
      outputSchema: { name: z.string(), turns: z.array(TURN) },
    },
    (args) =>
      guarded(async () => {
        const turns = await withStore(async (store) =>
          store.turns((await findVisible(context, store, args.name, args.cwd)).row, args.limit),
        );
        return toolResult({ name: args.name, turns }, historyText(args.name, turns));
      }),
  );
  context.registerTool(
    "cancel",
    {
      title: "Cancel a named session's turn",
      description:
        "Cancel the turn a named session is running (from this server or any other process), after proving the process holding it. SESSION_IDLE when no turn runs.",
      inputSchema: { name: NAME, cwd: CWD },
      outputSchema: { name: z.string(), holderPid: z.number() },
    },
    (args) =>
      guarded(async () => {
        const { holderPid } = await withStore(async (store) =>
          cancelNamed(store, await findVisible(context, store, args.name, args.cwd)),
        );
        return toolResult({ name: args.name, holderPid }, `${args.name}: cancel sent to pid ${holderPid}`);
      }),
  );
  server.registerResource(
    "session-history",
    new ResourceTemplate("seat://sessions/{name}/history", {
      list: async () => {
        const roots = await context.roots();
        const names = await withStore((store) =>
          store
            .list()
            .filter((r) => withinRoots(r, roots))
            .map((r) => r.name),
        );
        return {
          resources: [...new Set(names)].map((name) => ({
            uri: `seat://sessions/${encodeURIComponent(name)}/history`,
            name: `${name} history`,
            mimeType: "application/json",
          })),
        };
      },
    }),
    {
      title: "A named session's history",
      description: "The recorded turns of a named session (in the first root's directory, or global), as JSON.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const name = decodeURIComponent(String(variables.name));
      const turns = await withStore(async (store) =>
        store.turns((await findVisible(context, store, name, undefined)).row),
      );
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(redact({ name, turns })) }],
      };
    },
  );
}
