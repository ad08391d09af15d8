/*
 * P13 spend: what the usage ledger adds to P2's turn, and what the budget check costs per usage report (issue 17 §4).
 * Owns: benchSpend() and its section for BENCHMARKS.md.
 * Method: (a) P2's real grok turn (timeHarnessTurn: createSession → prompt → dispose, real grok 1.0.41 and the
 *   loopback mock) in paired rounds, alternating order: the plain turn, and the same turn followed by what `seat run`
 *   adds for the ledger (ledgerEntriesOf + recordUsage into a journal file, fsync'd by sqlite); the ratio is the
 *   median over rounds of with-ledger / plain. (b) The budget check: one createTurnMeter per 1,000 reports, `add`
 *   called with a per-call report as grok sends it, timed over `reports` calls after a warm-up; beside it, the same
 *   loop adding the tokens by hand (the floor any check pays), so the figure is read against a baseline of the run.
 *   (c) The metering point (issue 23 §4): in the same rounds, P2's turn with the metering point on grok's model
 *   route (the default: every call proxied, the turn's result waits for grok's turn summary) against the same turn
 *   with `meterModelRoute: false`; the ratio is the median over rounds of metered / unmetered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ledgerEntriesOf, recordUsage } from "../src/usage/index.js";
import { createTurnMeter, type UsageReport } from "../src/metering/index.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { timeHarnessTurn } from "./live.js";
import { fmt, median, ratio, table } from "./report.js";
import { createSession } from "../src/runtime/index.js";

/** The P13 result; `skipped` says why the turn half did not run. */
export interface SpendBenchResult {
  rounds: number;
  /** Median ms of the plain turn and of the turn plus its ledger write. */
  plainMs?: number;
  ledgerMs?: number;
  /** Median over rounds of ledgerMs / plainMs. */
  ratio?: number;
  /** The ledger write alone, median ms. */
  writeMs?: number;
  /** Median ms of the turn without the metering point, and the median over rounds of metered / unmetered. */
  unmeteredMs?: number;
  meterRatio?: number;
  reports: number;
  /** ns per `add` of the budget meter, and per hand-written addition (baseline). */
  checkNs: number;
  baselineNs: number;
  skipped?: string;
}

const REPLY = "one two three four five six seven eight nine ten";

function timeChecks(reports: number): { checkNs: number; baselineNs: number } {
  const report: UsageReport = { inputTokens: 11, outputTokens: 3 };
  const run = (n: number) => {
    let meter = createTurnMeter({ maxTokens: 1e12 });
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      if (i % 1_000 === 0) meter = createTurnMeter({ maxTokens: 1e12 });
      meter.add(report);
    }
    return ((performance.now() - t0) * 1e6) / n;
  };
  const floor = (n: number) => {
    let total = 0;
    const t0 = performance.now();
    for (let i = 0; i < n; i++) total += (report.inputTokens ?? 0) + (report.outputTokens ?? 0);
    if (total < 0) throw new Error("unreachable");
    return ((performance.now() - t0) * 1e6) / n;
  };
  run(Math.min(reports, 100_000));
  floor(Math.min(reports, 100_000));
  return {
    checkNs: median([run(reports), run(reports), run(reports)]),
    baselineNs: median([floor(reports), floor(reports), floor(reports)]),
  };
}

