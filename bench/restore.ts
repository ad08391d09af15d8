/*
 * P15 restore of visible seats at once (issue 25 §4): N real grok 1.0.41 TUIs in a real private tmux server,
 *   offline against the mock. Baseline in the same run: N fresh hires at once, each followed by its first turn.
 *   Then a simulated reboot (the tmux server killed with everything in it, every process of every seat SIGKILLed),
 *   `seat restore --all`, and each restored seat's first turn.
 * Owns: benchRestore() and its BENCHMARKS.md section. Does not own: hire or restore (src/seat/), the rig.
 * Method: hires are N `seat hire --visible --json` processes started together; the restore is one
 *   `seat restore --all --json` process (it restores every lost seat at once) whose per-seat result lines are
 *   timed as they arrive. A seat's first turn starts the moment its hire (or its restore line) is back: one
 *   `send` with wait `completed` to its controller from the bench process (the call `seat send --wait completed`
 *   makes, without a CLI start), timed to the controller's answer. Every seat has its own project directory.
 *   The restored turn's model request must carry the fresh turn's answer (the conversation continued).
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { isTmuxAvailable } from "../src/mux/index.js";
import { callController, unwrapReply } from "../src/seat/index.js";
import { seatDir } from "../src/home/index.js";
import { SEAT_MAIN } from "../test/support/cli.js";
import { startLiveRig, type LiveRig } from "../test/support/live-rig.js";
import { fmt, median, table } from "./report.js";

/** One seat's figures (ms). */
export interface RestoreSeatFigures {
  seatId: string;
  hireMs: number;
  freshTurnMs: number;
  restoreMs?: number;
  restoredTurnMs?: number;
  error?: string;
}

/** P15's result. */
export interface RestoreBenchResult {
  seats: number;
  figures: RestoreSeatFigures[];
  /** Seats that did not come back, or whose first turn after the restore failed or lost the conversation. */
  failures: number;
  freshTurnP50Ms: number;
  /** Worst restored first turn / median fresh first turn. */
  worstTurnRatio?: number;
  /** The worst of restored[k] / fresh[k] with both sorted (each seat against the fresh seat of its rank). */
  rankedTurnRatio?: number;
  /** Median restored first turn / median fresh first turn, and slowest / slowest. */
  p50TurnRatio?: number;
  maxTurnRatio?: number;
  /** Median of (restore + first turn) / (hire + first turn). */
  wallRatioP50?: number;
  restoreAllMs?: number;
  skipped?: string;
  errors: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs the seat CLI; resolves its exit code and output, and calls onLine with each stdout line as it arrives. */
function seatCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  onLine?: (line: string) => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SEAT_MAIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let partial = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    partial += d.toString();
    const lines = partial.split("\n");
    partial = lines.pop() ?? "";
    for (const l of lines) if (l.trim()) onLine?.(l);
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr })));
}

/** Every process of the seat: controller, TUI, leader (status, seat.json and the lock file). */
function seatPids(env: NodeJS.ProcessEnv, home: string, seatId: string): number[] {
  const status = spawnSync(process.execPath, [SEAT_MAIN, "status", seatId, "--json"], {
    env,
    encoding: "utf8",
    timeout: 60_000,
  });
  const json = status.stdout
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, { pid?: number } | undefined>)
    .at(-1);
  const file = JSON.parse(readFileSync(join(seatDir(home, seatId), "seat.json"), "utf8")) as {
    socket_dir?: string;
    controller_pid?: number;
  };
  const lock = join(file.socket_dir ?? "/nonexistent", "s.lock");
  const pids = [
    json?.tui?.pid,
    json?.leader?.pid,
    json?.controller?.pid,
    file.controller_pid,
    existsSync(lock) ? Number(readFileSync(lock, "utf8").trim()) : undefined,
  ];
  return pids.filter((p): p is number => typeof p === "number" && p > 0);
}

async function firstTurn(home: string, seatId: string, text: string): Promise<number> {
  const t0 = performance.now();
  unwrapReply(
    await callController(seatDir(home, seatId), { op: "send", text, wait: "completed", timeoutMs: 180_000 }, 210_000),
  );
  return performance.now() - t0;
}

