/*
 * R2 visible-seat crash cycles: kill -9 the seat controller at each step of a delivery — after the fence
 *   (before dispatch), after dispatch (before consumed), after consumed (before completed), after completed —
 *   then recover offline through the built `seat` CLI and check the journal against what the leader saw.
 * Owns: runSeatCrashCycles(): per step, cycles run and each problem found (duplicate, lost, misreported,
 *   unreconciled late evidence, a send that was not refused, a leader release that did not happen).
 * Does not own: the controller, journal or recovery under test (src/seat, src/journal), nor the fakes
 *   (test/integration/seat/seat-fake-tui.ts: fake TUI + real fake-leader child; test/support/live-rig.ts: real grok).
 * Method: one seat per cycle, hired by `seat hire --visible` in a private tmux server. The fake leader records
 *   every prompt id it receives and runs each turn on its own clock (delays put the crash between two steps),
 *   persisting grok-shaped session-file lines that late evidence must reconcile. For real grok, the mock
 *   model's request log (x-grok-req-id = prompt id) is what the model saw. The step a crash really landed on
 *   is read back from the recovery note on the original row ("was dispatched …"), not assumed.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SEAT_HOOKED_MAIN } from "../test/support/cli.js";
import { startLiveRig } from "../test/support/live-rig.js";

/** The delivery steps a controller is killed after, in delivery order. */
export const CRASH_STEPS = ["fenced", "dispatched", "consumed", "completed"] as const;
/** One crash step. */
export type CrashStep = (typeof CRASH_STEPS)[number];

const DIST = join(fileURLToPath(import.meta.url), "..", "..");
const MAIN = join(DIST, "src", "cli", "main.js");
const FAKE_TUI = join(DIST, "test", "integration", "seat", "seat-fake-tui.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One crash case as checked. */
export interface CrashCase {
  agent: "fake" | "grok";
  step: CrashStep;
  /** The state the recovery note says the row had when the controller died (null: no note, e.g. completed). */
  stateAtCrash: string | null;
  /** The state right after recovery, and the final state after waiting for late evidence. */
  recoveredState: string | null;
  finalState: string | null;
  /** Times the leader (fake) or the model (real grok) saw the prompt id. */
  seen: number;
  reconciled: boolean;
  problems: string[];
}

/** The R2 result: every figure is a count of cases. */
export interface SeatCrashResult {
  cases: CrashCase[];
  tried: number;
  failures: number;
  duplicates: number;
  lost: number;
  /** Cases whose reported state was not what the crash step allows (incl. an uncertain one not reported as such). */
  misreported: number;
  uncertain: number;
  reconciled: number;
  skipped: string | null;
}

interface Rig {
  agent: "fake" | "grok";
  env: NodeJS.ProcessEnv;
  seatHome: string;
  tmux: string;
  hireArgs(step: CrashStep): string[];
  seen(promptId: string): number;
  close(): Promise<void>;
}

/** Runs `seat <args>` without blocking this process: the real-grok rig's mock model answers from this event loop. */
function cli(
  rig: Rig,
  args: string[],
  timeoutMs = 60_000,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ code: number; json: any; stderr: string }> {
  return new Promise((resolve) => {
    // A hook is installed only by the test-only entry; the shipped CLI ignores GROK_SEAT_TEST_HOOKS.
    const main = extraEnv.GROK_SEAT_TEST_HOOKS === undefined ? MAIN : SEAT_HOOKED_MAIN;
    const child = spawn(process.execPath, [main, ...args], {
      env: { ...rig.env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      let json: any = null;
      try {
        json = JSON.parse(stdout.trim().split("\n").filter(Boolean).pop() ?? "");
      } catch {
        /* not JSON */
      }
      resolve({ code: code ?? -1, json, stderr });
    });
  });
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

async function until<T>(
  fn: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  timeoutMs: number,
): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) return null;
    await sleep(100);
  }
}