/** Runs P13: `rounds` paired real-grok turns (plus a warm-up pair) and `reports` budget checks. */
export async function benchSpend({
  rounds = 9,
  reports = 1_000_000,
}: {
  rounds?: number;
  reports?: number;
} = {}): Promise<SpendBenchResult> {
  const checks = timeChecks(reports);
  const rig = await startLiveRig({ fallback: { text: REPLY } });
  if (typeof rig === "string") return { rounds: 0, reports, ...checks, skipped: rig };
  const dir = mkdtempSync(join(tmpdir(), "gs-bench-spend-"));
  const journal = join(dir, "seats.db");
  const options = { ...rig.sessionOptions, killGraceMs: 500 };
  const plain: number[] = [];
  const withLedger: number[] = [];
  const writes: number[] = [];
  const unmetered: number[] = [];
  const unmeteredOptions = { ...options, meterModelRoute: false };
  const ledgerTurn = async () => {
    const t0 = performance.now();
    const session = await createSession(options);
    try {
      if (session.state !== "ready") throw new Error(`session did not start: ${JSON.stringify(session.diagnostics)}`);
      const result = await session.prompt("bench turn");
      if (result.stopReason !== "end_turn") throw new Error(`turn: ${JSON.stringify(result)}`);
      const w0 = performance.now();
      recordUsage(journal, ledgerEntriesOf(result, { source: "run", agent: "grok" }));
      writes.push(performance.now() - w0);
      return performance.now() - t0;
    } finally {
      await session.dispose();
    }
  };
  try {
    recordUsage(journal, []); // the file and its migrations exist before the first timed write, as in a used seat home
    await timeHarnessTurn(options);
    await ledgerTurn();
    writes.length = 0;
    for (let round = 0; round < rounds; round++) {
      if (round % 2 === 0) {
        plain.push((await timeHarnessTurn(options)).end);
        withLedger.push(await ledgerTurn());
        unmetered.push((await timeHarnessTurn(unmeteredOptions)).end);
      } else {
        unmetered.push((await timeHarnessTurn(unmeteredOptions)).end);
        withLedger.push(await ledgerTurn());
        plain.push((await timeHarnessTurn(options)).end);
      }
    }
  } finally {
    await rig.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    rounds,
    plainMs: median(plain),
    ledgerMs: median(withLedger),
    ratio: median(withLedger.map((l, i) => l / plain[i]!)),
    writeMs: median(writes),
    unmeteredMs: median(unmetered),
    meterRatio: median(plain.map((p, i) => p / unmetered[i]!)),
    reports,
    ...checks,
  };
}

/** The P13 section: the turn with and without its ledger write, and the budget check per report. */
export function spendSection(r: SpendBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const turnRows: string[][] = r.skipped
    ? [["P2 turn, plain / with ledger", `skipped: ${r.skipped}`]]
    : [
        ["P2 turn (createSession → prompt → dispose), p50 ms", fmt(r.plainMs, 1)],
        ["the same turn + ledgerEntriesOf + recordUsage, p50 ms", fmt(r.ledgerMs, 1)],
        ["the ledger write alone, p50 ms", fmt(r.writeMs, 2)],
        ["with ledger / plain (median of per-round ratios)", ratio(r.ratio)],
        ["P2 turn without the metering point (meterModelRoute: false), p50 ms", fmt(r.unmeteredMs, 1)],
        ["with the metering point / without (median of per-round ratios)", ratio(r.meterRatio)],
      ];
  return {
    title: `P13 spend: the ledger on P2's turn (${r.rounds} paired rounds) and the budget check per usage report (${r.reports} reports)`,
    body: table(
      ["measure", "value"],
      [
        ...turnRows,
        ["budget check (`createTurnMeter().add`) per report, ns", fmt(r.checkNs, 1)],
        ["baseline: adding the report's tokens by hand, ns", fmt(r.baselineNs, 1)],
      ],
    ),
    goals: [
      {
        goal: "the ledger adds ≤ 2 % to P2's turn time",
        met: r.ratio === undefined ? undefined : r.ratio <= 1.02,
        measured: r.ratio === undefined ? "skipped" : ratio(r.ratio),
      },
      {
        goal: "the metering point (every model call proxied, the turn summary awaited) adds ≤ 5 % to P2's turn",
        met: r.meterRatio === undefined ? undefined : r.meterRatio <= 1.05,
        measured: r.meterRatio === undefined ? "skipped" : ratio(r.meterRatio),
      },
      {
        goal: "the budget check per usage report ≤ 10 µs",
        met: r.checkNs <= 10_000,
        measured: `${fmt(r.checkNs / 1000, 3)} µs`,
      },
    ],
  };
}
