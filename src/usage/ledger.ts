/*
 * Usage ledger: every turn's usage, per model, in the journal's sqlite file (table usage_ledger, migration
 *   grok-seat.usage.v1), and the totals `seat usage` and queryUsage() print.
 * Owns: turning a finished turn into ledger rows, writing them, and the grouped query.
 * Does not own: the schema's migration list (journal/), prices (metering/prices.ts), where the journal lives (seat/).
 * Invariant: what an agent did not report is stored NULL and shown as unknown, never as zero; a total says how
 *   many turns it could not count. Writes wait a bounded time for another process's lock (JOURNAL_BUSY after);
 *   reads take no write lock.
 * Spec: docs/spend.md#the-ledger.
 */
import type Database from "better-sqlite3";
import { SeatError } from "../errors.js";
import { redact } from "../internal/redact.js";
import { openDatabase, withBusyRetry } from "../journal/index.js";
import { journalPath, seatHome } from "../home/index.js";
import { TICKS_PER_USD } from "../metering/index.js";
import { computeCost, type PriceTable } from "../metering/index.js";
import type { SideCallUsage } from "../metering/index.js";

/** One ledger row: one turn's usage on one model. Null = not reported. */
export interface LedgerEntry {
  recordedAt: string;
  /** `run` (plain seat run), `session` (a named session's turn), `job` (a fleet job) or `seat` (a delivery to a visible seat). */
  source: "run" | "session" | "job" | "seat";
  agent: string;
  session: string | null;
  /** The named session's row in the journal (its budget's spend is summed by it); null outside a named session. */
  sessionRow: number | null;
  jobId: string | null;
  promptId: string;
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  modelCalls: number | null;
  /** Cost the agent reported, in ticks (1 USD = 1e10); null when it did not. */
  costUsdTicks: number | null;
  stopReason: string | null;
  /**
   * How the row's numbers were known: `agent` (the agent reported them), `proxy` (read at the seat's metering
   * point from the model's own answers: calls the agent did not report), `estimated` (nothing reported them).
   * Null on rows written before journal migration grok-seat.usage.v3 (they were the agent's reports).
   */
  metered: "agent" | "proxy" | "estimated" | null;
}

