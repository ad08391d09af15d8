/*
 * Settling a fleet job's turn once it returned: what it spent, how it ended, and its work.
 * Owns: settling the budget reservation to what the turn spent, the job's status from the turn's result (a held
 *   approval nobody answered is a failure, not a cancel), the fields and event of the job's end, and the job
 *   worktree's commit (pushed only for a completed turn, after the turn closed and its agent is gone).
 * Does not own: recording the end (job-end.ts), the ledger and the worktree themselves (usage/, worktrees/).
 */
import type { TurnResult } from "../acp/index.js";
import { isSeatError, messageOf } from "../errors.js";
import type { SupervisedTurn } from "../turn/index.js";
import { sideCallTokens } from "../metering/index.js";
import { finishJobWorktree } from "../worktrees/index.js";
import { settleBudget, type FleetBudget } from "./budget.js";
import type { JobRun } from "./job-run.js";
import type { JobSpec } from "./job-spec.js";
import type { JobStatus } from "./state.js";

/** How a sent turn ends the job: its status, and the fields and event its end records. */
export interface SettledTurn {
  status: JobStatus;
  fields: Record<string, string | number>;
  event: Record<string, unknown>;
}

/** Settles job `jr`'s turn (sent with `promptId`; still open unless the job has a worktree, which closes it first). */
export async function settleTurn(
  jr: JobRun,
  spec: JobSpec,
  promptId: string,
  turn: SupervisedTurn,
  result: TurnResult,
): Promise<SettledTurn> {
  const { ctx, id, reservation } = jr;
  if (reservation && ctx.budget)
    await settleBudget(jr.redis, reservation, spentOf(ctx.budget, result)).catch((error: unknown) =>
      ctx.log(`job ${id}: its fleet budget reservation could not be settled: ${messageOf(error)}`),
    );
  await jr.stream.settled();
  // grok ends a turn whose tool was denied as `cancelled`; a held approval nobody answered is a failure of the
  // job (APPROVAL_TIMEOUT, exit 124), not a cancel anyone asked for.
  const timedOut = result.diagnostic?.code === "APPROVAL_TIMEOUT" && !jr.entry.cancelled;
  let status: JobStatus = timedOut
    ? "failed"
    : result.stopReason === "cancelled" || jr.entry.cancelled
      ? "cancelled"
      : result.diagnostic
        ? "failed"
        : "completed";
  // The turn is in this host's ledger already: a fresh session's under the job (turn/), a named one's under its name.
  // The turn's usage as the agent reported it (absent = unknown, never zero): the job's ledger entry.
  const usage: Record<string, string> = {
    ...(result.usage ? { usage: JSON.stringify(result.usage) } : {}),
    ...(result.sideCalls?.length ? { side_calls: JSON.stringify(result.sideCalls) } : {}),
  };
  const fields: Record<string, string | number> = {
    ...(result.stopReason ? { stop_reason: result.stopReason } : {}),
    ...(result.diagnostic ? { code: result.diagnostic.code, message: result.diagnostic.message } : {}),
    ...usage,
  };
  if (jr.tree) {
    // The agent is gone before its work is committed; only a completed turn is pushed (one atomic push).
    await turn.close();
    const finishing = jr.tree;
    jr.tree = undefined;
    try {
      const out = await finishJobWorktree(
        finishing,
        { promptId, prompt: spec.prompt },
        { push: status === "completed" },
      );
      Object.assign(fields, { branch: out.branch, commit: out.commit, diffstat: out.diffstat });
    } catch (error) {
      status = "failed";
      Object.assign(fields, {
        code: isSeatError(error) ? error.code : "WORKTREE_GIT_FAILED",
        message: messageOf(error),
      });
    }
  }
  // A worktree job disposed its session above: that dispose's events reach the stream before the end (and its done).
  await jr.stream.settled();
  const event = {
    ...(result.stopReason ? { stopReason: result.stopReason } : {}),
    ...(result.diagnostic ? { code: result.diagnostic.code } : {}),
    ...(result.usage ? { usage: result.usage } : {}),
  };
  return { status, fields, event };
}

/** What a turn spent in the fleet budget's unit, or undefined when the agent did not report it. */
function spentOf(budget: FleetBudget, result: TurnResult): number | undefined {
  const u = result.usage;
  if (budget.unit === "usd") return u?.costUsdTicks === undefined ? undefined : u.costUsdTicks / 1e10;
  // The calls grok made on its own (turn summary, titles) are spent too.
  const sides = result.sideCalls?.length ? sideCallTokens(result.sideCalls) : undefined;
  if (u?.totalTokens !== undefined) return u.totalTokens + (sides ?? 0);
  if (u?.inputTokens === undefined && u?.outputTokens === undefined) return sides;
  return (u.inputTokens ?? 0) + (u.outputTokens ?? 0) + (sides ?? 0);
}
