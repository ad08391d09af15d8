/*
 * Usage line: one turn group's ledger totals as a line of text, for `seat sessions show` and `seat jobs show`.
 * Owns: the wording (unknown as "?", never 0; a cost with its source, or how many turns are unpriced).
 * Does not own: the totals (usage/ledger.ts) or `seat usage`'s table (commands/usage.ts).
 */
import type { UsageTotals } from "../usage/index.js";

const shown = (value: number | null): string => (value === null ? "?" : String(value));

/** `2 turns: 3 model calls, 33 in, 5 out, 0 cached, 0 reasoning; cost $0.000072 (computed:prices.json)`. */
export function usageLine(t: UsageTotals): string {
  if (t.turns === 0) return "no turns in the ledger";
  const unreported = t.unreportedTurns > 0 ? ` (${t.unreportedTurns} reported no tokens)` : "";
  const cost =
    t.costUsd === null
      ? "cost unknown"
      : `cost $${Number(t.costUsd.toFixed(6))} (${t.costSource}${t.unpricedTurns > 0 ? `; ${t.unpricedTurns} turn(s) unpriced, so at least` : ""})`;
  return `${t.turns} turn${t.turns === 1 ? "" : "s"}: ${shown(t.modelCalls)} model calls, ${shown(t.inputTokens)} in, ${shown(t.outputTokens)} out, ${shown(t.cachedTokens)} cached, ${shown(t.reasoningTokens)} reasoning${unreported}; ${cost}`;
}