/** What the ledger needs of a finished turn (a TurnResult fits). */
export interface FinishedTurn {
  promptId: string;
  stopReason?: string;
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    cachedReadTokens?: number;
    reasoningTokens?: number;
    modelCalls?: number;
    costUsdTicks?: number;
  };
  responseMeta?: Record<string, unknown>;
  /** The turn's model calls its agent did not report (metered at the metering point, or estimated). */
  sideCalls?: readonly SideCallUsage[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** Where a finished turn's rows belong: the door, the agent, the session or job, the model asked for, the time. */
export interface TurnPlace {
  source: LedgerEntry["source"];
  agent: string;
  session?: string;
  sessionRow?: number;
  jobId?: string;
  model?: string;
  now?: Date;
}

/**
 * The ledger rows of one finished turn: one per model of grok's `_meta.usage.modelUsage`, else one for the turn
 * (its model from `_meta.modelId`, else `model`). A turn whose agent reported nothing still gets a row, all unknown.
 */
export function ledgerEntriesOf(turn: FinishedTurn, where: TurnPlace): LedgerEntry[] {
  const reported = reportedEntries(turn, where);
  const sides = turn.sideCalls ?? [];
  if (sides.length === 0) return reported;
  const base = reported[0]!;
  return [
    ...reported,
    ...sides.map(
      (s): LedgerEntry => ({
        ...base,
        model: s.model,
        inputTokens: s.inputTokens,
        outputTokens: s.outputTokens,
        cachedTokens: s.cachedTokens,
        reasoningTokens: s.reasoningTokens,
        modelCalls: s.modelCalls,
        costUsdTicks: null,
        metered: s.metered,
      }),
    ),
  ];
}

function reportedEntries(turn: FinishedTurn, where: TurnPlace): LedgerEntry[] {
  const base = {
    recordedAt: (where.now ?? new Date()).toISOString(),
    source: where.source,
    agent: where.agent,
    session: where.session ?? null,
    sessionRow: where.sessionRow ?? null,
    jobId: where.jobId ?? null,
    promptId: turn.promptId,
    stopReason: turn.stopReason ?? null,
    metered: "agent" as const,
  };
  const meta = turn.responseMeta;
  const perModel =
    isObj(meta) && isObj(meta.usage) && isObj(meta.usage.modelUsage)
      ? Object.entries(meta.usage.modelUsage).filter(([, v]) => isObj(v))
      : [];
  if (perModel.length > 0) {
    const single = perModel.length === 1;
    return perModel.map(([model, raw]) => {
      const u = raw as Obj;
      return {
        ...base,
        model,
        inputTokens: num(u.inputTokens),
        outputTokens: num(u.outputTokens),
        cachedTokens: num(u.cachedReadTokens),
        reasoningTokens: num(u.reasoningTokens),
        modelCalls: num(u.modelCalls),
        // A whole-turn cost belongs to its one model; split over several it is only known per model.
        costUsdTicks: num(u.costUsdTicks) ?? (single ? num(turn.usage?.costUsdTicks) : null),
      };
    });
  }
  const u = turn.usage ?? {};
  // Codex and Claude name the turn's model in `_meta.quota.model_usage` ([{ model, token_count }]).
  const quotaModels =
    isObj(meta) && isObj(meta.quota) && Array.isArray(meta.quota.model_usage) ? meta.quota.model_usage : [];
  const quotaModel =
    quotaModels.length === 1 && isObj(quotaModels[0]) && typeof quotaModels[0].model === "string"
      ? quotaModels[0].model
      : undefined;
  const model = isObj(meta) && typeof meta.modelId === "string" ? meta.modelId : (quotaModel ?? where.model ?? null);
  return [
    {
      ...base,
      model,
      inputTokens: num(u.inputTokens),
      outputTokens: num(u.outputTokens),
      cachedTokens: num(u.cachedReadTokens),
      reasoningTokens: num(u.reasoningTokens),
      modelCalls: num(u.modelCalls),
      costUsdTicks: num(u.costUsdTicks),
    },
  ];
}

const COLUMNS = [
  "recorded_at",
  "source",
  "agent",
  "session_name",
  "session_row",
  "job_id",
  "prompt_id",
  "model",
  "input_tokens",
  "output_tokens",
  "cached_tokens",
  "reasoning_tokens",
  "model_calls",
  "cost_usd_ticks",
  "stop_reason",
  "metered",
] as const;

/** How long a ledger write waits for another process's lock before JOURNAL_BUSY. */
const LEDGER_WAIT_MS = 10_000;

/** Appends `entries` to the ledger in the journal at `journalFile` (created and migrated when needed). */
export function recordUsage(journalFile: string, entries: readonly LedgerEntry[]): void {
  if (entries.length === 0) return;
  const db = openDatabase(journalFile);
  try {
    const insert = db.prepare(
      `INSERT INTO usage_ledger (${COLUMNS.join(", ")}) VALUES (${COLUMNS.map(() => "?").join(", ")})`,
    );
    withBusyRetry(
      journalFile,
      "recording usage",
      () =>
        db.transaction(() => {
          // Names, ids and model ids are agent- or user-given text: a known secret value in one is masked like anywhere.
          for (const e of entries.map((entry) => redact(entry))) {
            insert.run(
              e.recordedAt,
              e.source,
              e.agent,
              e.session,
              e.sessionRow,
              e.jobId,
              e.promptId,
              e.model,
              e.inputTokens,
              e.outputTokens,
              e.cachedTokens,
              e.reasoningTokens,
              e.modelCalls,
              e.costUsdTicks,
              e.stopReason,
              e.metered,
            );
          }
        })(),
      LEDGER_WAIT_MS,
    );
  } finally {
    db.close();
  }
}

/** How `seat usage` groups its totals. */
export type UsageGrouping = "agent" | "model" | "session" | "job" | "day";
/** Every grouping, for flag checks. */
export const USAGE_GROUPINGS: readonly UsageGrouping[] = ["agent", "model", "session", "job", "day"];

/** A usage query. Dates are ISO 8601 (a bare day means its UTC midnight); `until` is exclusive. */
export interface UsageQuery {
  /** The journal file. Default: the seat home's (`$GROK_SEAT_HOME/seats.db`, else `~/.grok-seat/seats.db`). */
  journalFile?: string;
  since?: string;
  until?: string;
  by?: UsageGrouping;
  /** Prices for turns whose agent reported tokens but no cost. */
  prices?: PriceTable;
  /** Only the turns of this named session (its row in the journal), as `seat sessions show` totals them. */
  sessionRow?: number;
  /** Only the turns of this fleet job. */
  jobId?: string;
}

/** One group's totals. A token total is null when no turn in the group reported it. */
export interface UsageTotals {
  /** The group's key (`all` without grouping; `unknown` for rows without one). */
  key: string;
  turns: number;
  modelCalls: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  /** Rows whose tokens were not reported (left out of the token totals). */
  unreportedTurns: number;
  /** Known cost in USD (reported plus computed); null when no row's cost is known. */
  costUsd: number | null;
  /** Where the cost came from: `reported`, `computed:<file>`, both joined by `+`, or `unknown`. */
  costSource: string;
  /** Rows whose cost is unknown (neither reported nor priceable): the cost is then a lower bound. */
  unpricedTurns: number;
  /** Model calls in the totals that were estimated (no agent and no metering point reported them). */
  estimatedCalls: number;
}

function dateBound(value: string | undefined, flag: string): string | undefined {
  if (value === undefined) return undefined;
  const at = new Date(/^\d{4}-\d\d-\d\d$/.test(value) ? `${value}T00:00:00Z` : value);
  if (Number.isNaN(at.getTime()))
    throw new SeatError(
      "USAGE_DATE_INVALID",
      `The usage query's ${flag} bound (--${flag}) takes a date (YYYY-MM-DD or ISO 8601), got "${value}".`,
      { context: { value } },
    );
  return at.toISOString();
}

const GROUP_COLUMN: Record<UsageGrouping, (r: Obj) => string | null> = {
  agent: (r) => r.agent as string,
  model: (r) => r.model as string | null,
  session: (r) => r.session_name as string | null,
  job: (r) => r.job_id as string | null,
  day: (r) => String(r.recorded_at).slice(0, 10),
};

const add = (total: number | null, value: unknown): number | null =>
  typeof value === "number" ? (total ?? 0) + value : total;

/** Totals of the ledger between `since` and `until`, grouped by `by` (one `all` row without). Never writes. */
export function queryUsage(query: UsageQuery): UsageTotals[] {
  const journalFile = query.journalFile ?? journalPath(seatHome());
  const since = dateBound(query.since, "since");
  const until = dateBound(query.until, "until");
  let db: Database.Database;
  db = openDatabase(journalFile);
  let rows: Obj[];
  try {
    rows = withBusyRetry(
      journalFile,
      "reading usage",
      () =>
        db
          .prepare(
            "SELECT * FROM usage_ledger WHERE recorded_at >= ? AND recorded_at < ? AND (? IS NULL OR session_row = ?) AND (? IS NULL OR job_id = ?) ORDER BY id",
          )
          .all(
            since ?? "",
            until ?? "\uffff",
            query.sessionRow ?? null,
            query.sessionRow ?? null,
            query.jobId ?? null,
            query.jobId ?? null,
          ) as Obj[],
    );
  } finally {
    db.close();
  }
  return totalRows(rows, query.by, query.prices);
}

/**
 * The totals of ledger entries not (yet) in a journal — a fleet job's turn as its record carries it — in the same
 * shape as queryUsage's one `all` row, so a job and `seat usage` total the same way.
 */
export function totalsOf(entries: readonly LedgerEntry[], prices?: PriceTable): UsageTotals {
  const rows = entries.map(
    (e): Obj => ({
      recorded_at: e.recordedAt,
      agent: e.agent,
      session_name: e.session,
      job_id: e.jobId,
      model: e.model,
      input_tokens: e.inputTokens,
      output_tokens: e.outputTokens,
      cached_tokens: e.cachedTokens,
      reasoning_tokens: e.reasoningTokens,
      model_calls: e.modelCalls,
      cost_usd_ticks: e.costUsdTicks,
      metered: e.metered,
    }),
  );
  return totalRows(rows, undefined, prices)[0] ?? emptyTotals("all");
}

/** Totals of no turns at all (every count null, nothing unreported). */
export function emptyTotals(key: string): UsageTotals {
  return {
    key,
    turns: 0,
    modelCalls: null,
    inputTokens: null,
    outputTokens: null,
    cachedTokens: null,
    reasoningTokens: null,
    unreportedTurns: 0,
    costUsd: null,
    costSource: "unknown",
    unpricedTurns: 0,
    estimatedCalls: 0,
  };
}

function totalRows(rows: readonly Obj[], by: UsageGrouping | undefined, prices: PriceTable | undefined): UsageTotals[] {
  const query = { by, prices };
  const groups = new Map<string, UsageTotals & { sources: Set<string> }>();
  for (const r of rows) {
    const key = query.by ? (GROUP_COLUMN[query.by](r) ?? "unknown") : "all";
    let g = groups.get(key);
    if (!g) {
      g = { ...emptyTotals(key), sources: new Set() };
      groups.set(key, g);
    }
    // A side call's row (metered at the metering point, or estimated) adds calls and tokens to its turn, not a turn.
    const side = r.metered === "proxy" || r.metered === "estimated";
    if (!side) g.turns += 1;
    if (r.metered === "estimated" && typeof r.model_calls === "number") g.estimatedCalls += r.model_calls;
    g.modelCalls = add(g.modelCalls, r.model_calls);
    g.inputTokens = add(g.inputTokens, r.input_tokens);
    g.outputTokens = add(g.outputTokens, r.output_tokens);
    g.cachedTokens = add(g.cachedTokens, r.cached_tokens);
    g.reasoningTokens = add(g.reasoningTokens, r.reasoning_tokens);
    if (r.input_tokens === null && r.output_tokens === null) g.unreportedTurns += 1;
    if (typeof r.cost_usd_ticks === "number") {
      g.costUsd = (g.costUsd ?? 0) + r.cost_usd_ticks / TICKS_PER_USD;
      g.sources.add("reported");
      continue;
    }
    const computed = query.prices
      ? computeCost(query.prices, r.model as string | null, {
          inputTokens: r.input_tokens as number | null,
          outputTokens: r.output_tokens as number | null,
          cachedReadTokens: r.cached_tokens as number | null,
        })
      : undefined;
    if (computed === undefined) g.unpricedTurns += 1;
    else {
      g.costUsd = (g.costUsd ?? 0) + computed;
      g.sources.add(query.prices!.source);
    }
  }
  return [...groups.values()].map(({ sources, ...g }) => ({
    ...g,
    costSource: sources.size === 0 ? "unknown" : [...sources].join("+"),
  }));
}
