/*
 * R1 owner kills (issue 23 §6): the process that owns a real grok is SIGKILLed while grok runs a shell tool call
 *   (`sleep 300`); goal: nothing of the agent's tree (nor its reaper) is alive 5 s later.
 * Owns: runOwnerKills() (the four owners, the kill, what counts as a survivor), its summary row, section and figure
 *   line. Shared by `npm run torture` (100 cycles per owner) and test/live/reaper/reaper.test.ts (one each).
 * Does not own: the reaper (src/grok/reaper*.ts), the rig (test/support/live-rig.ts), the MCP host (r8-host.ts).
 * Method: one mock model whose rule answers the prompt with a `run_terminal_command` of `sleep 300`. Per cycle a
 *   fresh sandbox HOME, which the owner, grok and the shell inherit (the tag the process-table scan looks for), and
 *   a fresh owner: `seat run`, `seat run -s NAME`, `seat mcp` (under an MCP host calling `run`; the server is
 *   killed, not the host) or `seat worker` (its own redis-server, one job). Once `sleep 300` runs, and after a
 *   seeded-random 0–300 ms (so some kills land before the reaper's first scan saw the shell), the owner gets
 *   SIGKILL. Survivor: any live process holding that HOME, or the owner's reaper (its one child running
 *   reaper-main.js, found before the kill), 5 s after the kill.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { connectFleet } from "../src/fleet/index.js";
import { createPolicy } from "../src/permissions/index.js";
import { createSandbox, type Sandbox } from "../src/sandbox/index.js";
import { startRedisServer, type RedisServer } from "../src/testing.js";
import { isAlive, readProcStat, type ProcessRef } from "../src/grok/index.js";
import { startLiveRig, type LiveRig } from "../test/support/live-rig.js";
import { mulberry32 } from "./prng.js";
import { processesWithHome } from "./r8-disconnects.js";
import { table } from "./report.js";

/** Which process owns the agent and is killed. */
export type OwnerKind = "run" | "run-s" | "mcp" | "worker";

/** Every owner, in the order a campaign runs them. */
export const OWNER_KINDS: readonly OwnerKind[] = ["run", "run-s", "mcp", "worker"];

/** What one owner's cycles found. */
export interface OwnerKillFigures {
  kills: number;
  /** Processes alive 5 s after a kill, as `#cycle pid cmdline`. */
  survivors: string[];
  /** Kill → the last process of the tree gone (ms), per cycle. */
  goneMs: number[];
  problems: string[];
}

/** What runOwnerKills found. */
export interface OwnerKillResult {
  cycles: number;
  seed: number;
  byKind: Record<OwnerKind, OwnerKillFigures>;
  failures: number;
  durationMs: number;
  skipped?: string;
}

const SEAT_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));
const HOST_MAIN = fileURLToPath(new URL("./r8-host.js", import.meta.url));
const PROMPT = "r1 owner kill";
/** The promise: nothing of the tree is left this long after its owner was killed. */
export const GONE_WITHIN_MS = 5_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reaper processes (node reaper-main.js) that are children of `owner` now, with their start times. */
function reapersOf(owner: number): ProcessRef[] {
  const out: ProcessRef[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const st = readProcStat(Number(entry));
      if (st?.ppid !== owner) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0")[1]?.endsWith("reaper-main.js"))
        out.push({ pid: st.pid, startTime: st.startTicks });
    } catch {
      // gone, or not ours
    }
  }
  return out;
}

/** A started owner: the pid to kill and how to clean up after it. */
interface Owner {
  pid: number;
  child: ChildProcess;
  stderr(): string;
  cleanup(): Promise<void>;
}

function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): { child: ChildProcess; out(): string; err(): string } {
  const child = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err = (err + d.toString()).slice(-4000)));
  child.stdin!.on("error", () => undefined);
  return { child, out: () => out, err: () => err };
}

async function until<T>(test: () => T | undefined, ms: number): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = test();
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(20);
  }
}

