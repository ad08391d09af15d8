/*
 * Session audit scenarios (issue 14 items 2, 4, 5) on the real grok binary, driven through the built `seat`
 * as a user would, shared by test/live/sessions/sessions-hardening.test.ts (which asserts) and bench/r7-sessions.ts
 * (which counts). Each scenario returns what it observed; none asserts.
 * Owns: the three scenarios — the holder's node binary replaced on disk mid-turn; the journal write-locked by
 *   another process while a turn runs; a seat home too long for sun_path.
 * Does not own: the rig (live-rig.ts), the lock holder (journal-lock.ts), judging the observations.
 */
import { spawn } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import type { LiveRig } from "./live-rig.js";
import { SEAT_MAIN, runSeat, startSeat, type CliResult } from "./cli.js";
import { holdWriteLock } from "./journal-lock.js";
import { lastUserQuery, type ChatRequest, type MockScript } from "../../src/mock-model/index.js";

/** The mock's script: any prompt containing "slow" hangs until cancelled; everything else answers at once. */
export const AUDIT_SCRIPT: MockScript = {
  rules: [{ match: "slow", replies: [{ hang: true }] }],
  fallback: { text: "pong from mock" },
};

type Line = { type: string; [k: string]: unknown };

/** The NDJSON lines of a --json run. */
export function jsonLines(out: string): Line[] {
  return out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Line);
}

/** The `code` of the run's error line, if it printed one. */
export function errorCode(r: CliResult): string | undefined {
  return jsonLines(r.stdout).find((l) => l.type === "error")?.code as string | undefined;
}

/** The environment of `seat` for the rig, with `seatHome` as GROK_SEAT_HOME. */
export function auditEnv(rig: LiveRig, seatHome: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: seatHome,
  };
}

/** How many main-turn requests the model received whose user query contains `text`. */
export function modelSaw(rig: LiveRig, text: string): number {
  return rig.mock.requests.filter(
    (q) => q.kind === "main" && lastUserQuery(((q.body ?? {}) as ChatRequest).messages ?? []).includes(text),
  ).length;
}

