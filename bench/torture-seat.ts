/*
 * The visible-seat part of `npm run torture`: R2 (kill -9 the controller at every delivery step) and R3
 *   (identity / socket attacks), with their progress lines, RELIABILITY.md rows and sections, and figures.
 * Owns: campaign sizes for R2/R3 (full and --quick) and how their results read.
 * Does not own: the checks (bench/seat-crash.ts, bench/seat-attacks.ts) or the report file (bench/torture.ts).
 */
import { stampLine, table } from "./report.js";
import { CRASH_STEPS, runSeatCrashCycles, type SeatCrashResult } from "./seat-crash.js";
import { ATTACK_KINDS, runSeatAttacks, type SeatAttackResult } from "./seat-attacks.js";

/** When and on which commit a campaign ran. */
export interface RanAt {
  commit: string;
  startedAt: string;
  finishedAt: string;
}

/** R2 and R3 results of one run. */
export interface SeatTorture {
  r2: SeatCrashResult & { ranAt?: RanAt };
  r3: SeatAttackResult & { ranAt?: RanAt };
  sizes: SeatSizes;
}

/** Campaign sizes of R2 and R3. */
export interface SeatSizes {
  crashCyclesPerStep: number;
  attackVariantsPerKind: number;
  hireRounds: number;
  realGrok: boolean;
}

/** R2/R3 sizes for a full or --quick run. */
export function seatSizes(quick: boolean): SeatSizes {
  return {
    crashCyclesPerStep: quick ? 1 : 10,
    attackVariantsPerKind: quick ? 5 : 50,
    hireRounds: quick ? 1 : 5,
    realGrok: !quick,
  };
}

/** R2 alone: kill -9 the controller at every delivery step; prints one line per failed case and a summary. */
export async function runR2(sizes: SeatSizes): Promise<SeatCrashResult> {
  const r2 = await runSeatCrashCycles({
    cycles: sizes.crashCyclesPerStep,
    realGrok: sizes.realGrok,
    onCase: (c) => {
      if (c.problems.length) console.log(`R2: ${c.agent} kill after ${c.step}: ${c.problems.join("; ")}`);
    },
  });
  console.log(
    `R2: ${r2.tried} crash cases, ${r2.duplicates} duplicates, ${r2.lost} lost, ${r2.misreported} misreported, ${r2.reconciled}/${r2.uncertain} in-flight cases reconciled by late evidence${r2.skipped ? ` (real grok skipped: ${r2.skipped})` : ""}`,
  );
  return r2;
}

/** R3 alone: the identity / socket attacks; prints one line per kind and the controls. */
export async function runR3(sizes: SeatSizes): Promise<SeatAttackResult> {
  const r3 = await runSeatAttacks({ perKind: sizes.attackVariantsPerKind, hireRounds: sizes.hireRounds });
  for (const k of r3.kinds)
    console.log(
      `R3: ${k.kind}: ${k.refused}/${k.tried} refused with the expected code (${k.distinct} distinct variants; codes ${codeTally(k.codes)})${k.failures.length ? `; ${k.failures.slice(0, 3).join("; ")}` : ""}`,
    );
  console.log(
    `R3: controls ${r3.controls.passed}/${r3.controls.tried} passed${r3.controls.failures.length ? `: ${r3.controls.failures.slice(0, 3).join("; ")}` : ""}${r3.skipped ? ` (skipped: ${r3.skipped})` : ""}`,
  );
  return r3;
}

/** Runs R2 then R3 with the sizes for `quick`, stamping each with `commit` and its times. */
export async function runSeatTorture(options: { quick: boolean; commit: string }): Promise<SeatTorture> {
  const sizes = seatSizes(options.quick);
  const at = () => new Date().toISOString();
  const r2Start = at();
  const r2 = { ...(await runR2(sizes)), ranAt: { commit: options.commit, startedAt: r2Start, finishedAt: "" } };
  r2.ranAt.finishedAt = at();
  const r3Start = at();
  const r3 = { ...(await runR3(sizes)), ranAt: { commit: options.commit, startedAt: r3Start, finishedAt: "" } };
  r3.ranAt.finishedAt = at();
  return { r2, r3, sizes };
}

