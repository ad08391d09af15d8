/*
 * Prices: the operator's price file (model → USD per million input / output / cached tokens) and the cost it
 *   computes for tokens an agent reported without a cost.
 * Owns: the file format `grok-seat.prices.v1`, its validation (PRICES_INVALID naming the value), and the computation.
 * Does not own: any price. grok-seat ships none: a computed cost is only as true as the file, so every computed
 *   cost is labelled `computed:<file>` and a reported one `reported`.
 * Spec: docs/spend.md#how-cost-is-computed.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { SeatError } from "../errors.js";

/** USD per million tokens of one model. */
export interface ModelPrice {
  input: number;
  output: number;
  /** Cached (prompt-cache read) tokens; default: the input price. */
  cached?: number;
}

/** A loaded price table: per model, `*` for any model not listed. */
export interface PriceTable {
  /** The label computed costs carry: `computed:<file name>`. */
  source: string;
  models: Record<string, ModelPrice>;
}

/** Token counts a cost is computed from (null or absent = not reported). */
export interface PricedTokens {
  inputTokens?: number | null;
  outputTokens?: number | null;
  cachedReadTokens?: number | null;
}

function invalid(file: string, what: string): never {
  throw new SeatError(
    "PRICES_INVALID",
    `The price file ${file} ${what}. Expected {"schema":"grok-seat.prices.v1","models":{"<model or *>":{"input":USD,"output":USD,"cached"?:USD}}} (USD per million tokens).`,
    { context: { file } },
  );
}

/** Checks parsed price-file data; throws PRICES_INVALID naming the first bad value. */
export function parsePrices(data: unknown, file: string): PriceTable {
  if (typeof data !== "object" || data === null || Array.isArray(data)) invalid(file, "is not a JSON object");
  const { schema, models } = data as Record<string, unknown>;
  if (schema !== "grok-seat.prices.v1")
    invalid(file, `has schema ${JSON.stringify(schema)}, not "grok-seat.prices.v1"`);
  if (typeof models !== "object" || models === null || Array.isArray(models)) invalid(file, 'has no "models" object');
  const table: Record<string, ModelPrice> = {};
  for (const [model, price] of Object.entries(models as Record<string, unknown>)) {
    if (typeof price !== "object" || price === null)
      invalid(file, `gives model "${model}" ${JSON.stringify(price)}, not a price object`);
    const p = price as Record<string, unknown>;
    for (const key of ["input", "output", "cached"] as const) {
      const v = p[key];
      if (v === undefined && key === "cached") continue;
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
        invalid(file, `gives model "${model}" ${key} ${JSON.stringify(v)}, not a number of USD ≥ 0`);
    }
    table[model] = {
      input: p.input as number,
      output: p.output as number,
      ...(p.cached === undefined ? {} : { cached: p.cached as number }),
    };
  }
  return { source: `computed:${basename(file)}`, models: table };
}

/** Reads and checks a price file; PRICES_INVALID when it cannot be read or parsed. */
export function loadPrices(file: string): PriceTable {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    invalid(file, `could not be read (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    invalid(file, "is not valid JSON");
  }
  return parsePrices(data, file);
}

/**
 * The USD cost of `tokens` on `model` (`*` when the model is not listed or unknown), or undefined when the table
 * has no price for it or the input or output count was not reported (an unknown is never priced as zero).
 */
export function computeCost(
  prices: PriceTable,
  model: string | null | undefined,
  tokens: PricedTokens,
): number | undefined {
  const price = (model ? prices.models[model] : undefined) ?? prices.models["*"];
  if (!price) return undefined;
  if (tokens.inputTokens == null || tokens.outputTokens == null) return undefined;
  const cached = tokens.cachedReadTokens ?? 0;
  return (
    (tokens.inputTokens * price.input + tokens.outputTokens * price.output + cached * (price.cached ?? price.input)) /
    1e6
  );
}
