/*
 * The spend and worktree tools of `seat mcp`: `usage` (the ledger's totals, as `seat usage`), and `diff`,
 *   `merge`, `discard` on a seat worktree (as `seat diff/merge/discard`).
 * Owns: their schemas, and the boundary on worktrees: the repository a worktree belongs to (where `merge` writes)
 *   must lie under a root this call may use, not only the `cwd` it was found from.
 * Does not own: the ledger (usage/) or git (worktrees/); both behave exactly as they do for the CLI.
 * Invariant: no tool takes a file path to read (no price file): a caller never makes the server read a file;
 *   costs are the reported ones.
 */
import { z } from "zod";
import { SeatError } from "../../errors.js";
import { journalPath, seatHome } from "../../home/index.js";
import { queryUsage, USAGE_GROUPINGS, type UsageGrouping } from "../../usage/index.js";
import {
  diffWorktree,
  discardWorktree,
  findWorktree,
  mergeWorktree,
  resolveRepository,
  type WorktreeRecord,
} from "../../worktrees/index.js";
import { assertWorktreeName } from "../../names/index.js";
import { isUnder, realDirectory, resolveCwd } from "../boundaries.js";
import type { ToolContext } from "../context.js";
import { guarded, toolResult } from "../results.js";

const TOTALS = z.object({
  key: z.string(),
  turns: z.number(),
  modelCalls: z.number().nullable(),
  inputTokens: z.number().nullable(),
  outputTokens: z.number().nullable(),
  cachedTokens: z.number().nullable(),
  reasoningTokens: z.number().nullable(),
  unreportedTurns: z.number(),
  costUsd: z.number().nullable(),
  costSource: z.string(),
  unpricedTurns: z.number(),
});

const NAME = z.string().describe("The seat worktree's name (branch seat/NAME), as `seat worktrees` lists it.");
const CWD = z
  .string()
  .optional()
  .describe("A directory of the repository (absolute, under a root); default the first root.");

/**
 * The worktree `name` of the repository at the call's cwd, refused unless that repository lies under a root, and
 * `where`, the cwd it was found from (whose worktree `merge` lands in).
 */
async function findInRoots(
  context: ToolContext,
  name: string,
  cwd: string | undefined,
): Promise<{ record: WorktreeRecord; where: string }> {
  assertWorktreeName(name);
  const roots = await context.roots();
  const where = resolveCwd(cwd, roots);
  const record = await findWorktree(seatHome(), where, name);
  const repository = realDirectory(record.repository) ?? record.repository;
  if (!roots.some((root) => isUnder(repository, root))) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `The repository ${repository} of worktree "${name}" is not under this server's roots; its worktrees are not this caller's to review or merge.`,
      { context: { name, repository } },
    );
  }
  return { record, where };
}

/** The top level of the worktree containing `where` (where `merge` writes), refused unless it lies under a root. */
async function mergeTargetInRoots(context: ToolContext, name: string, where: string): Promise<string> {
  const roots = await context.roots();
  const { root } = await resolveRepository(where);
  if (!roots.some((r) => isUnder(root, r))) {
    throw new SeatError(
      "MCP_CWD_OUTSIDE_ROOTS",
      `The worktree ${root} that merging "${name}" would write into is not under this server's roots.`,
      { context: { name, into: root } },
    );
  }
  return root;
}