/** Runs P15 with `seats` visible seats (default 8). */
export async function benchRestore({ seats = 8 }: { seats?: number } = {}): Promise<RestoreBenchResult> {
  const empty = (skipped: string): RestoreBenchResult => ({
    seats: 0,
    figures: [],
    failures: 0,
    freshTurnP50Ms: 0,
    skipped,
    errors: [],
  });
  if (!(await isTmuxAvailable())) return empty("tmux not found on PATH");
  const rig: LiveRig | string = await startLiveRig({
    rules: [
      { match: "p15 remember", replies: [{ text: "noted: the p15 word is QUINCE-4410" }] },
      { match: "p15 recall", replies: [{ text: "the p15 word was QUINCE-4410" }] },
    ],
  });
  if (typeof rig === "string") return empty(rig);
  const home = join(rig.sandbox.root, "sh");
  const tmux = `gs-p15-${randomBytes(4).toString("hex")}`;
  const env: NodeJS.ProcessEnv = {
    ...rig.sandbox.env,
    GROK_SEAT_HOME: home,
    TERM: "xterm-256color",
    GROK_SEAT_VERSION_FLOOR: "",
  };
  const pids = new Set<number>();
  const errors: string[] = [];
  const figures: RestoreSeatFigures[] = [];
  try {
    // Baseline: N fresh hires at once, each seat's first turn as soon as its hire is back.
    const fresh = await Promise.all(
      Array.from({ length: seats }, async (_, k) => {
        const cwd = join(rig.sandbox.root, `p${k}`);
        mkdirSync(cwd, { recursive: true });
        const t0 = performance.now();
        const hired = await seatCli(
          [
            "hire",
            "--visible",
            "--grok",
            rig.binary,
            "--cwd",
            cwd,
            "--version-floor",
            "1.0.41",
            "--tmux-socket",
            tmux,
            "--json",
          ],
          env,
        );
        const hireMs = performance.now() - t0;
        const line = hired.stdout
          .trim()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .at(-1);
        const seatId = line ? (JSON.parse(line) as { seatId?: string }).seatId : undefined;
        if (hired.code !== 0 || !seatId)
          throw new Error(
            `P15: hire ${k} exited ${hired.code}: ${hired.stdout.slice(-400)} ${hired.stderr.slice(-400)}`,
          );
        const freshTurnMs = await firstTurn(home, seatId, `p15 remember the word (seat ${k})`);
        return { seatId, hireMs, freshTurnMs } satisfies RestoreSeatFigures;
      }),
    );
    figures.push(...fresh);
    // The reboot: tmux dies with everything in it, and every process of every seat is SIGKILLed.
    const before = figures.flatMap((f) => seatPids(env, home, f.seatId));
    for (const pid of before) pids.add(pid);
    spawnSync("tmux", ["-L", tmux, "kill-server"]);
    for (const pid of before)
      if (alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    for (let i = 0; i < 200 && before.some(alive); i += 1) await sleep(50);
    const ps = await seatCli(["ps", "--json"], env);
    const lost = ps.stdout
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { kind?: string; id?: string; state?: string })
      .filter((l) => l.kind === "seat" && l.state === "lost").length;
    if (lost !== seats) errors.push(`seat ps showed ${lost} of ${seats} seats lost after the reboot`);

    // The restore: one `seat restore --all`; each seat's first turn as soon as its line is back.
    const turns: Array<Promise<void>> = [];
    const t0 = performance.now();
    const restore = await seatCli(["restore", "--all", "--json"], env, (text) => {
      const at = performance.now() - t0;
      let line: { type?: string; id?: string; sessionId?: string; code?: string; message?: string };
      try {
        line = JSON.parse(text) as typeof line;
      } catch {
        return;
      }
      const f = figures.find((x) => x.seatId === line.id);
      if (!f) return void errors.push(`restore reported an unknown item: ${text.slice(0, 200)}`);
      if (line.type !== "restored") return void (f.error = `${line.code}: ${line.message}`);
      f.restoreMs = at;
      turns.push(
        firstTurn(home, f.seatId, `p15 recall the word (seat ${figures.indexOf(f)})`).then(
          (ms) => void (f.restoredTurnMs = ms),
          (error: unknown) => void (f.error = `first turn after the restore: ${(error as Error).message}`),
        ),
      );
    });
    const restoreAllMs = performance.now() - t0;
    await Promise.all(turns);
    if (restore.code !== 0) errors.push(`seat restore --all exited ${restore.code}: ${restore.stderr.slice(-400)}`);
    for (const f of figures) for (const pid of seatPids(env, home, f.seatId)) pids.add(pid);
    // The conversation continued: every recall request carries its seat's earlier answer.
    const recalls = rig.mock.requests.filter(
      (r) => r.kind === "main" && typeof r.query === "string" && r.query.includes("p15 recall"),
    );
    const carried = recalls.filter((r) => JSON.stringify((r as { body: unknown }).body).includes("QUINCE-4410")).length;
    if (carried < seats)
      errors.push(`${carried} of ${seats} restored first turns' model requests carried the earlier conversation`);
    for (const f of figures) if (f.restoredTurnMs === undefined && f.error === undefined) f.error = "not restored";
    const failures = figures.filter((f) => f.error !== undefined).length + (carried < seats ? seats - carried : 0);
    const freshTurnP50Ms = median(figures.map((f) => f.freshTurnMs));
    const restored = figures.filter((f) => f.restoredTurnMs !== undefined);
    const worstTurnRatio = restored.length
      ? Math.max(...restored.map((f) => f.restoredTurnMs!)) / freshTurnP50Ms
      : undefined;
    const freshSorted = figures.map((f) => f.freshTurnMs).sort((a, b) => a - b);
    const restoredSorted = restored.map((f) => f.restoredTurnMs!).sort((a, b) => a - b);
    const rankedTurnRatio =
      restored.length === figures.length ? Math.max(...restoredSorted.map((ms, k) => ms / freshSorted[k]!)) : undefined;
    const p50TurnRatio = restored.length ? median(restored.map((f) => f.restoredTurnMs!)) / freshTurnP50Ms : undefined;
    const maxTurnRatio = restored.length
      ? Math.max(...restored.map((f) => f.restoredTurnMs!)) / Math.max(...figures.map((f) => f.freshTurnMs))
      : undefined;
    const wallRatioP50 = restored.length
      ? median(restored.map((f) => (f.restoreMs! + f.restoredTurnMs!) / (f.hireMs + f.freshTurnMs)))
      : undefined;
    return {
      seats,
      figures,
      failures,
      freshTurnP50Ms,
      worstTurnRatio,
      rankedTurnRatio,
      p50TurnRatio,
      maxTurnRatio,
      wallRatioP50,
      restoreAllMs,
      errors,
    };
  } finally {
    for (const f of figures)
      try {
        for (const pid of seatPids(env, home, f.seatId)) pids.add(pid);
      } catch {
        /* no seat file */
      }
    spawnSync("tmux", ["-L", tmux, "kill-server"]);
    rmSync(join(process.env.TMUX_TMPDIR || "/tmp", `tmux-${process.getuid?.() ?? 0}`, tmux), { force: true });
    for (const pid of pids)
      if (alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    for (let i = 0; i < 100 && [...pids].some(alive); i += 1) await sleep(50);
    await rig.close();
  }
}

/** P15's section of BENCHMARKS.md. */
export function restoreSection(r: RestoreBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  const title = `P15 restore of ${r.seats || "N"} visible seats at once after a simulated reboot (real grok TUI in tmux)`;
  if (r.skipped)
    return {
      title,
      body: `Skipped: ${r.skipped}.`,
      goals: [{ goal: "restore of 8 visible seats at once: 0 failures", met: undefined, measured: "skipped" }],
    };
  const x = (v: number | undefined) => (v === undefined ? "—" : `${v.toFixed(2)}×`);
  const rows = r.figures.map((f, k) => [
    String(k + 1),
    fmt(f.hireMs),
    fmt(f.freshTurnMs),
    f.restoreMs === undefined ? "—" : fmt(f.restoreMs),
    f.restoredTurnMs === undefined ? "—" : fmt(f.restoredTurnMs),
    f.restoredTurnMs === undefined ? "—" : `${(f.restoredTurnMs / r.freshTurnP50Ms).toFixed(2)}×`,
    f.error ?? "",
  ]);
  return {
    title,
    body: [
      table(
        [
          "seat",
          "fresh hire (ms)",
          "fresh first turn (ms)",
          "restore (ms, from `seat restore --all` start)",
          "first turn after restore (ms)",
          "× fresh first-turn p50",
          "error",
        ],
        rows,
      ),
      "",
      `Fresh first turn p50: ${fmt(r.freshTurnP50Ms)} ms. \`seat restore --all\` took ${fmt(r.restoreAllMs)} ms for all ${r.seats}. Median per seat of (restore + first turn) / (hire + first turn): ${x(r.wallRatioP50)}.`,
      `First turn after restore against fresh: p50 / p50 ${x(r.p50TurnRatio)}, slowest / slowest ${x(r.maxTurnRatio)}; rank-paired (sorted restored[k] / sorted fresh[k], worst k) ${x(r.rankedTurnRatio)}.`,
      `Two verdicts: rank-paired compares each restored seat with the fresh seat of its rank, so the spread that 8 TUIs on 2 shared cores put between seats is in both sides; the strict one compares every restored seat with the fresh p50, and the fresh seats themselves span ${x(Math.min(...r.figures.map((f) => f.freshTurnMs)) / r.freshTurnP50Ms)}–${x(Math.max(...r.figures.map((f) => f.freshTurnMs)) / r.freshTurnP50Ms)} of that p50.`,
      ...(r.errors.length ? ["", `Errors: ${r.errors.join("; ")}`] : []),
    ].join("\n"),
    goals: [
      {
        goal: `restore of ${r.seats} visible seats at once: 0 failures`,
        met: r.failures === 0 && r.errors.length === 0,
        measured: `${r.failures} failures${r.errors.length ? `, ${r.errors.length} errors` : ""}`,
      },
      {
        goal: "each seat's first turn after restore ≤ 1.2× a fresh hire's first turn (rank-paired)",
        met: r.rankedTurnRatio === undefined ? false : r.rankedTurnRatio <= 1.2,
        measured: r.rankedTurnRatio === undefined ? "not all restored" : `worst ${r.rankedTurnRatio.toFixed(2)}×`,
      },
      {
        goal: "each seat's first turn after restore ≤ 1.2× the fresh first turns' p50 (strict)",
        met: r.worstTurnRatio === undefined ? false : r.worstTurnRatio <= 1.2,
        measured: r.worstTurnRatio === undefined ? "none restored" : `worst ${r.worstTurnRatio.toFixed(2)}×`,
      },
    ],
  };
}
