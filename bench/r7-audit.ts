/*
 * R7: the audit's scenarios (issue 14) repeated — a log trimmed mid-session after a named session's failed turn,
 *   a holder's executable replaced, a journal write-locked by another process, a long seat home, a stale worker
 *   resumed after another took its job, a subscriber dropped while a cancel is published, Redis restarted without
 *   AOF — counting double sends, wrong-turn kills, stolen leases, lost cancels, false `uncertain`s and misreported
 *   corruption. Goal: 0 of each.
 * Owns: running the three parts in order, summing their counts, R7's summary row, section and figure line.
 * Does not own: the scenarios (bench/r7-health.ts, r7-sessions.ts, r7-fleet.ts).
 */
import { table } from "./report.js";
import { runR7Fleet } from "./r7-fleet.js";
import { runR7Health } from "./r7-health.js";
import { runR7Sessions } from "./r7-sessions.js";
import { ranAtLine, type RanAt } from "./torture-seat.js";

/** One part's outcome: scenarios tried, named counts (each must be 0) and what went wrong. */
export interface R7Part {
  tried: number;
  counts: Record<string, number>;
  problems: string[];
}

/** The whole campaign: each part by name. */
export interface R7Result {
  parts: Record<string, R7Part>;
  tried: number;
  failures: number;
  durationMs: number;
}

const PARTS: ReadonlyArray<readonly [string, string, (o: { quick: boolean }) => Promise<R7Part>]> = [
  [
    "health",
    "named session's failed turn, then grok trims its log in place as the next turn starts (real grok)",
    runR7Health,
  ],
  [
    "sessions",
    "holder's executable replaced mid-turn; journal write-locked by another process; a long seat home",
    runR7Sessions,
  ],
  [
    "fleet",
    "stale worker resumed after another took its job; subscriber dropped during a cancel; Redis restarted without AOF",
    runR7Fleet,
  ],
];

/** Runs every part; a part that throws counts as one failure with its message as the problem. */
export async function runR7(opts: { quick: boolean; log?: (line: string) => void }): Promise<R7Result> {
  const t0 = Date.now();
  const parts: Record<string, R7Part> = {};
  for (const [name, , run] of PARTS) {
    try {
      parts[name] = await run({ quick: opts.quick });
    } catch (error) {
      parts[name] = {
        tried: 0,
        counts: { crashed: 1 },
        problems: [`${name}: ${error instanceof Error ? error.message : String(error)}`],
      };
    }
    opts.log?.(`R7 ${name}: ${r7PartLine(parts[name]!)}`);
  }
  const all = Object.values(parts);
  const failures = all.reduce(
    (n, p) => n + Object.values(p.counts).reduce((a, b) => a + b, 0) + (p.tried === 0 ? 1 : 0),
    0,
  );
  return { parts, tried: all.reduce((n, p) => n + p.tried, 0), failures, durationMs: Date.now() - t0 };
}

function r7PartLine(p: R7Part): string {
  return `${p.tried} tried; ${Object.entries(p.counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}`;
}

/** The closing figure line. */
export function r7FigureLine(r: R7Result): string {
  return `R7 audit scenarios: ${r.tried} tried, ${r.failures} failed (${Object.entries(r.parts)
    .map(([n, p]) => `${n}: ${r7PartLine(p)}`)
    .join("; ")}); took ${(r.durationMs / 1000).toFixed(1)} s`;
}

/** R7's row of the RELIABILITY.md summary. */
export function r7SummaryRow(r: R7Result): string[] {
  return [
    "R7",
    "the audit's scenarios (issue 14): trimmed log, replaced executable, locked journal, long home, stale worker, dropped subscriber, Redis without AOF",
    String(r.tried),
    String(r.failures),
    "0 double sends, wrong-turn kills, stolen leases, lost cancels, false uncertain, misreported corruption",
    r.failures === 0 ? "met" : "**missed**",
  ];
}

/** R7's section of RELIABILITY.md. */
export function renderR7Section(r: R7Result & { ranAt?: RanAt }): string {
  return [
    "## R7 the audit's scenarios",
    "",
    "Each scenario reproduces one defect the audit of issue 14 found, on the real grok binary or a real redis-server",
    "where they can show it; a count is an outcome that must never happen.",
    "",
    table(
      ["part", "scenarios", "tried", "counts", "problems"],
      PARTS.map(([name, what]) => {
        const p = r.parts[name];
        return [
          name,
          what,
          String(p?.tried ?? 0),
          p
            ? Object.entries(p.counts)
                .map(([k, v]) => `${k} ${v}`)
                .join(", ")
            : "not run",
          p?.problems.slice(0, 3).join("; ") || "none",
        ];
      }),
    ),
    "",
    ranAtLine(r),
    "",
  ].join("\n");
}
