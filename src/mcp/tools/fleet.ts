/*
 * The fleet tools of `seat mcp` (served only with --redis): `submit` (queue a turn, answer its job id at once),
 *   `job` (a job's record now), `jobs` (the newest jobs), and the resource template `seat://jobs/{id}/events`.
 * Owns: their schemas; the job's policy (the server's, narrowed by the caller, exactly as `run`); the job's cwd
 *   (under a root: by real path when it exists on this host, else by its normalized absolute path — a worker may
 *   be another host — with the part that exists here resolved, so no symlink leads out); one fleet connection
 *   for the server's life, closed at shutdown.
 * Does not own: queueing, job state or events (fleet/, as for `seat submit` and `seat jobs`).
 * Long work: submit answers at once, so no client's tool-call timeout applies to the turn; poll `job` or read
 *   the events resource for its progress and end.
 */
import { realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, normalize } from "node:path";
import { z } from "zod";
import { ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SeatError } from "../../errors.js";
import { connectFleet, type CursorEvent, type FleetClient, type JobRecord } from "../../fleet/index.js";
import { PERMISSION_CATEGORIES } from "../../permissions/index.js";
import { redact } from "../../internal/redact.js";
import { checkTurnRequest, isUnder, realDirectory, resolveCwd } from "../boundaries.js";
import type { ToolContext } from "../context.js";
import { noteSubmittedJob } from "./approvals.js";
import { guarded, toolResult } from "../results.js";

const category = z.enum(PERMISSION_CATEGORIES);
const JOB_ID = /^[A-Za-z0-9._-]{1,128}$/;
/** How long the events resource waits for more before it answers with what the job has so far (ms). */
const EVENTS_QUIET_MS = 300;

/** A job record as the tools return it (the fields a host needs; the rest stays in `seat jobs show`). */
const JOB = z.object({
  id: z.string(),
  status: z.string(),
  uncertain: z
    .boolean()
    .describe(
      "True when the job's worker died after the prompt was sent: it may have reached the model; it is never re-sent.",
    ),
  agent: z.string().nullable(),
  host: z.string().nullable(),
  session: z.string().nullable(),
  stopReason: z.string().nullable(),
  code: z.string().nullable(),
  message: z.string().nullable(),
  submittedAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  usage: z.record(z.string(), z.number()).nullable(),
});

function iso(ms: number | undefined): string | null {
  return ms === undefined ? null : new Date(ms).toISOString();
}

function jobOf(record: JobRecord): z.infer<typeof JOB> {
  const usage = record.usage as Record<string, unknown> | undefined;
  return {
    id: record.id,
    status: record.status,
    uncertain: record.status === "uncertain",
    agent: record.agent ?? null,
    host: record.host ?? null,
    session: record.session ?? null,
    stopReason: record.stopReason ?? null,
    code: record.code ?? null,
    message: record.message ?? null,
    submittedAt: iso(record.submittedAt),
    endedAt: iso(record.endedAt),
    usage: usage
      ? Object.fromEntries(Object.entries(usage).filter((e): e is [string, number] => typeof e[1] === "number"))
      : null,
  };
}

function checkJobId(id: string): string {
  if (!JOB_ID.test(id))
    throw new SeatError(
      "FLEET_JOB_INVALID",
      `A job id may only use [A-Za-z0-9._-] (1–128 characters), not ${JSON.stringify(id.slice(0, 140))}.`,
      { context: { id: id.slice(0, 140) } },
    );
  return id;
}

/**
 * The job's directory on the worker's host: under a root by real path when it exists here, else by its
 * normalized absolute path (no "..", no relative path); default the first root.
 */
function jobCwd(requested: string | undefined, roots: readonly string[]): string {
  if (requested === undefined || realDirectory(requested) !== undefined) return resolveCwd(requested, roots);
  if (
    !isAbsolute(requested) ||
    normalize(requested) !== requested.replace(/\/+$/, "") ||
    requested.split("/").includes("..")
  ) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `cwd ${JSON.stringify(requested)} is not a plain absolute path; give an absolute directory under one of the roots (${roots.join(", ")}).`,
      { context: { cwd: requested } },
    );
  }
  const resolved = realAncestorPath(requested);
  if (!roots.some((root) => isUnder(requested, root) && isUnder(resolved, root))) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `cwd ${requested}${resolved === requested ? "" : ` (really ${resolved})`} lies outside every root this server may use (${roots.join(", ")}).`,
      { context: { cwd: requested, realPath: resolved, roots } },
    );
  }
  return requested;
}

/**
 * `path` with its deepest ancestor that exists here replaced by that ancestor's real path: a directory not made
 * yet under a symlink that leads out of the roots (ROOT/link/new, link → elsewhere) is judged where it would be.
 */
function realAncestorPath(path: string): string {
  const tail: string[] = [];
  for (let head = path; ; head = dirname(head)) {
    try {
      return join(realpathSync(head), ...tail.reverse());
    } catch {
      if (dirname(head) === head) return path;
      tail.push(basename(head));
    }
  }
}