async function startOwner(kind: OwnerKind, rig: LiveRig, sandbox: Sandbox, i: number): Promise<Owner> {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox.home,
    GROK_HOME: sandbox.grokHome,
    GROK_BIN: rig.binary,
    GROK_SEAT_HOME: join(sandbox.root, "seat"),
  };
  const none = async () => undefined;
  if (kind === "run" || kind === "run-s") {
    const p = startProcess(
      process.execPath,
      [
        SEAT_MAIN,
        "run",
        "--json",
        "--allow",
        "execute",
        "--cwd",
        sandbox.project,
        ...(kind === "run-s" ? ["-s", "r1"] : []),
        `${PROMPT} ${i}`,
      ],
      env,
      sandbox.project,
    );
    return { pid: p.child.pid!, child: p.child, stderr: p.err, cleanup: none };
  }
  if (kind === "mcp") {
    const spec = {
      command: process.execPath,
      args: [SEAT_MAIN, "mcp", "--root", sandbox.project, "--allow", "execute"],
      env: { ...sandbox.env, ...env },
      cwd: sandbox.project,
      prompt: `${PROMPT} ${i}`,
    };
    const host = startProcess(process.execPath, [HOST_MAIN, JSON.stringify(spec)], { PATH: env.PATH }, sandbox.project);
    const server = await until(() => /"server":(\d+)/.exec(host.out())?.[1], 30_000);
    if (server === undefined) throw new Error(`the MCP host never started seat mcp: ${host.err() || host.out()}`);
    return {
      pid: Number(server),
      child: host.child,
      stderr: host.err,
      cleanup: async () => {
        host.child.kill("SIGKILL");
      },
    };
  }
  let redis: RedisServer | undefined = await startRedisServer();
  try {
    const worker = startProcess(
      process.execPath,
      [SEAT_MAIN, "worker", "--redis", redis.url, "--name", `r1-${i}`],
      env,
      sandbox.home,
    );
    if ((await until(() => (worker.out().includes('"type":"worker"') ? true : undefined), 30_000)) === undefined)
      throw new Error(`seat worker did not start: ${worker.err()}`);
    const client = await connectFleet(redis.url);
    try {
      await client.enqueue({
        prompt: `${PROMPT} ${i}`,
        cwd: sandbox.project,
        policy: createPolicy({ allow: ["execute"] }),
      });
    } finally {
      await client.close();
    }
    const owned = redis;
    redis = undefined;
    return { pid: worker.child.pid!, child: worker.child, stderr: worker.err, cleanup: () => owned.stop() };
  } finally {
    await redis?.stop();
  }
}

/**
 * Runs `cycles` owner kills per kind in `kinds` (default all four) on the real grok. Never throws for one
 * cycle's failure; `skipped` when the real grok cannot be had here.
 */
export async function runOwnerKills(opts: {
  cycles: number;
  kinds?: readonly OwnerKind[];
  seed?: number;
  log?: (line: string) => void;
}): Promise<OwnerKillResult> {
  const t0 = Date.now();
  const seed = opts.seed ?? 23;
  const next = mulberry32(seed);
  const kinds = opts.kinds ?? OWNER_KINDS;
  const byKind = Object.fromEntries(
    OWNER_KINDS.map((k) => [k, { kills: 0, survivors: [], goneMs: [], problems: [] }]),
  ) as unknown as Record<OwnerKind, OwnerKillFigures>;
  const result: OwnerKillResult = { cycles: opts.cycles, seed, byKind, failures: 0, durationMs: 0 };
  const shell = { name: "run_terminal_command", arguments: { command: "sleep 300", description: "wait" } };
  const rig = await startLiveRig({
    rules: [{ match: PROMPT, replies: [{ text: "waiting ", toolCalls: [shell] }, { text: "done" }] }],
  });
  if (typeof rig === "string") return { ...result, failures: 1, skipped: rig, durationMs: Date.now() - t0 };
  try {
    for (const kind of kinds) {
      const figures = byKind[kind];
      for (let i = 0; i < opts.cycles; i += 1) {
        const sandbox = createSandbox({ modelBaseUrl: rig.mock.baseUrl, prefix: "gs-r1k-" });
        const problem = (what: string) => {
          result.failures += 1;
          figures.problems.push(`#${i}: ${what}`);
        };
        let owner: Owner | undefined;
        try {
          owner = await startOwner(kind, rig, sandbox, i);
          const shellUp = await until(
            () => (processesWithHome(sandbox.home).some((p) => p.cmdline === "sleep 300") ? true : undefined),
            60_000,
          );
          if (!shellUp) {
            problem(`grok never ran the shell call (${owner.stderr().slice(-300)})`);
            continue;
          }
          await sleep(Math.floor(next() * 300));
          const reapers = reapersOf(owner.pid);
          if (reapers.length !== 1) problem(`the owner has ${reapers.length} reaper processes, not 1`);
          process.kill(owner.pid, "SIGKILL");
          const killedAt = Date.now();
          figures.kills += 1;
          const left = () => [
            ...processesWithHome(sandbox.home),
            ...reapers
              .filter(isAlive)
              .map((r) => ({ pid: r.pid, cmdline: "node reaper-main.js (the owner's reaper)" })),
          ];
          const gone = await until(() => (left().length === 0 ? true : undefined), GONE_WITHIN_MS);
          if (gone) figures.goneMs.push(Date.now() - killedAt);
          else {
            const survivors = left();
            for (const p of survivors) {
              figures.survivors.push(`#${i} pid ${p.pid} ${p.cmdline.slice(0, 100)}`);
              try {
                process.kill(p.pid, "SIGKILL");
              } catch {
                // gone meanwhile
              }
            }
            problem(
              `${survivors.length} process(es) alive ${GONE_WITHIN_MS} ms after the owner's SIGKILL: ${survivors.map((p) => `${p.pid} ${p.cmdline.slice(0, 60)}`).join("; ")}`,
            );
          }
          opts.log?.(`R1 owner kill ${kind} #${i}: ${gone ? `tree gone in ${figures.goneMs.at(-1)} ms` : "SURVIVORS"}`);
        } catch (error) {
          problem(error instanceof Error ? error.message : String(error));
        } finally {
          if (owner) {
            if (owner.child.exitCode === null && owner.child.signalCode === null) owner.child.kill("SIGKILL");
            await owner.cleanup().catch(() => undefined);
          }
          for (const p of processesWithHome(sandbox.home)) {
            try {
              process.kill(p.pid, "SIGKILL");
            } catch {
              // gone
            }
          }
          sandbox.cleanup();
        }
      }
    }
  } finally {
    await rig.close();
  }
  result.durationMs = Date.now() - t0;
  return result;
}

