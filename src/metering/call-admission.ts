/*
 * Call admission: whether the metering point lets a turn's next model call reach the model, given what the turn
 *   has spent at that point and the turn's budget.
 * Owns: what counts as spent at the metering point (every call of the turn whose usage was read in its answer,
 *   side calls included), the refusal of any call once that is over the budget, and the refusal of a side call
 *   whose input, estimated from its size, would take it over.
 * Does not own: the proxy (metering-point.ts), ending the turn (runtime/side-calls.ts asks the session), the check
 *   on the agent's own usage reports (acp/session-core.ts with budget.ts).
 * Invariant: a budget is over when the spend is MORE than a limit (spending exactly the limit is allowed); a main
 *   call is never refused on an estimate, only once the turn's spend is over; an unknown cost never counts as zero.
 * Spec: docs/spend.md#budgets.
 */
import type { ErrorCode } from "../errors.js";
import { createTurnMeter, type TurnBudget } from "./budget.js";
import type { MeteredCall, PendingCall } from "./metering-point.js";
import { BYTES_PER_TOKEN } from "./side-calls.js";

/** The USD cost of one call's tokens (a price table), or undefined when unknown. */
export type CallCostOf = (usage: { inputTokens: number; outputTokens: number }) => number | undefined;

/** The verdict on one call: `refused` says why it may not pass; `crossed` is the turn's budget diagnostic. */
export interface Admission {
  /** Why the call is refused (for the 402 answer), or undefined when it may pass. */
  refused?: string;
  /** Set when a main call is refused: the turn is over its budget and should end with this (BUDGET_EXCEEDED). */
  crossed?: { code: ErrorCode; message: string };
}

/**
 * Decides whether `call` may be forwarded, from `seen`: the turn's calls so far (those still in flight carry the
 * usage read so far). A main call passes until the turn's spend is over `budget`, then every call is refused; a
 * side call is refused as well when the spend plus its estimated input would pass the budget (its size at the
 * turn's own bytes per token, from its main calls). Pure; a few additions per call of the turn.
 */
export function admitCall(
  call: PendingCall,
  seen: readonly MeteredCall[],
  budget: TurnBudget,
  costOf?: CallCostOf,
): Admission {
  const meter = createTurnMeter(budget);
  let crossed: Admission["crossed"];
  let bytesPerToken = BYTES_PER_TOKEN;
  for (const done of seen) {
    if (done.refused || (done.inputTokens === undefined && done.outputTokens === undefined)) continue;
    const usage = { inputTokens: done.inputTokens ?? 0, outputTokens: done.outputTokens ?? 0 };
    const cost = costOf?.(usage);
    crossed ??= meter.add({ ...usage, ...(cost === undefined ? {} : { costUsd: cost }) });
    if (done.kind === "main" && done.inputTokens && done.requestBytes > 0)
      bytesPerToken = done.requestBytes / done.inputTokens;
  }
  if (crossed) {
    const refused = `the turn has already spent more than its budget (${meter.spent.tokens} tokens over ${meter.spent.reports} model call(s))`;
    if (call.kind !== "main") return { refused };
    return {
      refused,
      crossed: {
        code: crossed.code,
        message: `${crossed.message} Its next model call was refused before it reached the model.`,
      },
    };
  }
  if (call.kind === "main") return {};
  const estimate = { inputTokens: Math.ceil(call.requestBytes / bytesPerToken), outputTokens: 0 };
  const cost = costOf?.(estimate);
  if (!meter.add({ ...estimate, ...(cost === undefined ? {} : { costUsd: cost }) })) return {};
  return {
    refused: `the turn has spent ${meter.spent.tokens - estimate.inputTokens} tokens and this ${call.kind} call would send about ${estimate.inputTokens} more, past its budget`,
  };
}
