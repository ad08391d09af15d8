/*
 * The approval tools of `seat mcp`: `approvals` (list), `approve`, `deny` — the host answers the permission
 *   requests its own delegated work holds.
 * Owns: their schemas, and which approvals a host may see and answer: those held by turns this server runs (the
 *   `run` tool's sessions, in this process) and, with --redis, those of fleet jobs this server submitted.
 * Does not own: holding or applying answers (approvals/, fleet/approvals.ts: first answer wins, coded refusals).
 * Invariant: a host never reaches an approval it did not cause — a person's own `seat run` in a terminal, another
 *   server's turns, other submitters' jobs are neither listed nor answerable (APPROVAL_NOT_FOUND, as for an id
 *   that does not exist). Answering a held call is within the server's policy (`ask` means someone decides);
 *   nothing here widens it. What a host is shown is exact: the listing's structured content and text
 *   carry each target whole and value-masked only (maskView, never redact()'s shapes), with its digest; a text
 *   line cut for length says so unless `full` is asked; approve / deny take the digest and refuse another target.
 */
import { z } from "zod";
import { SeatError } from "../../errors.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { answerApproval, listApprovals } from "../../supervision/index.js";
import {
  assertApprovalId,
  assertDigest,
  maskView,
  processApprovals,
  queueFor,
  shortTarget,
  visibleText,
  targetText,
  type PendingApproval,
} from "../../approvals/index.js";
import type { ToolContext } from "../context.js";
import { guarded, toolResult } from "../results.js";

/** Fleet jobs this server process submitted (their approvals are this host's to answer). */
const submittedJobs = new Set<string>();
/** Approval ids of those jobs this server has listed (a later answer to a settled one hears why, not NOT_FOUND). */
const seenFleetApprovals = new Set<string>();

/** Records a job this server submitted (the fleet tools call it). */
export function noteSubmittedJob(id: string): void {
  submittedJobs.add(id);
}

const APPROVAL = z.object({
  id: z.string(),
  category: z.string(),
  title: z.string(),
  target: z.object({
    command: z.string().optional(),
    paths: z.array(z.string()).optional(),
    toolName: z.string().optional(),
  }),
  // Optional only for a view published by an older worker of a mixed fleet, which had none.
  digest: z.string().optional(),
  masked: z.array(z.string()).optional(),
  owner: z.object({
    kind: z.string(),
    id: z.string(),
    name: z.string().optional(),
    pid: z.number().optional(),
    host: z.string().optional(),
  }),
  askedAt: z.string(),
  deadline: z.string(),
});

const ID = z
  .string()
  .describe("The approval's id (ap_ followed by 16 hex digits), from the approvals tool or a run's progress.");
const DIGEST = z
  .string()
  .optional()
  .describe(
    "The approval's digest as the approvals tool listed it: the answer lands only if the held call's exact target has this digest (else APPROVAL_TARGET_CHANGED, nothing runs).",
  );

/** The approvals this server's host may answer now. */
async function visibleApprovals(context: ToolContext): Promise<PendingApproval[]> {
  const own = processApprovals.list();
  if (context.options.redisUrl === undefined || submittedJobs.size === 0) return own;
  const all = await listApprovals({ redis: context.options.redisUrl });
  const jobs = all.filter((a) => a.owner.kind === "job" && submittedJobs.has(a.owner.id));
  for (const a of jobs) seenFleetApprovals.add(a.id);
  return [...own, ...jobs];
}

function line(a: PendingApproval, full: boolean): string {
  const what = full ? visibleText(targetText(a)) : shortTarget(a, "call approvals with full: true to see it whole");
  const owner =
    a.owner.kind === "job" ? `job ${a.owner.id}` : a.owner.name ? `session ${a.owner.name}` : `run ${a.owner.id}`;
  const masked = a.masked?.length ? ` masked: [${a.masked.join(", ")}]` : "";
  return `${a.id} ${a.category} (${owner}, until ${a.deadline}) digest ${a.digest ?? "(none: held by an older version)"}${masked} — ${what}`;
}