async function until(check: () => boolean, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function history(
  env: NodeJS.ProcessEnv,
  cwd: string,
  name: string,
): Promise<Array<{ prompt: string; state: string }>> {
  const r = await runSeat(["sessions", "history", name, "--json"], { env, cwd });
  return jsonLines(r.stdout)
    .filter((l) => l.type === "turn")
    .map((l) => ({ prompt: String(l.prompt), state: String(l.state) }));
}

/** What happened when the holder's node binary was replaced on disk while it ran a turn. */
export interface ExeReplacedObservation {
  reachedModel: boolean;
  exeDeleted: boolean;
  second: CliResult;
  /** Times the second run's prompt reached the model (a stolen lease sends it). */
  secondSent: number;
  cancel: CliResult;
  holder: CliResult;
  turns: Array<{ prompt: string; state: string }>;
}

/**
 * Runs a holder `seat run -s NAME` under a copy of node, deletes that copy while the turn runs (what a
 * package manager's upgrade does), then tries a second run and `seat cancel -s NAME`.
 */
export async function exeReplacedScenario(
  rig: LiveRig,
  options: { seatHome: string; name: string; scratch: string },
): Promise<ExeReplacedObservation> {
  const env = auditEnv(rig, options.seatHome);
  const cwd = rig.sandbox.project;
  mkdirSync(options.scratch, { recursive: true });
  const node = join(options.scratch, `node-${options.name}`);
  copyFileSync(process.execPath, node);
  chmodSync(node, 0o755);
  const slow = `slow turn of ${options.name}`;
  const child = spawn(node, [SEAT_MAIN, "run", "-s", options.name, "--json", slow], {
    env,
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliResult>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  try {
    const reachedModel = await until(() => modelSaw(rig, slow) > 0);
    unlinkSync(node);
    const exeDeleted =
      existsSync(`/proc/${child.pid}/exe`) && readlinkSync(`/proc/${child.pid}/exe`).endsWith("(deleted)");
    const secondText = `second run of ${options.name}`;
    const second = await runSeat(["run", "-s", options.name, "--json", secondText], { env, cwd });
    const secondSent = modelSaw(rig, secondText);
    const cancel = await runSeat(["cancel", "-s", options.name, "--json"], { env, cwd });
    if (cancel.code !== 0) child.kill("SIGINT");
    const holder = await done;
    return {
      reachedModel,
      exeDeleted,
      second,
      secondSent,
      cancel,
      holder,
      turns: await history(env, cwd, options.name),
    };
  } finally {
    child.kill("SIGKILL");
    if (existsSync(node)) unlinkSync(node);
  }
}

/** What readers, a writer and the holder did while another process held the journal's write lock. */
export interface JournalLockedObservation {
  reachedModel: boolean;
  list: CliResult;
  cancel: CliResult;
  other: CliResult;
  holder: CliResult;
  /** Whether the lock was still held when the three commands had answered. */
  lockHeldThroughout: boolean;
  turns: Array<{ prompt: string; state: string }>;
}

/**
 * Runs a holder's slow turn, then has another process hold the journal's write lock for `lockMs` while
 * `seat sessions list`, `seat cancel -s NAME` and `seat run -s OTHER` run at once.
 */
export async function journalLockedScenario(
  rig: LiveRig,
  options: { seatHome: string; name: string; lockMs?: number },
): Promise<JournalLockedObservation> {
  const env = auditEnv(rig, options.seatHome);
  const cwd = rig.sandbox.project;
  const slow = `slow turn of ${options.name}`;
  const holderRun = startSeat(["run", "-s", options.name, "--json", slow], { env, cwd });
  try {
    const reachedModel = await until(() => modelSaw(rig, slow) > 0);
    const lock = await holdWriteLock(join(options.seatHome, "seats.db"), options.lockMs ?? 12_000);
    let released = false;
    void lock.released.then(() => (released = true));
    try {
      const [list, cancel, other] = await Promise.all([
        runSeat(["sessions", "list", "--json"], { env, cwd }),
        runSeat(["cancel", "-s", options.name, "--json"], { env, cwd }),
        runSeat(["run", "-s", `${options.name}-other`, "--json", "a run that must write"], { env, cwd }),
      ]);
      const lockHeldThroughout = !released;
      if (cancel.code !== 0) holderRun.child.kill("SIGINT");
      const holder = await holderRun.done;
      await lock.released;
      return {
        reachedModel,
        list,
        cancel,
        other,
        holder,
        lockHeldThroughout,
        turns: await history(env, cwd, options.name),
      };
    } finally {
      lock.stop();
    }
  } finally {
    holderRun.child.kill("SIGKILL");
  }
}

/** What `seat cancel -s` did for a holder whose seat home is too long for sun_path. */
export interface LongHomeObservation {
  seatHomeBytes: number;
  reachedModel: boolean;
  cancel: CliResult;
  holder: CliResult;
  /** Files left in <seat home>/sessions after the holder exited (socket files that piled up). */
  leftovers: string[];
}

/** Runs a holder's slow turn with a seat home longer than sun_path allows, then `seat cancel -s NAME`. */
export async function longHomeScenario(
  rig: LiveRig,
  options: { root: string; name: string },
): Promise<LongHomeObservation> {
  const seatHome = join(options.root, `long-seat-home-${"x".repeat(Math.max(1, 130 - options.root.length))}`);
  const env = auditEnv(rig, seatHome);
  const cwd = rig.sandbox.project;
  const slow = `slow turn of ${options.name}`;
  const holderRun = startSeat(["run", "-s", options.name, "--json", slow], { env, cwd });
  try {
    const reachedModel = await until(() => modelSaw(rig, slow) > 0);
    const cancel = await runSeat(["cancel", "-s", options.name, "--json"], { env, cwd });
    if (cancel.code !== 0) holderRun.child.kill("SIGINT");
    const holder = await holderRun.done;
    const sessionsDir = join(seatHome, "sessions");
    const leftovers = existsSync(sessionsDir) ? readdirSync(sessionsDir) : [];
    return { seatHomeBytes: Buffer.byteLength(seatHome), reachedModel, cancel, holder, leftovers };
  } finally {
    holderRun.child.kill("SIGKILL");
  }
}
