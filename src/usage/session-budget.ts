/*
 * Session budgets: a budget recorded with a named session, what its turns have spent, and the budget each next
 *   turn may use (table session_budgets and the ledger's session_row, migration grok-seat.usage.v1).
 * Owns: the SQL over session_budgets, the session's spend from the ledger, and the decision before a turn.
 * Does not own: named sessions themselves (sessions/), the per-turn check (metering/budget.ts).
 * Invariant: a session with nothing left is refused before anything is sent (BUDGET_EXCEEDED); otherwise its turn
 *   runs with what is left (or its own budget, when smaller) as the turn budget. Spend is what the ledger knows:
 *   an unreported cost leaves the session's cost unknown, and a cost limit then cannot fire.
 */
import { openDatabase, withBusyRetry } from "../journal/index.js";
import { TICKS_PER_USD, type TurnBudget } from "../metering/index.js";

/** What a named session has spent over its recorded turns. */
export interface SessionSpend {
  tokens: number;
  /** Null when some turn's cost was not reported. */
  costUsd: number | null;
  turns: number;
}

const WAIT_MS = 10_000;

/** Records (or replaces) the budget of the named session at `sessionRow`. */
export function setSessionBudget(
  journalFile: string,
  sessionRow: number,
  budget: TurnBudget,
  now: Date = new Date(),
): void {
  const db = openDatabase(journalFile);
  try {
    withBusyRetry(
      journalFile,
      "recording a session budget",
      () =>
        db
          .prepare(
            "INSERT INTO session_budgets (session_row, max_tokens, max_cost_usd, set_at) VALUES (?, ?, ?, ?) ON CONFLICT (session_row) DO UPDATE SET max_tokens = excluded.max_tokens, max_cost_usd = excluded.max_cost_usd, set_at = excluded.set_at",
          )
          .run(sessionRow, budget.maxTokens ?? null, budget.maxCostUsd ?? null, now.toISOString()),
      WAIT_MS,
    );
  } finally {
    db.close();
  }
}

/** The session's recorded budget and spend so far (budget undefined when it has none). */
export function readSessionBudget(
  journalFile: string,
  sessionRow: number,
): { budget?: TurnBudget; spent: SessionSpend } {
  const db = openDatabase(journalFile);
  try {
    return withBusyRetry(
      journalFile,
      "reading a session budget",
      () => {
        const b = db
          .prepare("SELECT max_tokens, max_cost_usd FROM session_budgets WHERE session_row = ?")
          .get(sessionRow) as { max_tokens: number | null; max_cost_usd: number | null } | undefined;
        const s = db
          .prepare(`SELECT count(DISTINCT prompt_id) AS turns,
          coalesce(sum(coalesce(input_tokens, 0) + coalesce(output_tokens, 0)), 0) AS tokens,
          sum(cost_usd_ticks) AS ticks, sum(cost_usd_ticks IS NULL) AS unpriced
        FROM usage_ledger WHERE session_row = ?`)
          .get(sessionRow) as { turns: number; tokens: number; ticks: number | null; unpriced: number | null };
        const spent: SessionSpend = {
          tokens: s.tokens,
          costUsd: (s.unpriced ?? 0) > 0 ? null : (s.ticks ?? 0) / TICKS_PER_USD,
          turns: s.turns,
        };
        const budget: TurnBudget | undefined = b
          ? {
              ...(b.max_tokens === null ? {} : { maxTokens: b.max_tokens }),
              ...(b.max_cost_usd === null ? {} : { maxCostUsd: b.max_cost_usd }),
            }
          : undefined;
        return budget && Object.keys(budget).length > 0 ? { budget, spent } : { spent };
      },
      WAIT_MS,
    );
  } finally {
    db.close();
  }
}

/**
 * Before a turn of a session with `budget` that has `spent` so far: a refusal when nothing is left, else the turn
 * budget (what is left, or the turn's own budget when that is smaller).
 */
export function nextTurnBudget(
  budget: TurnBudget,
  spent: SessionSpend,
  own: TurnBudget | undefined,
): { refusal: string } | { budget: TurnBudget } {
  if (budget.maxTokens !== undefined && spent.tokens >= budget.maxTokens) {
    return {
      refusal: `The session has used ${spent.tokens} tokens over ${spent.turns} turn(s), its whole budget of ${budget.maxTokens}; nothing was sent. Raise the session's budget or start another session.`,
    };
  }
  if (budget.maxCostUsd !== undefined && spent.costUsd !== null && spent.costUsd >= budget.maxCostUsd) {
    return {
      refusal: `The session has cost $${spent.costUsd.toFixed(6)} over ${spent.turns} turn(s), its whole budget of $${budget.maxCostUsd}; nothing was sent.`,
    };
  }
  const left: TurnBudget = {};
  const tokensLeft = budget.maxTokens === undefined ? undefined : budget.maxTokens - spent.tokens;
  const tokens = [tokensLeft, own?.maxTokens].filter((n): n is number => n !== undefined);
  if (tokens.length > 0) left.maxTokens = Math.min(...tokens);
  const costLeft =
    budget.maxCostUsd === undefined || spent.costUsd === null ? budget.maxCostUsd : budget.maxCostUsd - spent.costUsd;
  const costs = [costLeft, own?.maxCostUsd].filter((n): n is number => n !== undefined);
  if (costs.length > 0) left.maxCostUsd = Math.min(...costs);
  return { budget: left };
}
