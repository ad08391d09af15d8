/*
 * R8: host disconnects (issue 19 §4) — an MCP host goes away at a random point of a `run` turn on `seat mcp` with
 *   the real grok behind it, N times; goal: 0 orphans, every turn recorded.
 * Owns: runR8() (the loop, what counts as an orphan, an unrecorded turn and a hung server), R8's summary row,
 *   section and figure line.
 * Does not own: the host process (r8-host.ts), the server (src/mcp/), the rig (test/support/live-rig.ts).
 * Method: one mock model; per disconnect a fresh sandbox (its own HOME, which the server and grok inherit — the tag
 *   the process-table scan looks for) and a fresh host process running the official MCP Client, which starts
 *   `seat mcp` and calls `run` (a turn whose answer streams for about a second). At a seeded-random point between
 *   the call and 1.2× a whole turn's time, the host goes away, rotating three ways: killed (SIGKILL: the server's
 *   stdin hits EOF and its stdout breaks), the server's stdin closed, or the SDK's client.close() (stdin closed,
 *   then SIGTERM and SIGKILL 2 s apart). Then:
 *   - hung: the server process still alive 30 s later (it is killed);
 *   - orphan: once the server is gone, any live process whose /proc/<pid>/environ holds that sandbox's HOME;
 *   - unrecorded: a turn whose prompt reached the model (grok's request, `x-grok-req-id` = the turn's promptId)
 *     with no row of that promptId in the usage ledger of the server's seat home.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { createSandbox } from "../src/sandbox/index.js";
import { journalPath } from "../src/home/seat-home.js";
import { startLiveRig } from "../test/support/live-rig.js";
import { alive } from "../test/support/processes.js";
import { table } from "./report.js";
import { mulberry32 } from "./prng.js";

/** How the host goes away. */
export type DisconnectWay = "kill-host" | "eof" | "close";

/** The ways, in rotation order. */
export const DISCONNECT_WAYS: readonly DisconnectWay[] = ["kill-host", "eof", "close"];

/** What R8 found. */
export interface R8Result {
  disconnects: number;
  seed: number;
  /** An undisturbed turn's time, call to result (ms): the range the disconnect points are drawn from. */
  turnMs: number;
  byWay: Record<DisconnectWay, number>;
  /** Disconnects that came after the result had arrived (the turn was complete). */
  afterResult: number;
  /** Turns whose prompt reached the model. */
  reachedModel: number;
  /** Of those, turns found in the ledger. */
  recorded: number;
  unrecorded: string[];
  orphans: string[];
  hung: number;
  failures: number;
  problems: string[];
  durationMs: number;
  skipped?: string;
}

const SERVER_MAIN = fileURLToPath(new URL("../cli/seat.js", import.meta.url));
const HOST_MAIN = fileURLToPath(new URL("./r8-host.js", import.meta.url));
const STORY = Array.from({ length: 24 }, (_, i) => `word${i}`).join(" ");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Live processes whose environment holds `HOME=<home>` exactly. */
export function processesWithHome(home: string): Array<{ pid: number; cmdline: string }> {
  const needle = `\0HOME=${home}\0`;
  const out: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!`\0${readFileSync(`/proc/${entry}/environ`, "utf8")}`.includes(needle) || !alive(Number(entry))) continue;
      out.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim().slice(0, 120),
      });
    } catch {
      // Gone, or not ours to read.
    }
  }
  return out;
}

/** Prompt ids in the usage ledger of the journal at `file` (none when it does not exist). */
function ledgerPromptIds(file: string): Set<string> {
  if (!existsSync(file)) return new Set();
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return new Set(
      (db.prepare("SELECT prompt_id FROM usage_ledger").all() as Array<{ prompt_id: string }>).map((r) => r.prompt_id),
    );
  } catch {
    return new Set();
  } finally {
    db.close();
  }
}

/** One host process and the lines it printed. */
interface Host {
  child: ChildProcess;
  server?: number;
  called: boolean;
  result: boolean;
  exited: boolean;
  serverExit: boolean;
  errors: string[];
  wait(test: () => boolean, ms: number): Promise<boolean>;
}