/** The listing as a tool result, exact: maskView() masked only known secret values, so toolResult's redact() is not run over it. */
function listingResult(approvals: PendingApproval[], full: boolean): CallToolResult {
  const shown = approvals.map(maskView);
  return {
    content: [
      { type: "text", text: shown.length === 0 ? "no pending approvals" : shown.map((a) => line(a, full)).join("\n") },
    ],
    structuredContent: { approvals: shown },
  };
}

/** Registers `approvals`, `approve` and `deny`. */
export function registerApprovalTools(context: ToolContext): void {
  const { server } = context;
  const by = () => {
    const client = server.server.getClientVersion();
    return `mcp host ${client?.name ?? "unknown"} (seat mcp pid ${process.pid})`;
  };
  /** Answers `id` when this host may see it; the holder decides first-wins and refuses with its code. */
  const answer = async (
    id: string,
    decision: { decision: "allow" | "deny"; always?: boolean; message?: string; digest?: string },
  ) => {
    assertApprovalId(id);
    if (decision.digest !== undefined) assertDigest(decision.digest);
    // This process's own queues know their approvals, settled ones too (a late answer hears ALREADY_ANSWERED or
    // EXPIRED); a fleet approval must be one of a job this server submitted.
    if (queueFor(id) !== undefined) return answerApproval(id, { ...decision, by: by() });
    if (!seenFleetApprovals.has(id)) await visibleApprovals(context);
    if (!seenFleetApprovals.has(id))
      throw new SeatError(
        "APPROVAL_NOT_FOUND",
        `No approval ${id} is held by a turn this server runs or a job it submitted. List them with the approvals tool.`,
        { context: { id } },
      );
    return answerApproval(id, { ...decision, by: by() }, { redis: context.options.redisUrl! });
  };
  context.registerTool(
    "approvals",
    {
      title: "Pending approvals",
      description:
        "The permission requests held for a decision by turns this server runs (and, with --redis, by jobs it submitted): id, category, title, what the call would touch exactly as it will run (only known secret values masked, named in masked), the digest of that exact target, owner, deadline. The structured content carries every target whole; a text line longer than 200 characters is cut and says so unless full is true. Answer one with approve or deny, passing its digest.",
      inputSchema: { full: z.boolean().optional().describe("Show every target whole in the text too.") },
      outputSchema: { approvals: z.array(APPROVAL) },
    },
    (args) => guarded(async () => listingResult(await visibleApprovals(context), args.full === true)),
  );
  context.registerTool(
    "approve",
    {
      title: "Allow a held call",
      description:
        "Allow one held permission request (the first answer wins; a later one is refused naming it). always: allow this kind of call for the rest of that session.",
      inputSchema: { id: ID, always: z.boolean().optional(), digest: DIGEST },
      outputSchema: { id: z.string(), decision: z.string() },
    },
    (args) =>
      guarded(async () => {
        const result = await answer(args.id, {
          decision: "allow",
          ...(args.always ? { always: true } : {}),
          ...(args.digest !== undefined ? { digest: args.digest } : {}),
        });
        return toolResult(result, `${result.id}: allowed`);
      }),
  );
  context.registerTool(
    "deny",
    {
      title: "Deny a held call",
      description:
        "Deny one held permission request (the first answer wins). message: a note for the log; the agent is not sent it.",
      inputSchema: { id: ID, message: z.string().max(1_000).optional(), digest: DIGEST },
      outputSchema: { id: z.string(), decision: z.string() },
    },
    (args) =>
      guarded(async () => {
        const result = await answer(args.id, {
          decision: "deny",
          ...(args.message !== undefined ? { message: args.message } : {}),
          ...(args.digest !== undefined ? { digest: args.digest } : {}),
        });
        return toolResult(result, `${result.id}: denied`);
      }),
  );
}