/** Registers `submit`, `job`, `jobs` and the job events resource; only when the server has --redis. */
export function registerFleetTools(context: ToolContext): void {
  const { server, options } = context;
  const url = options.redisUrl!;
  let fleet: Promise<FleetClient> | undefined;
  // One connection for the server's life, made on first use: a server whose Redis is down still starts.
  const client = (): Promise<FleetClient> => {
    fleet ??= connectFleet(url).catch((error: unknown) => {
      fleet = undefined;
      throw error;
    });
    return fleet;
  };
  context.onShutdown(async () => {
    if (fleet) await (await fleet.catch(() => undefined))?.close();
  });

  context.registerTool(
    "submit",
    {
      title: "Queue a turn for the fleet",
      description:
        "Queue one headless turn for the fleet's workers and answer its job id at once (no tool-call timeout applies to the turn). Follow it with `job` or the seat://jobs/{id}/events resource. Use it for work that may run longer than the client waits for a tool call.",
      inputSchema: {
        prompt: z.string().min(1).describe("The prompt for the turn."),
        agent: z
          .string()
          .optional()
          .describe("The ACP agent (one the server allows with --agents; default its first)."),
        model: z.string().optional(),
        session: z.string().optional().describe("A named session to continue (runs on the host that owns it)."),
        cwd: z
          .string()
          .optional()
          .describe("Absolute directory on the worker's host, under a root; default the first root."),
        allow: z
          .array(category)
          .optional()
          .describe("Narrow the server's policy: only these categories may be allowed."),
        block: z.array(category).optional().describe("Narrow the server's policy: refuse these categories."),
      },
      outputSchema: { id: z.string(), status: z.string() },
    },
    (args) =>
      guarded(async () => {
        const { agent, model, policy } = checkTurnRequest(args, options);
        policy.approvalTimeoutMs = options.approvalTimeoutMs;
        const cwd = jobCwd(args.cwd, await context.roots());
        const handle = await (await client()).enqueue({
          prompt: args.prompt,
          policy,
          agent,
          cwd,
          ...(model ? { model } : {}),
          ...(args.session !== undefined ? { session: args.session } : {}),
          ...(options.turnTimeoutMs ? { turnTimeoutMs: options.turnTimeoutMs } : {}),
          ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
        });
        noteSubmittedJob(handle.id);
        return toolResult(
          { id: handle.id, status: "waiting" },
          `queued as job ${handle.id} (follow it with the job tool or seat://jobs/${handle.id}/events)`,
        );
      }),
  );
  context.registerTool(
    "job",
    {
      title: "A fleet job's state",
      description:
        "A fleet job's record now: status (waiting, active, dispatched, completed, failed, cancelled, uncertain), host, stop reason, code, usage.",
      inputSchema: { id: z.string().describe("The job id submit answered.") },
      outputSchema: { job: JOB },
    },
    (args) =>
      guarded(async () => {
        const record = await (await client()).job(checkJobId(args.id)).state();
        const job = jobOf(record);
        return toolResult(
          { job },
          `${job.id}: ${job.status}${job.code ? ` (${job.code})` : ""}${job.stopReason ? `, ${job.stopReason}` : ""}`,
        );
      }),
  );
  context.registerTool(
    "jobs",
    {
      title: "The fleet's jobs",
      description: "The fleet's newest jobs, newest first.",
      inputSchema: { limit: z.number().int().min(1).max(500).optional().describe("How many (default 50).") },
      outputSchema: { jobs: z.array(JOB) },
    },
    (args) =>
      guarded(async () => {
        const jobs = (await (await client()).list(args.limit ?? 50)).map(jobOf);
        return toolResult(
          { jobs },
          jobs.length === 0 ? "no jobs" : jobs.map((j) => `${j.id} ${j.status} ${j.host ?? "-"}`).join("\n"),
        );
      }),
  );
  server.registerResource(
    "job-events",
    new ResourceTemplate("seat://jobs/{id}/events", { list: undefined }),
    {
      title: "A fleet job's events",
      description:
        "A fleet job's events so far (the same events as seat run --json, plus job transitions), each with its cursor, as JSON.",
      mimeType: "application/json",
    },
    async (uri, variables) => {
      const id = checkJobId(decodeURIComponent(String(variables.id)));
      const events = await eventsSoFar(await client(), id);
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(redact({ id, events })) }],
      };
    },
  );
}

/** The events a job has now: read until the job's stream ends or stays quiet for EVENTS_QUIET_MS. */
async function eventsSoFar(fleet: FleetClient, id: string): Promise<CursorEvent[]> {
  const stop = new AbortController();
  const events: CursorEvent[] = [];
  let quiet = setTimeout(() => stop.abort(), EVENTS_QUIET_MS);
  try {
    for await (const item of fleet.job(id).events({ signal: stop.signal, pollMs: 100 })) {
      events.push(item);
      clearTimeout(quiet);
      quiet = setTimeout(() => stop.abort(), EVENTS_QUIET_MS);
    }
  } finally {
    clearTimeout(quiet);
  }
  return events;
}