function startHost(spec: object): Host {
  const child = spawn(process.execPath, [HOST_MAIN, JSON.stringify(spec)], { stdio: ["pipe", "pipe", "pipe"] });
  const host: Host = {
    child,
    called: false,
    result: false,
    exited: false,
    serverExit: false,
    errors: [],
    async wait(test, ms) {
      const until = Date.now() + ms;
      while (!test() && Date.now() < until) await sleep(10);
      return test();
    },
  };
  let buffer = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    let at: number;
    while ((at = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 1);
      try {
        const msg = JSON.parse(line) as {
          server?: number;
          called?: boolean;
          result?: unknown;
          error?: string;
          serverExit?: boolean;
        };
        if (msg.server !== undefined) host.server = msg.server;
        if (msg.called) host.called = true;
        if (msg.result !== undefined) host.result = true;
        if (msg.serverExit) host.serverExit = true;
        if (msg.error !== undefined) host.errors.push(msg.error);
      } catch {
        host.errors.push(`not JSON: ${line.slice(0, 200)}`);
      }
    }
  });
  child.stderr!.on("data", () => undefined);
  child.stdin!.on("error", () => undefined);
  child.on("exit", () => (host.exited = true));
  return host;
}

/**
 * Runs R8: `disconnects` host disconnects at seeded-random points of a turn (or at `fractions` of a whole turn's time).
 * Never throws for one disconnect's failure.
 */
