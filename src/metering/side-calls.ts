/*
 * Side calls: the model calls a turn makes that its agent does not report (grok 1.0.41's turn summary, session
 *   title and title refresh), measured at the metering point or, where none is on the model route, estimated.
 * Owns: reconciling the metering point's calls of a turn with what the agent reported (no main call is counted
 *   twice), the estimate, and the tokens a turn spent in all.
 * Does not own: the proxy (metering-point.ts), the ledger rows (usage/ledger.ts), the budget check (budget.ts).
 * Invariant: the agent's own report stays the authority for the calls it reports; the metering point adds only
 *   the calls the agent left out (its side calls, and a turn's main calls past the count the agent reported: the
 *   ones the model answered after the turn was cancelled); every number that was not measured says `estimated`.
 * Spec: docs/spend.md#what-each-agent-reports, docs/spend.md#the-metering-point.
 */
import type { MeteredCall } from "./metering-point.js";

/** Usage of the calls of one turn its agent did not report, grouped by model and how it was known. */
export interface SideCallUsage {
  /**
   * The call kinds in the group (`turn_summary`, `title_refresh`, `title`, `other`), and `main` for a call of the
   * turn's own the agent did not report (all of them when it reported no usage at all).
   */
  kinds: string[];
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number | null;
  reasoningTokens: number | null;
  modelCalls: number;
  /** `proxy`: read from the model's own answers at the metering point; `estimated`: nothing reported it. */
  metered: "proxy" | "estimated";
}

/** The agent's report of a turn, as far as the reconciliation needs it. */
export interface ReportedTurn {
  stopReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number; modelCalls?: number };
  responseMeta?: Record<string, unknown>;
}

/** Bytes of request body per token when a call's size is all that is known (JSON chat history, English text). */
export const BYTES_PER_TOKEN = 4;
/** Output tokens assumed for grok's one-line turn summary when it is estimated. */
export const SUMMARY_OUTPUT_TOKENS_ESTIMATE = 16;

/** True when a call reached the model and was answered (a refused call or an upstream error served nothing). */
function served(call: MeteredCall): boolean {
  return !call.refused && call.status >= 200 && call.status < 300;
}

/** The tokens of one metered call: read from the answer, else estimated from the request's size. */
function tokensOfCall(call: MeteredCall): { input: number; output: number; estimated: boolean } {
  if (call.inputTokens !== undefined || call.outputTokens !== undefined) {
    return {
      input: call.inputTokens ?? 0,
      output: call.outputTokens ?? 0,
      estimated: call.inputTokens === undefined || call.outputTokens === undefined,
    };
  }
  return { input: Math.ceil(call.requestBytes / BYTES_PER_TOKEN), output: 0, estimated: true };
}

function group(
  calls: readonly {
    kind: string;
    model: string | null;
    input: number;
    output: number;
    cached: number | null;
    reasoning: number | null;
    estimated: boolean;
  }[],
): SideCallUsage[] {
  const groups = new Map<string, SideCallUsage>();
  for (const c of calls) {
    const metered = c.estimated ? "estimated" : "proxy";
    const key = `${c.model ?? ""}\u0000${metered}`;
    let g = groups.get(key);
    if (!g) {
      g = {
        kinds: [],
        model: c.model,
        inputTokens: 0,
        outputTokens: 0,
        cachedTokens: null,
        reasoningTokens: null,
        modelCalls: 0,
        metered,
      };
      groups.set(key, g);
    }
    if (!g.kinds.includes(c.kind)) g.kinds.push(c.kind);
    g.inputTokens += c.input;
    g.outputTokens += c.output;
    if (c.cached !== null) g.cachedTokens = (g.cachedTokens ?? 0) + c.cached;
    if (c.reasoning !== null) g.reasoningTokens = (g.reasoningTokens ?? 0) + c.reasoning;
    g.modelCalls += 1;
  }
  return [...groups.values()];
}

/** True when the metering point read the call's usage from the model's answer. */
function hasUsage(call: MeteredCall): boolean {
  return call.inputTokens !== undefined && call.outputTokens !== undefined;
}

/**
 * The main calls of a turn its agent left out of its report. The agent's `_meta.usage` counts its main calls, so
 * with no usage at all every one is left out; with a count of `modelCalls` the calls past that count (in the order
 * they finished, of those whose usage was read in their answer) are: grok 1.0.41 sends a turn's next call (a
 * tool's follow-up) even after the turn was cancelled, the model answers it, and grok counts it nowhere.
 */
function unreportedMainCalls(mains: readonly MeteredCall[], reported: ReportedTurn): MeteredCall[] {
  if (reported.usage === undefined) return [...mains];
  const count = reported.usage.modelCalls;
  if (count === undefined) return [];
  // A call cut before its usage (a dropped stream) is one the agent did not count either.
  return mains.filter(hasUsage).slice(count);
}

/**
 * The calls of a turn its agent did not report, from the metering point's record of the turn (`calls` in the
 * order they finished): its side calls, and the main calls past what the agent counted (unreportedMainCalls).
 */
export function sideCallsFromMeter(calls: readonly MeteredCall[], reported: ReportedTurn): SideCallUsage[] {
  const mains = unreportedMainCalls(
    calls.filter((c) => served(c) && c.kind === "main"),
    reported,
  );
  const extra = calls.filter((c) => served(c) && (c.kind !== "main" || mains.includes(c)));
  return group(
    extra.map((c) => {
      const t = tokensOfCall(c);
      return {
        kind: c.kind,
        model: c.model ?? null,
        input: t.input,
        output: t.output,
        cached: c.cachedTokens ?? null,
        reasoning: c.reasoningTokens ?? null,
        estimated: t.estimated,
      };
    }),
  );
}

/** True when the metering point saw none of a turn's model calls although the agent reported some: it is not on the route. */
export function meterMissedTurn(calls: readonly MeteredCall[], reported: ReportedTurn): boolean {
  return calls.length === 0 && (reported.usage?.modelCalls ?? 0) > 0;
}

type Obj = Record<string, unknown>;
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : undefined);

/**
 * grok's turn summary when no metering point saw it: made after every turn that ends `end_turn`, it re-sends the
 * conversation, so its input is about the last main call's input plus that call's output (`_meta`'s sibling
 * token fields are the last call's). Nothing else is estimated; an estimate says so.
 */
export function estimateGrokSideCalls(reported: ReportedTurn): SideCallUsage[] {
  if (reported.stopReason !== "end_turn") return [];
  const meta = reported.responseMeta as Obj | undefined;
  const lastInput = num(meta?.inputTokens) ?? num(reported.usage?.inputTokens);
  const lastOutput = num(meta?.outputTokens) ?? 0;
  if (lastInput === undefined) return [];
  const model = typeof meta?.modelId === "string" ? meta.modelId : null;
  return [
    {
      kinds: ["turn_summary"],
      model,
      inputTokens: lastInput + lastOutput,
      outputTokens: SUMMARY_OUTPUT_TOKENS_ESTIMATE,
      cachedTokens: null,
      reasoningTokens: null,
      modelCalls: 1,
      metered: "estimated",
    },
  ];
}

/** Tokens of the side calls, for budgets (input + output). */
export function sideCallTokens(sideCalls: readonly SideCallUsage[] | undefined): number {
  let total = 0;
  for (const s of sideCalls ?? []) total += s.inputTokens + s.outputTokens;
  return total;
}
