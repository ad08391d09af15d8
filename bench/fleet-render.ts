/*
 * How the R6 fleet campaign reads: its progress line, its RELIABILITY.md summary row and section, its closing
 *   figure line, and its sizes (full and --quick).
 * Owns: R6's sizes and wording. Does not own: the campaign (bench/fleet.ts) or the report file (torture.ts).
 */
import { fmt, table } from "./report.js";
import type { FleetCampaignOptions, FleetCampaignResult } from "./fleet.js";
import { ranAtLine, type RanAt } from "./torture-seat.js";

/** R6 sizes: ≥ 200 jobs, at least 6 on the real grok (plus one killed after dispatch), 3 workers. */
export function fleetSizes(quick: boolean): FleetCampaignOptions {
  return quick
    ? {
        fakeJobs: 30,
        killAfterDispatch: 2,
        cancels: 3,
        grokJobs: 2,
        randomKills: 1,
        redisRestarts: 1,
        workers: 3,
        concurrency: 2,
      }
    : {
        fakeJobs: 200,
        killAfterDispatch: 8,
        cancels: 10,
        grokJobs: 6,
        randomKills: 6,
        redisRestarts: 1,
        workers: 3,
        concurrency: 2,
      };
}

/** One line of figures. */
export function fleetFigureLine(r: FleetCampaignResult): string {
  return `R6 fleet: ${r.jobs} jobs (${r.grokJobs} on real grok), ${r.failures} failed (${r.lost} lost, ${r.sentTwice} sent twice, ${r.uncertain} uncertain of which ${r.uncertainInDoubt} really in doubt and ${r.uncertainReached} had reached the agent, ${r.misreported} misreported); ${r.workerKills.afterDispatch + r.workerKills.random} worker kills, ${r.redisRestarts} Redis restarts; cancel p50 ${fmt(r.cancelLatencyMs.p50)} ms p99 ${fmt(r.cancelLatencyMs.p99)} ms (n=${r.cancelLatencyMs.n}); took ${(r.durationMs / 1000).toFixed(1)} s${r.skipped ? ` (real grok skipped: ${r.skipped})` : ""}`;
}

/** R6's row of the RELIABILITY.md summary. */
export function fleetSummaryRow(r: FleetCampaignResult): string[] {
  const met = r.failures === 0 && r.lost === 0 && r.sentTwice === 0 && r.uncertain === r.uncertainInDoubt && !r.skipped;
  return [
    "R6",
    "fleet on BullMQ + a real redis-server: kill -9 workers (incl. right after dispatch), kill -9 + restart Redis (AOF)",
    String(r.jobs),
    String(r.failures),
    "0 lost, 0 sent twice, every uncertain job really in doubt",
    met ? "met" : "**missed**",
  ];
}

/** R6's section of RELIABILITY.md. */
export function renderFleetSection(r: FleetCampaignResult & { ranAt?: RanAt }): string {
  const statuses = Object.entries(r.byStatus)
    .map(([s, n]) => `${s} ×${n}`)
    .join(", ");
  return [
    "## R6 fleet: workers and Redis killed mid-run",
    "",
    `${r.jobs} jobs (${r.grokJobs} on the real grok 1.0.41 against the mock model, the rest on the fake agent) through a real`,
    "redis-server (`appendonly yes`, `appendfsync always`) to 3 `seat worker` processes (`--concurrency 2`, each a simulated",
    "host with its own HOME). Workers are `kill -9`ed right after a job's `dispatched` transition (a 1.5 s turn, so the kill",
    "lands mid-turn or before the agent read the prompt) and at seeded random points (by the number of prompts received);",
    "each killed worker is replaced by a new process. Redis is `kill -9`ed and restarted on its AOF mid-run. Cancel probes",
    "hang until cancelled, and are cancelled as soon as they are dispatched. After every job ended, the campaign waits one",
    "stalled-job recovery window (16 s) before counting, so a re-run would show.",
    "",
    "\"Sent\" is counted where the prompt arrives — the fake agent's prompt log and the mock model's request log, by promptId",
    "(`fleet-<job id>`) — never from the fleet's records. A failure is: a job not ended (lost), a promptId received twice,",
    "a `completed` job the agent did not receive exactly once, a `failed` job, an `uncertain` job that was not really in",
    "doubt (no dispatched marker, a `done` or `completed` in its stream, or a worker that was never killed), or a job",
    "ending otherwise than expected (`completed`, or `cancelled` for a cancel probe).",
    "",
    table(
      [
        "jobs",
        "ended",
        "lost",
        "sent twice",
        "uncertain (really in doubt / had reached the agent)",
        "misreported",
        "worker kills (after dispatch + random)",
        "Redis restarts",
        "cancel latency p50 / p99 / max (ms, n)",
        "failures",
        "wall time",
      ],
      [
        [
          String(r.jobs),
          statuses,
          String(r.lost),
          String(r.sentTwice),
          `${r.uncertain} (${r.uncertainInDoubt} / ${r.uncertainReached})`,
          String(r.misreported),
          `${r.workerKills.afterDispatch + r.workerKills.random} (${r.workerKills.afterDispatch} + ${r.workerKills.random})`,
          String(r.redisRestarts),
          `${fmt(r.cancelLatencyMs.p50)} / ${fmt(r.cancelLatencyMs.p99)} / ${fmt(r.cancelLatencyMs.max)} (n=${r.cancelLatencyMs.n})`,
          String(r.failures),
          `${(r.durationMs / 1000).toFixed(0)} s`,
        ],
      ],
    ),
    "",
    "Cancel latency is from the submitter's `cancel()` to the `cancelled` transition the worker wrote (one clock: same machine),",
    "measured under the campaign's load (workers being killed and restarted, Redis restarted); it is a figure, not a failure.",
    `Cancels of 1 s or more: ${r.slowCancels.length === 0 ? "none" : r.slowCancels.map((c) => `${c.id} ${c.ms} ms${c.duringRedisRestart ? " (Redis restart inside its window)" : ""}`).join(", ")}.`,
    r.skipped ? `Real grok jobs skipped: ${r.skipped} (counted as a failure).` : "",
    "",
    ranAtLine(r),
    r.problems.length
      ? `\nProblems:\n\n${r.problems
          .slice(0, 20)
          .map((p) => `- ${p}`)
          .join("\n")}`
      : "",
    "",
  ]
    .filter((line, i, all) => !(line === "" && all[i - 1] === ""))
    .join("\n");
}