/** Registers `usage`, `diff`, `merge` and `discard`. */
export function registerSpendTools(context: ToolContext): void {
  context.registerTool(
    "usage",
    {
      title: "Usage totals from the ledger",
      description:
        "Totals of the usage ledger (every turn of seat run, named sessions, fleet jobs run on this host, visible-seat deliveries), as `seat usage`: tokens, model calls and reported cost, unknown kept unknown (null), grouped by agent, model, session, job or day.",
      inputSchema: {
        since: z.string().optional().describe("From this date or time (YYYY-MM-DD = UTC midnight, or ISO 8601)."),
        until: z.string().optional().describe("Up to (not including) this date or time."),
        by: z
          .enum(USAGE_GROUPINGS as [UsageGrouping, ...UsageGrouping[]])
          .optional()
          .describe("Group by agent, model, session, job or day; default one total."),
      },
      outputSchema: { by: z.string(), totals: z.array(TOTALS) },
    },
    (args) =>
      guarded(async () => {
        const totals = queryUsage({
          journalFile: journalPath(seatHome()),
          ...(args.since ? { since: args.since } : {}),
          ...(args.until ? { until: args.until } : {}),
          ...(args.by ? { by: args.by } : {}),
        });
        const shown = (v: number | null) => (v === null ? "?" : String(v));
        const text =
          totals.length === 0
            ? "no usage recorded in that period"
            : totals
                .map(
                  (t) =>
                    `${t.key}: ${t.turns} turns, ${shown(t.inputTokens)} in, ${shown(t.outputTokens)} out, ${shown(t.modelCalls)} model calls, cost ${t.costUsd === null ? "unknown" : `$${t.costUsd} (${t.costSource})`}`,
                )
                .join("\n");
        return toolResult({ by: args.by ?? "all", totals }, text);
      }),
  );
  context.registerTool(
    "diff",
    {
      title: "A seat worktree's diff",
      description:
        "What a seat worktree's branch changed since it forked from the user's HEAD (as `seat diff NAME`); `stat` for a diffstat.",
      inputSchema: { name: NAME, cwd: CWD, stat: z.boolean().optional() },
      outputSchema: { name: z.string(), branch: z.string(), diff: z.string() },
    },
    (args) =>
      guarded(async () => {
        const { record, where } = await findInRoots(context, args.name, args.cwd);
        const diff = await diffWorktree(record, { stat: args.stat === true, from: where });
        return toolResult(
          { name: record.name, branch: record.branch, diff },
          diff === "" ? `${record.name}: no changes` : diff,
        );
      }),
  );
  context.registerTool(
    "merge",
    {
      title: "Merge a seat worktree",
      description:
        "Merge a seat worktree's branch into the branch checked out in the worktree containing `cwd` (as `seat merge NAME` run there), only when that worktree is clean; a conflict changes nothing and is WORKTREE_CONFLICT naming the files, and a merge that would write over an untracked or ignored path there is WORKTREE_MERGE_WOULD_OVERWRITE naming the paths.",
      inputSchema: {
        name: NAME,
        cwd: CWD,
        mode: z
          .enum(["merge", "squash", "ff-only", "rebase"])
          .optional()
          .describe("Default merge (a merge commit when needed)."),
        message: z.string().optional(),
      },
      outputSchema: {
        name: z.string(),
        mode: z.string(),
        into: z.string(),
        head: z.string(),
        files: z.array(z.string()),
      },
    },
    (args) =>
      guarded(async () => {
        const { record, where } = await findInRoots(context, args.name, args.cwd);
        const into = await mergeTargetInRoots(context, args.name, where);
        const result = await mergeWorktree(record, {
          home: seatHome(),
          into,
          ...(args.mode ? { mode: args.mode } : {}),
          ...(args.message !== undefined ? { message: args.message } : {}),
        });
        return toolResult(
          { name: record.name, ...result },
          `${record.name}: merged into ${result.into} (${result.mode}), head ${result.head.slice(0, 12)}; ${result.files.length} file(s) changed`,
        );
      }),
  );
  context.registerTool(
    "discard",
    {
      title: "Discard a seat worktree",
      description:
        "Remove a seat worktree, its branch seat/NAME and its record (as `seat discard NAME`); uncommitted changes are refused (WORKTREE_DIRTY) unless `force`; a worktree a seat works in is WORKTREE_BUSY.",
      inputSchema: { name: NAME, cwd: CWD, force: z.boolean().optional() },
      outputSchema: { name: z.string(), branch: z.string(), pruned: z.boolean() },
    },
    (args) =>
      guarded(async () => {
        const { record, where } = await findInRoots(context, args.name, args.cwd);
        const result = await discardWorktree(seatHome(), record, { force: args.force === true, from: where });
        return toolResult({ ...result }, `${result.name}: removed (worktree, ${result.branch} and its record)`);
      }),
  );
}