/** The line naming the commit and time a campaign ran on. */
export function ranAtLine(r: { ranAt?: RanAt }): string {
  return r.ranAt
    ? stampLine({ commit: r.ranAt.commit, date: r.ranAt.startedAt }, r.ranAt.finishedAt)
    : "_Commit and time not recorded._";
}

/** Outcome codes with their counts, as `CODE ×n, …`. */
function codeTally(codes: Record<string, number>): string {
  return (
    Object.entries(codes)
      .map(([code, n]) => `${code} ×${n}`)
      .join(", ") || "none"
  );
}

/** Mean repetitions per distinct variant, as `×n on average`. */
function fmtRepeat(tried: number, distinct: number): string {
  return distinct === 0 ? "—" : `×${(tried / distinct).toFixed(1).replace(/\.0$/, "")} on average`;
}

/** Cases tried and failures, for the closing total. */
export function seatFigures(t: SeatTorture): { cases: number; failures: number } {
  return { cases: t.r2.tried + t.r3.tried, failures: t.r2.failures + t.r3.failures };
}

/** The closing figure lines of R2 and R3. */
export function seatFigureLines(t: SeatTorture): string[] {
  return [
    `R2 visible seat crash cycles: ${t.r2.tried} tried, ${t.r2.failures} failed (${t.r2.duplicates} duplicates, ${t.r2.lost} lost, ${t.r2.misreported} misreported)`,
    `R3 identity/socket attacks: ${t.r3.tried} tried (${t.r3.distinct} distinct variants), ${t.r3.failures} failed (${t.r3.refused}/${t.r3.tried} refused with the expected code, controls ${t.r3.controls.passed}/${t.r3.controls.tried})`,
  ];
}

/** The R2 and R3 rows of the RELIABILITY.md summary table. */
export function seatSummaryRows(t: SeatTorture): string[][] {
  const r2Met = t.r2.failures === 0 && t.r2.tried > 0;
  const r3Met = t.r3.failures === 0 && t.r3.tried > 0 && !t.r3.skipped;
  return [
    [
      "R2",
      "visible seat: kill -9 the controller at every delivery step",
      String(t.r2.tried),
      String(t.r2.failures),
      "0 duplicates, 0 lost, uncertain reported",
      r2Met ? "met" : "**missed**",
    ],
    [
      "R3",
      "visible seat: identity / socket attacks",
      `${t.r3.tried} (${t.r3.distinct} distinct)`,
      String(t.r3.failures),
      "100 % refused with the code each attack must produce",
      r3Met ? "met" : "**missed**",
    ],
  ];
}