const pct = (values: number[], p: number) => {
  if (values.length === 0) return "–";
  const sorted = [...values].sort((a, b) => a - b);
  return String(sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]);
};

const totals = (r: OwnerKillResult) => {
  const figures = Object.values(r.byKind);
  return {
    kills: figures.reduce((n, f) => n + f.kills, 0),
    survivors: figures.reduce((n, f) => n + f.survivors.length, 0),
  };
};

/** The closing figure line. */
export function ownerKillFigureLine(r: OwnerKillResult): string {
  const t = totals(r);
  const per = OWNER_KINDS.map((k) => `${k} ${r.byKind[k].kills}`).join(", ");
  return `R1 owner SIGKILL during a tool call: ${t.kills} kills (${per}), ${r.failures} failed (${t.survivors} survivors after ${GONE_WITHIN_MS / 1000} s)${r.skipped ? ` — skipped: ${r.skipped}` : ""}; took ${(r.durationMs / 1000).toFixed(1)} s`;
}

/** The owner kills' row of the RELIABILITY.md summary. */
export function ownerKillSummaryRow(r: OwnerKillResult): string[] {
  const t = totals(r);
  return [
    "R1",
    "owner SIGKILLed during a real-grok shell call: `seat run`, `seat run -s`, `seat mcp`, `seat worker`",
    String(t.kills),
    String(r.failures),
    `0 survivors ${GONE_WITHIN_MS / 1000} s after the kill`,
    r.failures === 0 && t.kills === r.cycles * OWNER_KINDS.length ? "met" : "**missed**",
  ];
}

/** The owner kills' section of RELIABILITY.md. */
export function renderOwnerKillSection(r: OwnerKillResult, ranAt = ""): string {
  return [
    "## R1 owner SIGKILL during a tool call",
    "",
    `${r.cycles} cycles per owner (seed ${r.seed}). The real grok runs a shell tool call (\`sleep 300\`, which grok starts in its`,
    "own session); 0–300 ms after the shell is up, the owning process gets SIGKILL — `seat run`, `seat run -s NAME`, `seat mcp`",
    "(under an MCP host calling `run`) or `seat worker` (one job, its own redis-server). Each cycle has its own sandbox",
    `HOME, which the owner, grok and the shell inherit; a survivor is any live process holding that HOME, or the owner's`,
    `reaper, ${GONE_WITHIN_MS / 1000} s after the kill. Gone: kill → the last such process gone.`,
    "",
    table(
      ["owner", "kills", "survivors", "gone p50 (ms)", "gone p99 (ms)", "gone max (ms)", "problems"],
      OWNER_KINDS.map((k) => {
        const f = r.byKind[k];
        return [
          k,
          String(f.kills),
          String(f.survivors.length),
          pct(f.goneMs, 50),
          pct(f.goneMs, 99),
          pct(f.goneMs, 100),
          f.problems.slice(0, 2).join("; ") || "0",
        ];
      }),
    ),
    "",
    ...(ranAt ? [ranAt, ""] : []),
  ].join("\n");
}
