/*
 * `seat usage`: totals of the usage ledger (plain runs, named sessions, fleet jobs run on this host), grouped and
 *   filtered by date, as a table, NDJSON (--json) or CSV (--csv). Unknown stays unknown: an unreported total
 *   prints "?" (null in JSON, empty in CSV), and every cost names its source.
 */
import { SeatError } from "../../errors.js";
import { journalPath, seatHome, ensurePrivateDir } from "../../home/index.js";
import { queryUsage, USAGE_GROUPINGS, type UsageGrouping, type UsageTotals } from "../../usage/index.js";
import { loadPrices } from "../../metering/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const FIELDS = [
  "key",
  "turns",
  "modelCalls",
  "inputTokens",
  "outputTokens",
  "cachedTokens",
  "reasoningTokens",
  "unreportedTurns",
  "costUsd",
  "costSource",
  "unpricedTurns",
] as const;

function cell(value: unknown): string {
  if (value === null || value === undefined) return "?";
  if (typeof value === "number" && !Number.isInteger(value)) return value.toFixed(6);
  return String(value);
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const usageCommand: Command = {
  name: "usage",
  help: `Usage: seat usage [flags]

  --since DATE          from this date or time (YYYY-MM-DD = UTC midnight, or ISO 8601)
  --until DATE          up to (not including) this date or time
  --by KEY              group by agent, model, session, job or day (default: one total)
  --prices FILE         a grok-seat.prices.v1 price file for turns that reported tokens but no cost
                        (default: the config file's prices key; see \`seat config\`)
  --json                one {"type":"usage",…} object per group
  --csv                 CSV with a header line

Unreported numbers print as ? (null in --json, empty in --csv): unknown, never zero. costSource says where a cost
came from: reported (by the agent), computed:<price file>, or unknown.

Examples:
  seat usage
  seat usage --since 2026-12-01 --by model --json
  seat usage --by day --prices prices.json --csv`,
  async run(argv) {
    const args = parseFlags("usage", argv, {
      since: { type: "string" },
      until: { type: "string" },
      by: { type: "string" },
      prices: { type: "string" },
      json: { type: "boolean" },
      csv: { type: "boolean" },
    });
    if (args.positionals.length > 0)
      throw new SeatError("CLI_USAGE", `seat usage: takes no arguments, got "${args.positionals[0]}".`);
    const by = stringFlag(args, "by");
    if (by !== undefined && !USAGE_GROUPINGS.includes(by as UsageGrouping)) {
      throw new SeatError("CLI_USAGE", `seat usage: --by takes one of ${USAGE_GROUPINGS.join(", ")}, got "${by}".`, {
        context: { value: by },
      });
    }
    if (args.values.json === true && args.values.csv === true)
      throw new SeatError("CLI_USAGE", "seat usage: give --json or --csv, not both.");
    const prices = stringFlag(args, "prices") === undefined ? undefined : loadPrices(stringFlag(args, "prices")!);
    const home = seatHome();
    ensurePrivateDir(home);
    let totals: UsageTotals[];
    try {
      totals = queryUsage({
        journalFile: journalPath(home),
        ...(stringFlag(args, "since") ? { since: stringFlag(args, "since") } : {}),
        ...(stringFlag(args, "until") ? { until: stringFlag(args, "until") } : {}),
        ...(by ? { by: by as UsageGrouping } : {}),
        ...(prices ? { prices } : {}),
      });
    } catch (error) {
      // A bad date is the command line's fault; say which flag.
      if (error instanceof SeatError && error.code === "CLI_USAGE")
        throw new SeatError("CLI_USAGE", `seat usage: ${error.message.replace(/ \[CLI_USAGE\]$/, "")}`, {
          context: error.context,
        });
      throw error;
    }
    if (args.values.json === true) {
      for (const t of totals) writeJson({ type: "usage", by: by ?? "all", ...t });
      return EXIT.ok;
    }
    if (args.values.csv === true) {
      process.stdout.write(`${FIELDS.join(",")}\n`);
      for (const t of totals) process.stdout.write(`${FIELDS.map((f) => csvCell(t[f])).join(",")}\n`);
      return EXIT.ok;
    }
    if (totals.length === 0) {
      process.stdout.write("no usage recorded in that period\n");
      return EXIT.ok;
    }
    const rows = [
      FIELDS.map((f) => (f === "key" ? (by ?? "all") : f)),
      ...totals.map((t) => FIELDS.map((f) => cell(t[f]))),
    ];
    const widths = FIELDS.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const r of rows)
      process.stdout.write(
        `${r
          .map((c, i) => c.padEnd(widths[i]!))
          .join("  ")
          .trimEnd()}\n`,
      );
    return EXIT.ok;
  },
};