export async function runR8(opts: {
  disconnects: number;
  seed?: number;
  fractions?: readonly number[];
  log?: (line: string) => void;
}): Promise<R8Result> {
  const t0 = Date.now();
  const seed = opts.seed ?? 19;
  const next = mulberry32(seed); // a seed replays the same disconnect points
  const byWay: Record<DisconnectWay, number> = { "kill-host": 0, eof: 0, close: 0 };
  const result: R8Result = {
    disconnects: 0,
    seed,
    turnMs: 0,
    byWay,
    afterResult: 0,
    reachedModel: 0,
    recorded: 0,
    unrecorded: [],
    orphans: [],
    hung: 0,
    failures: 0,
    problems: [],
    durationMs: 0,
  };
  const rig = await startLiveRig({ rules: [{ match: "r8 turn", replies: [{ text: STORY, chunkDelayMs: 40 }] }] });
  if (typeof rig === "string") return { ...result, skipped: rig, failures: 1, problems: [rig] };
  const spec = (sandbox: ReturnType<typeof createSandbox>, prompt: string) => ({
    command: process.execPath,
    args: [SERVER_MAIN, "mcp", "--root", sandbox.project],
    env: { ...sandbox.env, GROK_BIN: rig.binary, GROK_SEAT_HOME: join(sandbox.root, "seat") },
    cwd: sandbox.project,
    prompt,
  });
  try {
    // One undisturbed turn sets the range of disconnect points.
    {
      const sandbox = createSandbox({ modelBaseUrl: rig.mock.baseUrl, prefix: "gs-r8-" });
      try {
        const host = startHost(spec(sandbox, "r8 turn baseline"));
        if (!(await host.wait(() => host.called || host.exited, 60_000)) || !host.called)
          throw new Error(`the baseline host never called run: ${host.errors.join("; ")}`);
        const called = Date.now();
        if (!(await host.wait(() => host.result || host.exited, 60_000)) || !host.result)
          throw new Error(`the baseline turn never answered: ${host.errors.join("; ")}`);
        result.turnMs = Date.now() - called;
        host.child.stdin!.write("close\n");
        await host.wait(() => host.exited, 30_000);
      } finally {
        sandbox.cleanup();
      }
    }
    for (let i = 0; i < opts.disconnects; i++) {
      const way = DISCONNECT_WAYS[i % DISCONNECT_WAYS.length]!;
      // Fixed points (as fractions of a whole turn) when given, for a deterministic test; else seeded-random ones.
      const delayMs = Math.round((opts.fractions?.[i] ?? next() * 1.2) * result.turnMs);
      const sandbox = createSandbox({ modelBaseUrl: rig.mock.baseUrl, prefix: "gs-r8-" });
      const marker = `r8 turn ${i}-${seed}`;
      const problem = (what: string) => {
        result.failures += 1;
        result.problems.push(`#${i} ${way} at ${delayMs} ms: ${what}`);
      };
      try {
        const host = startHost(spec(sandbox, marker));
        if (
          !(await host.wait(() => (host.called && host.server !== undefined) || host.exited, 60_000)) ||
          !host.called ||
          host.server === undefined
        ) {
          problem(`the host never called run (${host.errors.join("; ") || "no error"})`);
          host.child.kill("SIGKILL");
          continue;
        }
        await sleep(delayMs);
        if (host.result) result.afterResult += 1;
        const server = host.server!;
        if (way === "kill-host") host.child.kill("SIGKILL");
        else host.child.stdin!.write(`${way}\n`);
        result.disconnects += 1;
        byWay[way] += 1;
        const until = Date.now() + 30_000;
        while (alive(server) && Date.now() < until) await sleep(20);
        if (alive(server)) {
          result.hung += 1;
          problem(`seat mcp (pid ${server}) still running 30 s after the host left`);
          process.kill(server, "SIGKILL");
        }
        if (way !== "kill-host") await host.wait(() => host.exited, 10_000);
        const left = processesWithHome(sandbox.home);
        for (const p of left) {
          result.orphans.push(`#${i} ${way}: pid ${p.pid} ${p.cmdline}`);
          try {
            process.kill(p.pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
        if (left.length > 0)
          problem(`${left.length} orphan(s): ${left.map((p) => `${p.pid} ${p.cmdline}`).join("; ")}`);
        const reached = new Set(
          rig.mock.requests
            .filter((r) => r.kind === "main" && r.reqId !== undefined && JSON.stringify(r.body).includes(marker))
            .map((r) => r.reqId!),
        );
        const ledger = ledgerPromptIds(journalPath(join(sandbox.root, "seat")));
        for (const promptId of reached) {
          result.reachedModel += 1;
          if (ledger.has(promptId)) result.recorded += 1;
          else {
            result.unrecorded.push(`#${i} ${way}: ${promptId}`);
            problem(`turn ${promptId} reached the model but is not in the ledger`);
          }
        }
        opts.log?.(
          `R8 #${i} ${way} at ${delayMs} ms: reached model ${reached.size}, recorded ${[...reached].filter((p) => ledger.has(p)).length}, orphans ${left.length}${host.result ? " (after the result)" : ""}`,
        );
        if (!host.exited) host.child.kill("SIGKILL");
      } catch (error) {
        problem(error instanceof Error ? error.message : String(error));
      } finally {
        sandbox.cleanup();
      }
    }
  } catch (error) {
    result.failures += 1;
    result.problems.push(error instanceof Error ? error.message : String(error));
  } finally {
    await rig.close();
  }
  result.durationMs = Date.now() - t0;
  return result;
}

/** The closing figure line. */
export function r8FigureLine(r: R8Result): string {
  return `R8 host disconnects: ${r.disconnects} tried, ${r.failures} failed (${r.orphans.length} orphans, ${r.unrecorded.length} unrecorded of ${r.reachedModel} turns at the model, ${r.hung} hung servers); took ${(r.durationMs / 1000).toFixed(1)} s`;
}

/** R8's row of the RELIABILITY.md summary. */
export function r8SummaryRow(r: R8Result): string[] {
  return [
    "R8",
    "MCP host disconnects mid-turn on `seat mcp` + real grok: host killed, stdin closed, SDK close",
    String(r.disconnects),
    String(r.failures),
    "0 orphans, every turn that reached the model recorded, no hung server",
    r.failures === 0 && r.disconnects > 0 ? "met" : "**missed**",
  ];
}

/** R8's section of RELIABILITY.md. */
export function renderR8Section(r: R8Result, ranAt = ""): string {
  return [
    "## R8 MCP host disconnects",
    "",
    `${r.disconnects} disconnects (seed ${r.seed}) at random points between the \`run\` call and 1.2× an undisturbed turn (${r.turnMs} ms),`,
    "rotating three ways: the host process killed (SIGKILL), the server's stdin closed, and the MCP SDK's `client.close()`",
    "(stdin closed, then SIGTERM and SIGKILL 2 s apart). Each disconnect has its own sandbox HOME, which `seat mcp` and grok",
    "inherit; once the server has exited, any live process holding that HOME is an orphan. A turn whose prompt reached the",
    "model must have its promptId in the usage ledger of the server's seat home.",
    "",
    table(
      [
        "disconnects",
        "killed / stdin / SDK close",
        "after the result",
        "turns at the model",
        "recorded",
        "orphans",
        "hung servers",
        "failures",
      ],
      [
        [
          String(r.disconnects),
          `${r.byWay["kill-host"]} / ${r.byWay.eof} / ${r.byWay.close}`,
          String(r.afterResult),
          String(r.reachedModel),
          String(r.recorded),
          String(r.orphans.length),
          String(r.hung),
          r.problems.slice(0, 3).join("; ") || "0",
        ],
      ],
    ),
    "",
    ...(ranAt ? [ranAt, ""] : []),
  ].join("\n");
}