/** The R2 and R3 sections of RELIABILITY.md. */
export function renderSeatSections(t: SeatTorture): string {
  const { r2, r3 } = t;
  const rows: string[][] = [];
  for (const agent of ["fake", "grok"] as const) {
    for (const step of CRASH_STEPS) {
      const cs = r2.cases.filter((c) => c.agent === agent && c.step === step);
      if (cs.length === 0) continue;
      const tally = (values: Array<string | null>) =>
        [...new Set(values.map((v) => v ?? "—"))]
          .map((v) => `${v} ×${values.filter((x) => (x ?? "—") === v).length}`)
          .join(", ");
      rows.push([
        agent === "fake" ? "fake TUI + fake leader" : "real grok 1.0.41 TUI",
        `after ${step}`,
        String(cs.length),
        tally(cs.map((c) => c.stateAtCrash)),
        tally(cs.map((c) => c.recoveredState)),
        tally(cs.map((c) => c.finalState)),
        String(Math.max(...cs.map((c) => c.seen))),
        String(cs.filter((c) => c.problems.length).length),
      ]);
    }
  }
  const problems = r2.cases.flatMap((c) => c.problems.map((p) => `${c.agent} after ${c.step}: ${p}`));
  return [
    "## R2 visible seat: kill -9 the controller at every delivery step",
    "",
    `${t.sizes.crashCyclesPerStep} cycles per step on the fake TUI (a real process in a private tmux server that writes`,
    "`active_sessions.json` and spawns a real fake-leader child), plus one cycle per step on the real grok TUI against the",
    "mock model when it can be provisioned. Every cycle hires a fresh seat through the built `seat` CLI, delivers one",
    "brief, `kill -9`s the controller after the step, then recovers offline (`seat status`), waits for late evidence,",
    "checks that `send` is refused and releases offline. The step a crash landed on is read back from the recovery note",
    'on the original row; "seen" counts the prompt id at the fake leader (its receive log) or at the model (request log).',
    "A failure is a duplicate (seen > 1), a lost delivery (no row), a misreport (a held fence not `failed` never-dispatched,",
    "an in-flight one not listed uncertain, a completion without evidence), late evidence that never reconciled a prompt",
    "the agent received, a `send` not refused after the crash, or an offline release that did not stop the leader.",
    "",
    table(
      ["agent", "kill -9", "cases", "state at crash", "state after recovery", "final state", "max seen", "failures"],
      rows,
    ),
    "",
    `Duplicates: ${r2.duplicates}. Lost: ${r2.lost}. Misreported: ${r2.misreported}. In-flight deliveries reconciled from late session-file evidence: ${r2.reconciled}/${r2.uncertain}.`,
    r2.skipped ? `Real grok cycles skipped: ${r2.skipped}.` : "",
    "",
    ranAtLine(r2),
    problems.length
      ? `\nProblems:\n\n${problems
          .slice(0, 20)
          .map((p) => `- ${p}`)
          .join("\n")}`
      : "",
    "",
    "## R3 visible seat: identity / socket attacks",
    "",
    "Hire-time: `hireSeat` on a fake TUI whose leader runs in another cwd, runs a copy of the executable, or serves a",
    "symlinked socket, and Herdr-simulator hires whose agent report names another agent or session. After a clean hire",
    "whose TUI then exits (the leader outlives it): each variant mutates the socket path or the binding, and both gates",
    "— the leader re-proof and the release that would signal it — must refuse while the leader keeps running; then the",
    "world is restored. Generated Herdr pane infos go through `checkHerdrAgent`. A variant counts as refused only when",
    "its outcome **code** is the one the attack must produce: on a hired leader, `IDENTITY_MISMATCH` from the re-proof",
    "with the identity check that names the attack (socket-file, socket-dir, socket-holder, uid, birth, exe, cwd) and",
    "`SEAT_RELEASE_REFUSED` from the release (a second listener under the socket's name is a mismatch too: the proof",
    "compares the socket inode recorded at hire); at hire, `IDENTITY_MISMATCH`; for Herdr, `HERDR_AGENT_REFUSED` with the",
    "verdict it carries — `[mismatch]` for a contradiction, `[unknown]` for a null or empty field (the hire refuses when",
    "its readiness time runs out). Any other code (`IDENTITY_UNKNOWN` included), a timeout or an acceptance is a failure, listed",
    "with the code seen. Controls (a clean re-proof after every variant, a clean release at the end that does",
    "stop the leader, agreeing Herdr fields accepted) show the refusals are not vacuous. This run is unprivileged, so a",
    "foreign owner is the seat bound to another uid than the socket's and directory's owner, or the directory opened",
    "up (mode ≠ 0700); a reused pid is a record whose birth differs from the live process at that pid.",
    '"Runs" counts every attempt; "distinct" counts attack shapes (the rest repeat a shape with another uid, birth',
    "or round).",
    "",
    table(
      [
        "attack",
        "runs (distinct variants × repetitions)",
        "refused with the expected code",
        "failures",
        "codes seen",
        "a reason given",
      ],
      ATTACK_KINDS.map((kind) => {
        const k = r3.kinds.find((x) => x.kind === kind)!;
        return [
          kind,
          `${k.tried} (${k.distinct} distinct, ${fmtRepeat(k.tried, k.distinct)})`,
          String(k.refused),
          k.failures.slice(0, 2).join("; ").replace(/`/g, "'") || "0",
          codeTally(k.codes),
          `\`${(k.reasons[0] ?? "")
            .replace(/\/tmp\/[\w.-]+/g, "<tmp>")
            .replace(/`/g, "'")
            .slice(0, 140)}\``,
        ];
      }),
    ),
    "",
    `Controls: ${r3.controls.passed}/${r3.controls.tried} passed${r3.controls.failures.length ? ` (${r3.controls.failures.slice(0, 3).join("; ")})` : ""}.${r3.skipped ? ` Skipped: ${r3.skipped}.` : ""}`,
    "",
    ranAtLine(r3),
    "",
  ]
    .filter((line, i, all) => !(line === "" && all[i - 1] === ""))
    .join("\n");
}