/** Kills everything a seat of this rig left (controller, TUI, leader), then its tmux server. */
async function sweep(rig: Rig): Promise<void> {
  const pids = new Set<number>();
  const socketDirs: string[] = [];
  const seats = join(rig.seatHome, "seats");
  for (const dir of existsSync(seats) ? readdirSync(seats) : []) {
    try {
      const file = JSON.parse(readFileSync(join(seats, dir, "seat.json"), "utf8"));
      pids.add(file.controller_pid);
      if (!file.socket_dir) continue;
      socketDirs.push(file.socket_dir);
      const lock = join(file.socket_dir, "s.lock");
      if (existsSync(lock)) pids.add(Number(readFileSync(lock, "utf8").trim()));
    } catch {
      /* no seat file */
    }
  }
  spawnSync("tmux", ["-L", rig.tmux, "kill-server"]);
  for (const pid of pids)
    if (pid > 0 && alive(pid))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
  await until(() => [...pids].every((pid) => !(pid > 0) || !alive(pid)), 5000);
  for (const dir of socketDirs) rmSync(dir, { recursive: true, force: true });
}

function fakeRig(): Rig {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "gs-r2-")));
  const home = join(root, "h");
  const grokHome = join(home, ".grok");
  const project = join(root, "p");
  const seatHome = join(root, "sh");
  for (const d of [home, grokHome, project]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const tmux = `gs-r2-${randomBytes(4).toString("hex")}`;
  const env = {
    HOME: home,
    GROK_HOME: grokHome,
    GROK_SEAT_HOME: seatHome,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TERM: "xterm-256color",
  };
  // Delays that put the crash squarely between two steps; the recovery note confirms where it landed.
  const turns: Record<CrashStep, { queueDelayMs: number; resultDelayMs: number }> = {
    fenced: { queueDelayMs: 0, resultDelayMs: 0 },
    dispatched: { queueDelayMs: 2500, resultDelayMs: 200 },
    consumed: { queueDelayMs: 0, resultDelayMs: 2500 },
    completed: { queueDelayMs: 0, resultDelayMs: 0 },
  };
  const rig: Rig = {
    agent: "fake",
    env,
    seatHome,
    tmux,
    hireArgs: (step) => [
      "--grok",
      process.execPath,
      `--grok-arg=${FAKE_TUI}`,
      "--grok-arg=--gs-config",
      `--grok-arg=${JSON.stringify({ turn: turns[step] })}`,
      "--cwd",
      project,
      "--ready-timeout",
      "15",
    ],
    seen: (promptId) => {
      const log = join(grokHome, "fake-leader-prompts.log");
      return existsSync(log)
        ? readFileSync(log, "utf8")
            .split("\n")
            .filter((l) => l === promptId).length
        : 0;
    },
    close: async () => {
      await sweep(rig);
      rmSync(root, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    },
  };
  return rig;
}

async function grokRig(step: CrashStep): Promise<Rig | string> {
  // Slow chunks keep the turn open long enough to land between consumed and completed.
  const live = await startLiveRig({ chunkDelayMs: step === "consumed" || step === "dispatched" ? 1500 : 0 });
  if (typeof live === "string") return live;
  const seatHome = join(live.sandbox.root, "sh");
  const rig: Rig = {
    agent: "grok",
    seatHome,
    tmux: `gs-r2-${randomBytes(4).toString("hex")}`,
    env: { ...live.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" },
    hireArgs: () => ["--grok", live.binary, "--cwd", live.sandbox.project],
    seen: (promptId) => live.mock.requests.filter((r) => r.kind === "main" && r.reqId === promptId).length,
    close: async () => {
      await sweep(rig);
      await live.close();
    },
  };
  return rig;
}

async function statusOf(rig: Rig, seatId: string): Promise<any> {
  const r = await cli(rig, ["status", seatId, "--json"]);
  return r.code === 0 ? r.json : null;
}

/** Runs one crash case on a rig: hire, deliver up to `step`, kill -9 the controller, recover and check. */
async function crashOnce(rig: Rig, step: CrashStep): Promise<CrashCase> {
  const problems: string[] = [];
  const result: CrashCase = {
    agent: rig.agent,
    step,
    stateAtCrash: null,
    recoveredState: null,
    finalState: null,
    seen: 0,
    reconciled: false,
    problems,
  };
  const hired = await cli(
    rig,
    ["hire", "--visible", "--version-floor", "1.0.41", "--tmux-socket", rig.tmux, "--json", ...rig.hireArgs(step)],
    90_000,
    step === "fenced" ? { GROK_SEAT_TEST_HOOKS: "hold-before-dispatch" } : {},
  );
  if (hired.code !== 0 || hired.json?.type !== "hired") {
    problems.push(`hire failed: ${JSON.stringify(hired.json ?? hired.stderr).slice(0, 300)}`);
    return result;
  }
  const seatId: string = hired.json.seatId;
  const controllerPid: number = hired.json.controllerPid;
  const promptId = `${seatId}-r2-${step}`;
  if (step === "fenced") {
    const sender = spawn(process.execPath, [MAIN, "send", seatId, "crash brief", "--prompt-id", promptId, "--json"], {
      env: rig.env,
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((r) => sender.on("exit", (code) => r(code)));
    const held = await until(() => existsSync(join(rig.seatHome, "seats", seatId, `held-${promptId}`)), 30_000);
    process.kill(controllerPid, "SIGKILL");
    if (!held) problems.push("the fence was never held");
    if ((await exited) === 0) problems.push("the interrupted send claimed success");
  } else {
    const sent = await cli(
      rig,
      ["send", seatId, "crash brief", "--prompt-id", promptId, "--wait", step, "--timeout", "60", "--json"],
      90_000,
    );
    process.kill(controllerPid, "SIGKILL");
    if (sent.code !== 0 || sent.json?.state !== step)
      problems.push(`send --wait ${step} answered ${sent.code}: ${JSON.stringify(sent.json).slice(0, 200)}`);
  }
  await until(() => !alive(controllerPid), 10_000);

  const first = await statusOf(rig, seatId);
  if (first?.source !== "journal") {
    problems.push(`offline status failed: ${JSON.stringify(first).slice(0, 200)}`);
    return result;
  }
  const rows: any[] = first.deliveries;
  const row = rows.find((d) => d.promptId === promptId);
  if (!row) problems.push("lost: the fenced delivery is in no state");
  if (rows.length !== 1) problems.push(`the journal holds ${rows.length} deliveries for one brief`);
  const note = row?.evidence.find((e: any) => e.source === "recovery");
  result.stateAtCrash =
    step === "fenced" ? (note ? "fenced" : null) : (/^was (\w+)/.exec(String(note?.detail ?? ""))?.[1] ?? null);
  result.recoveredState = row?.state ?? null;
  const uncertainListed = (first.recovered?.uncertain ?? []).includes(promptId);
  const neverSentListed = (first.recovered?.neverSent ?? []).includes(promptId);

  if (step === "fenced") {
    if (!neverSentListed || row?.state !== "failed" || !/never dispatched/.test(row?.failureReason ?? ""))
      problems.push(`misreported: a held fence recovered as ${row?.state} (${row?.failureReason ?? ""})`);
  } else if (step === "completed") {
    if (row?.state !== "completed" || uncertainListed || neverSentListed)
      problems.push(`misreported: a completed delivery recovered as ${row?.state}`);
  } else {
    // Real grok may acknowledge between `--wait dispatched` answering and the kill; the note says where it landed.
    const allowed = rig.agent === "grok" && step === "dispatched" ? ["dispatched", "consumed"] : [step];
    if (!result.stateAtCrash || !allowed.includes(result.stateAtCrash))
      problems.push(`the crash landed at ${result.stateAtCrash ?? "no recorded state"}, not ${step}`);
    if (!uncertainListed) problems.push("misreported: an in-flight delivery was not reported uncertain");
    const completedEarly =
      row?.state === "completed" &&
      !row.evidence.some((e: any) => e.kind === "completed" && /grok session file/.test(e.source));
    if (completedEarly) problems.push("misreported: recovered as completed without completion evidence");
  }

  // Late evidence: a prompt the agent received must reconcile the original row from grok's session file.
  if (step === "dispatched" || step === "consumed") {
    const late = await until(
      async () => {
        const s = await statusOf(rig, seatId);
        const d = s?.deliveries.find((x: any) => x.promptId === promptId);
        return d?.state === "completed" ? d : null;
      },
      rig.seen(promptId) > 0 || rig.agent === "grok" ? 60_000 : 3_000,
    );
    if (late) {
      result.reconciled = true;
      if (!late.evidence.some((e: any) => e.kind === "completed" && /grok session file/.test(e.source)))
        problems.push("completed without session-file evidence");
      if (!late.evidence.some((e: any) => e.source === "recovery"))
        problems.push("reconciliation dropped the recovery note from the original row");
    } else if (rig.seen(promptId) > 0) {
      problems.push("late evidence never reconciled a prompt the agent received");
    }
  }
  const again = await cli(rig, ["send", seatId, "after the crash", "--json"]);
  if (again.code !== 6 || again.json?.code !== "SEAT_NOT_ADMITTED")
    problems.push(`send after the crash was not refused (${again.code} ${again.json?.code ?? ""})`);
  const rel = await cli(rig, ["release", seatId, "--close-pane", "--json"]);
  if (rel.code !== 0 || rel.json?.leaderStopped !== true)
    problems.push(`offline release did not stop the leader: ${JSON.stringify(rel.json).slice(0, 200)}`);
  const last = await statusOf(rig, seatId);
  const finalRows: any[] = last?.deliveries ?? [];
  result.finalState = finalRows.find((d) => d.promptId === promptId)?.state ?? null;
  if (finalRows.length !== 1) problems.push(`after release the journal holds ${finalRows.length} deliveries`);
  result.seen = rig.seen(promptId);
  if (result.seen > 1) problems.push(`duplicate: the prompt id was seen ${result.seen} times`);
  if (step === "fenced" && result.seen !== 0) problems.push("a never-dispatched fence reached the agent");
  if (step === "completed" && result.seen !== 1) problems.push(`a completed delivery was seen ${result.seen} times`);
  return result;
}

/**
 * R2: `cycles` crash cycles per step on the fake TUI + fake leader, plus (when `realGrok`) one cycle per step
 * on the real grok TUI. Never throws for a failed case; it is counted.
 */
export async function runSeatCrashCycles(options: {
  cycles: number;
  realGrok?: boolean;
  onCase?: (c: CrashCase) => void;
}): Promise<SeatCrashResult> {
  const cases: CrashCase[] = [];
  const tmuxOk = spawnSync("tmux", ["-V"]).status === 0;
  if (!tmuxOk) return summarize(cases, "tmux is not installed");
  let skipped: string | null = null;
  const record = (c: CrashCase) => {
    cases.push(c);
    options.onCase?.(c);
  };
  for (let cycle = 0; cycle < options.cycles; cycle += 1) {
    for (const step of CRASH_STEPS) {
      const rig = fakeRig();
      try {
        record(await crashOnce(rig, step));
      } catch (error) {
        record({
          agent: "fake",
          step,
          stateAtCrash: null,
          recoveredState: null,
          finalState: null,
          seen: 0,
          reconciled: false,
          problems: [`threw: ${String(error)}`],
        });
      } finally {
        await rig.close();
      }
    }
  }
  if (options.realGrok) {
    for (const step of CRASH_STEPS) {
      const rig = await grokRig(step);
      if (typeof rig === "string") {
        skipped = rig;
        break;
      }
      try {
        record(await crashOnce(rig, step));
      } catch (error) {
        record({
          agent: "grok",
          step,
          stateAtCrash: null,
          recoveredState: null,
          finalState: null,
          seen: 0,
          reconciled: false,
          problems: [`threw: ${String(error)}`],
        });
      } finally {
        await rig.close();
      }
    }
  }
  return summarize(cases, skipped);
}

function summarize(cases: CrashCase[], skipped: string | null): SeatCrashResult {
  const count = (re: RegExp) => cases.filter((c) => c.problems.some((p) => re.test(p))).length;
  return {
    cases,
    tried: cases.length,
    failures: cases.filter((c) => c.problems.length > 0).length + (skipped && cases.length === 0 ? 1 : 0),
    duplicates: count(/^duplicate/),
    lost: count(/^lost/),
    misreported: count(/^misreported/),
    uncertain: cases.filter((c) => c.step === "dispatched" || c.step === "consumed").length,
    reconciled: cases.filter((c) => c.reconciled).length,
    skipped,
  };
}
