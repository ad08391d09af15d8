/*
 * Door parity on the real grok 1.0.41 against the scripted mock: each door of parity-cases.ts runs three turns —
 *   a turn in a worktree whose shell command is held for approval and whose answer echoes a canary key, a turn with
 *   a token budget its first model call passes, and a slow turn cancelled from another shell — and every cell of
 *   that door is checked: `seat ps --json` lists it with its kind (and name) while working and while waiting; `seat
 *   approvals --json` in another process names its owner, and `seat approve` there answers it; the command's file is
 *   committed on seat/<name> and the user's tree is untouched; the ledger counts every model call the mock served,
 *   once; the budget ends its turn BUDGET_EXCEEDED before its next call; `seat cancel` ends the slow turn cancelled
 *   with no agent left; the journal records each turn; the canary is masked in what the door prints and writes. A
 *   door's failing cells are reported together, by cell. Every door is looked at from the repository, as a person
 *   in it would (named doors too, though they work in a worktree).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SEAT_MAIN, runSeat, startSeat } from "../../support/cli.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";
import { gitIn, makeRepo } from "../../support/git-repo.js";
import { filesHolding } from "../../support/secret-canary.js";
import { redisMissing, startFleetRig, type FleetRig } from "../../support/fleet-rig.js";
import { need } from "../../support/requirements.js";
import { openSession } from "../../../src/sessions/index.js";
import { finishTurnWorktree, planTurnWorktree } from "../../../src/index.js";
import { DEFAULT_POLICY, createPermissionGate } from "../../../src/permissions/index.js";
import type { MockScript } from "../../../src/testing.js";
import { DOORS, PROPERTIES, type Cell, type Door, type PropertyId } from "./parity-cases.js";
import { untilDefined } from "../../support/poll.js";

type Item = Record<string, unknown>;

const MARKER = "parity-marker.txt";
/** The model's key as every door's environment carries it; the model echoes it in the first turn's answer. */
const CANARY = "xai-canary-parity-4e7d1a90c2b3";
const REDACTED = "[redacted]";
// The mock matches a rule by substring: the id is bracketed, so library-turn's rules never answer library-turn-named.
const promptOf = (door: Door) => `parity turn for [${door.id}]`;
const budgetPromptOf = (door: Door) => `parity budget for [${door.id}]`;
const cancelPromptOf = (door: Door) => `parity cancel for [${door.id}]`;
/** The worktree a door is asked to work in (a door that makes its own, such as compare, is asked for none). */
const worktreeOf = (door: Door) => {
  const cell = door.cells.worktree;
  return "worktree" in cell && "name" in cell.worktree ? cell.worktree.name : undefined;
};
/** The child process a library caller runs in (test/support/library-turn-door.ts). */
const LIBRARY_TURN_DOOR = fileURLToPath(new URL("../../support/library-turn-door.js", import.meta.url));

// Each door's first turn streams text slowly (so `seat ps` sees it working), asks to run a shell command (held),
// then answers with the key; its budget turn's first call (11 + 3 tokens, over its budget of 5) asks to run a command
// held for approval that nobody answers; its cancel turn streams for a minute unless cancelled.
const SCRIPT: MockScript = {
  rules: DOORS.flatMap((door) => [
    {
      match: promptOf(door),
      replies: [
        {
          text: "thinking it over for a little while before writing the marker file in the tree it works in now",
          chunkDelayMs: 400,
          toolCalls: [
            {
              name: "run_terminal_command",
              arguments: { command: `echo ${door.id} > ${MARKER}`, description: `write ${MARKER}` },
            },
          ],
        },
        { text: `marker written; the key is ${CANARY} here` },
      ],
    },
    {
      match: budgetPromptOf(door),
      replies: [
        {
          text: "over budget",
          toolCalls: [{ name: "run_terminal_command", arguments: { command: "echo never", description: "never" } }],
        },
        { text: "never sent" },
      ],
    },
    {
      match: cancelPromptOf(door),
      replies: [{ text: "a long answer that takes a minute to stream ".repeat(15), chunkDelayMs: 500 }],
    },
  ]),
};

let rig: LiveRig | string;
let dir: string;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;
/** The fleet door's redis-server and its one worker (a host with its own seat home), or why there is none. */
let fleet: { rig: FleetRig; url: string; workerHome: string } | string;
/** A shell on another host: no HOME of the worker, no key. */
const elsewhere = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1" });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), "gs-live-parity-"));
  repo = join(dir, "project");
  makeRepo(repo, { "README.md": "# project\n" });
  home = join(dir, "seat-home");
  rig = await startLiveRig(SCRIPT);
  if (typeof rig !== "string")
    env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: rig.sandbox.home,
      GROK_HOME: rig.sandbox.grokHome,
      GROK_BIN: rig.binary,
      GROK_SEAT_HOME: home,
      NO_COLOR: "1",
      XAI_API_KEY: CANARY,
    };
  const missing = redisMissing();
  if (missing || typeof rig === "string") fleet = missing || "no live rig";
  else {
    const fleetRig = await startFleetRig();
    const worker = await fleetRig.startWorker("host-a", {
      env: { HOME: rig.sandbox.home, GROK_HOME: rig.sandbox.grokHome, GROK_BIN: rig.binary, XAI_API_KEY: CANARY },
    });
    fleet = { rig: fleetRig, url: fleetRig.redis.url, workerHome: join(worker.home, ".grok-seat") };
  }
});

after(async () => {
  if (fleet && typeof fleet !== "string") await fleet.rig.close();
  // A door that failed half-way may leave its grok behind (its seat killed): end those, by pid, before the rig goes.
  if (typeof rig !== "string")
    for (const pid of agentsAlive(rig))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone already */
      }
  if (typeof rig !== "string") await rig.close();
  rmSync(dir, { recursive: true, force: true });
});

function jsonLines(text: string): Item[] {
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Item);
}

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> =>
  untilDefined(what, probe, { timeoutMs, everyMs: 100 });

/** How one turn ended, as the door said it. */
interface Outcome {
  promptId?: string;
  stopReason?: string | null;
  /** Every code the door reported for the turn (diagnostics and errors). */
  codes: string[];
  /** What the door printed or returned for the turn (stdout + stderr, the tool result); "" when it prints nothing. */
  printed: string;
  /** The fleet job that ran the turn. */
  jobId?: string;
  /** The worktree the door said the turn worked in (a door that makes its own: compare). */
  worktree?: string;
}

/** One turn, started: the pid that holds it (or the fleet job that runs it), and its end. */
interface Running {
  pid?: number;
  jobId?: string;
  done: Promise<Outcome>;
}

/** A door, driven the way a person (or a library caller) reaches it. */
interface Driver {
  turn(prompt: string, options: { worktree?: string; maxTokens?: number }): Promise<Running>;
  /** Ends the running turn from inside the door (when the cell under test failed to). */
  abort(): void;
  /** Ends the door: the MCP client goes, the library disposes its session and commits its worktree. */
  close(): Promise<void>;
  /** The seat home whose journal holds the door's ledger (the worker's, for a fleet job). */
  seatHome: string;
  /** Flags and environment of the `seat` verbs that look at the door from another shell (`--redis URL`). */
  look: { args: string[]; env: NodeJS.ProcessEnv };
}

function cliDriver(door: Door): Driver {
  let current: ReturnType<typeof startSeat> | undefined;
  return {
    async turn(prompt, options) {
      current = startSeat(
        [
          "run",
          "--json",
          "--ask",
          "execute",
          ...(door.session ? ["-s", door.session] : []),
          ...(options.worktree ? [`--worktree=${options.worktree}`] : []),
          ...(options.maxTokens !== undefined ? ["--max-tokens", String(options.maxTokens)] : []),
          prompt,
        ],
        { env, cwd: repo },
      );
      const run = current;
      return {
        pid: run.child.pid!,
        done: run.done.then(runOutcome),
      };
    },
    abort: () => void current?.child.kill("SIGINT"),
    close: async () => void current?.child.kill("SIGKILL"),
    seatHome: home,
    look: { args: [], env },
  };
}

/** Parses the NDJSON `seat run --json` / `seat submit --wait` print. */
function runOutcome(r: { code: number | null; stdout: string; stderr: string }): Outcome {
  const lines = jsonLines(r.stdout);
  const done = lines.find((l) => l.type === "done");
  const codes = lines.flatMap((l) =>
    l.type === "diagnostic"
      ? [String((l.diagnostic as Item).code)]
      : l.type === "error"
        ? [String(l.code ?? (l.error as Item | undefined)?.code)]
        : [],
  );
  return {
    ...(typeof done?.promptId === "string" ? { promptId: done.promptId } : {}),
    stopReason: (done?.stopReason as string | undefined) ?? null,
    codes,
    printed: `exit ${r.code}\n${r.stdout}${r.stderr}`,
  };
}

/** A fleet job per turn: `seat submit --wait` from another host's shell, run by the rig's worker. */
function fleetDriver(door: Door, where: { url: string; workerHome: string }): Driver {
  let current: ReturnType<typeof startSeat> | undefined;
  let jobs = 0;
  return {
    async turn(prompt, options) {
      const jobId = `${door.id}-${(jobs += 1)}`;
      current = startSeat(
        [
          "submit",
          "--redis",
          where.url,
          "--wait",
          "--id",
          jobId,
          "--ask",
          "execute",
          "--cwd",
          repo,
          ...(options.maxTokens !== undefined ? ["--max-tokens", String(options.maxTokens)] : []),
          prompt,
        ],
        { env: elsewhere(), cwd: dir },
      );
      return { jobId, done: current.done.then((r) => ({ ...runOutcome(r), jobId })) };
    },
    abort: () => void current?.child.kill("SIGINT"),
    close: async () => void current?.child.kill("SIGKILL"),
    seatHome: where.workerHome,
    look: { args: ["--redis", where.url], env: elsewhere() },
  };
}

async function mcpDriver(door: Door): Promise<Driver> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SEAT_MAIN, "mcp", "--root", repo, "--ask", "execute"],
    env: env as Record<string, string>,
    cwd: repo,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: "parity-host", version: "1.0.0" });
  await client.connect(transport);
  let aborter = new AbortController();
  return {
    async turn(prompt, options) {
      aborter = new AbortController();
      const from = stderr.length;
      const call = client.callTool(
        {
          name: "run",
          arguments: {
            prompt,
            ...(door.session ? { session: door.session } : {}),
            ...(options.worktree ? { worktree: options.worktree } : {}),
            ...(options.maxTokens !== undefined ? { maxTokens: options.maxTokens } : {}),
          },
        },
        CallToolResultSchema,
        { timeout: 120_000, signal: aborter.signal },
      ) as Promise<CallToolResult>;
      return {
        pid: transport.pid!,
        done: call.then(
          (result) => {
            const out = (result.structuredContent ?? {}) as Item;
            const error = (result._meta?.["grok-seat/error"] as Item | undefined)?.code;
            return {
              ...(typeof out.promptId === "string" ? { promptId: out.promptId } : {}),
              stopReason: (out.stopReason as string | null | undefined) ?? null,
              codes: [
                ...((out.diagnostics as Item[] | undefined) ?? []).map((d) => String(d.code)),
                ...(error ? [String(error)] : []),
              ],
              printed: `${JSON.stringify(result)}\n${stderr.slice(from)}`,
            };
          },
          (error: unknown) => ({
            stopReason: null,
            codes: ["CLIENT_ABORTED"],
            printed: `${String(error)}\n${stderr.slice(from)}`,
          }),
        ),
      };
    },
    abort: () => aborter.abort(),
    close: () => client.close(),
    seatHome: home,
    look: { args: [], env },
  };
}

async function libraryDriver(door: Door, live: LiveRig): Promise<Driver> {
  const worktree = worktreeOf(door);
  const plan = worktree
    ? await planTurnWorktree({ home, cwd: repo, session: door.session!, worktree: { name: worktree } })
    : undefined;
  let taken: Awaited<ReturnType<NonNullable<typeof plan>["take"]>> | undefined;
  const opened = await openSession({
    ...live.sessionOptions,
    env: { ...live.sessionOptions.env, XAI_API_KEY: CANARY },
    cwd: plan?.path ?? repo,
    // Named from the repository the caller is in, while the agent works in the worktree.
    scopeDir: repo,
    home,
    name: door.session!,
    permissions: createPermissionGate({ policy: DEFAULT_POLICY }),
    approvals: { timeoutMs: 120_000 },
    ...(plan ? { beforeStart: async () => void (taken = await plan.take()) } : {}),
  });
  const session = opened.session;
  let first: { promptId: string; prompt: string } | undefined;
  let aborter = new AbortController();
  return {
    async turn(prompt, options) {
      aborter = new AbortController();
      const done = session
        .prompt(prompt, {
          signal: aborter.signal,
          ...(options.maxTokens !== undefined ? { budget: { maxTokens: options.maxTokens } } : {}),
        })
        .then((result) => {
          first ??= { promptId: result.promptId, prompt };
          return {
            promptId: result.promptId,
            stopReason: result.stopReason ?? null,
            codes: result.diagnostic ? [result.diagnostic.code] : [],
            printed: "",
          };
        });
      return { pid: process.pid, done };
    },
    abort: () => aborter.abort(),
    seatHome: home,
    look: { args: [], env },
    async close() {
      try {
        await session.dispose();
        if (taken && first) await finishTurnWorktree(taken, first);
      } finally {
        taken?.lock.release();
      }
    },
  };
}

/**
 * A library caller in its own process (test/support/library-turn-door.ts): one runSupervisedTurn per turn, a fresh
 * session or the door's named session, with held approvals. What it prints is its stderr (nothing, normally).
 */
function libraryTurnDriver(door: Door): Driver {
  const child = spawn(
    process.execPath,
    [LIBRARY_TURN_DOOR, JSON.stringify({ cwd: repo, ...(door.session ? { named: door.session } : {}) })],
    { env, cwd: repo, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((r) => child.on("close", () => r()));
  const waiting: ((line: Item) => void)[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => waiting.shift()?.(JSON.parse(line) as Item));
  return {
    async turn(prompt, options) {
      const from = stderr.length;
      const done = new Promise<Outcome>((resolve) => {
        waiting.push((line) =>
          resolve({
            ...(typeof line.promptId === "string" ? { promptId: line.promptId } : {}),
            stopReason: (line.stopReason as string | null) ?? null,
            codes: (line.codes as string[]) ?? [],
            printed: stderr.slice(from),
            ...(typeof line.worktree === "string" ? { worktree: line.worktree } : {}),
          }),
        );
        void exited.then(() =>
          resolve({ stopReason: null, codes: ["LIBRARY_CALLER_EXITED"], printed: stderr.slice(from) }),
        );
      });
      child.stdin.write(`${JSON.stringify({ op: "turn", prompt, ...options })}\n`);
      return { pid: child.pid!, done };
    },
    abort: () => void child.stdin.write(`${JSON.stringify({ op: "abort" })}\n`),
    async close() {
      child.stdin.end();
      await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000))]);
      child.kill("SIGKILL");
    },
    seatHome: home,
    look: { args: [], env },
  };
}

/** `seat compare --agents grok --json` per turn: the agent works in the worktree compare makes for it. */
function compareDriver(): Driver {
  let current: ReturnType<typeof startSeat> | undefined;
  return {
    async turn(prompt) {
      current = startSeat(["compare", "--agents", "grok", "--json", "--ask", "execute", prompt], { env, cwd: repo });
      return { pid: current.child.pid!, done: current.done.then(compareOutcome) };
    },
    abort: () => void current?.child.kill("SIGINT"),
    close: async () => void current?.child.kill("SIGKILL"),
    seatHome: home,
    look: { args: [], env },
  };
}

/** Parses `seat compare --json`'s row of the one agent. */
function compareOutcome(r: { code: number | null; stdout: string; stderr: string }): Outcome {
  const row = r.stdout
    .split("\n")
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as Item];
      } catch {
        return [];
      }
    })
    .find((l) => l.type === "compare" || l.type === "error");
  return {
    ...(typeof row?.promptId === "string" ? { promptId: row.promptId } : {}),
    stopReason: (row?.stopReason as string | null | undefined) ?? null,
    codes: typeof row?.code === "string" ? [row.code] : [],
    printed: `exit ${r.code}\n${r.stdout}${r.stderr}`,
    ...(typeof row?.name === "string" ? { worktree: row.name } : {}),
  };
}

async function ps(look: Driver["look"]): Promise<Item[]> {
  const listed = await runSeat(["ps", "--json", ...look.args], { env: look.env, cwd: repo });
  assert.equal(listed.code, 0, listed.stderr);
  return jsonLines(listed.stdout);
}

/** Pids of the grok processes this suite's sandbox started that are still alive. */
function agentsAlive(live: LiveRig): number[] {
  const marker = `GROK_HOME=${live.sandbox.grokHome}\0`;
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, "latin1");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "latin1");
      if (`${environ}\0`.includes(marker) && cmdline.includes(live.binary)) pids.push(Number(entry));
    } catch {
      /* gone, or not ours */
    }
  }
  return pids;
}

/** The journal's ledger rows after row `afterId` (the real SQLite file the seat writes, read only). */
function ledgerRowsAfter(seatHome: string, afterId: number): Item[] {
  if (!existsSync(join(seatHome, "seats.db"))) return [];
  const db = new Database(join(seatHome, "seats.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT * FROM usage_ledger WHERE id > ? ORDER BY id").all(afterId) as Item[];
  } finally {
    db.close();
  }
}

/** The fleet door's rig; redis-server missing fails the door (required mode) through `need` first. */
function fleetOrFail(): { url: string; workerHome: string } {
  if (typeof fleet === "string") throw new Error(`the fleet door needs ${fleet}`);
  return fleet;
}

/** Checks one cell; throws what failed. */
type CellCheck = (cell: Cell) => Promise<void>;

for (const door of DOORS) {
  test(`parity: ${door.id} (${door.label}) — ${Object.keys(PROPERTIES).join(", ")}`, async (t) => {
    if (!gotLive(t, rig)) return;
    if (door.id === "fleet-job" && !need(t, typeof fleet === "string" ? fleet : false)) return;
    const live = rig;
    for (const property of Object.keys(PROPERTIES) as PropertyId[])
      assert.ok(door.cells[property], `${door.id} has a cell for ${property}`);
    const failures: string[] = [];
    const checked = new Set<PropertyId>();
    const check = async (property: PropertyId, body: CellCheck) => {
      const cell = door.cells[property];
      if ("na" in cell) {
        assert.match(cell.na, /\S{3}/, `${door.id} × ${property}: a cell that does not apply says why`);
        checked.add(property);
        return;
      }
      try {
        await body(cell);
      } catch (error) {
        failures.push(`${door.id} × ${property}: ${error instanceof Error ? error.message : String(error)}`);
      }
      checked.add(property);
    };
    const named = door.session !== undefined;
    const worktree = worktreeOf(door);
    const servedFrom = live.mock.requests.length;
    // The ledger is compared with what the mock served up to the cancel turn: a call cancelled mid-stream was sent
    // but never answered in full, so the mock reports no usage for it (the cancelled turn's own row is checked).
    let ledgerUntil = Number.POSITIVE_INFINITY;
    let servedUntil = Number.POSITIVE_INFINITY;
    const outcomes: Outcome[] = [];
    const driver =
      door.id === "cli-plain" || door.id === "cli-named"
        ? cliDriver(door)
        : door.id === "mcp-run" || door.id === "mcp-named"
          ? await mcpDriver(door)
          : door.id === "fleet-job"
            ? fleetDriver(door, fleetOrFail())
            : door.id === "compare"
              ? compareDriver()
              : door.id === "library-turn" || door.id === "library-turn-named"
                ? libraryTurnDriver(door)
                : await libraryDriver(door, live);
    const ledgerFrom = Math.max(0, ...ledgerRowsAfter(driver.seatHome, 0).map((r) => Number(r.id)));
    let closed = false;
    try {
      // Turn 1: held for approval, answered from another process, committed in its worktree, the key echoed.
      const started = await driver.turn(promptOf(door), worktree ? { worktree } : {});
      const mine = (i: Item) =>
        started.jobId !== undefined
          ? i.id === started.jobId
          : i.pid === started.pid && (door.session === undefined || i.name === door.session);
      await check("ps", async (cell) => {
        if (!("ps" in cell)) throw new Error("not a ps cell");
        const working = await until(`${door.id} listed working`, async () =>
          (await ps(driver.look)).find((i) => mine(i) && i.state === "working"),
        );
        assert.equal(working.kind, cell.ps.kind);
        assert.equal(working.name, cell.ps.name);
        const waiting = await until(`${door.id} listed waiting`, async () =>
          (await ps(driver.look)).find((i) => mine(i) && i.state === "waiting"),
        );
        assert.equal(waiting.kind, cell.ps.kind);
        assert.equal(waiting.name, cell.ps.name);
        assert.equal(waiting.waitingOn, "approval");
      });
      // The held approval is there whatever the ps cell found; it is listed and answered from other processes.
      const approval = await until(
        `${door.id}'s held approval`,
        async () => {
          const listed = await runSeat(["approvals", "--json", ...driver.look.args], {
            env: driver.look.env,
            cwd: repo,
          });
          return jsonLines(listed.stdout).find((a) => {
            const owner = a.owner as Item | undefined;
            return a.type === "approval" && (started.jobId ? owner?.id === started.jobId : owner?.pid === started.pid);
          });
        },
        60_000,
      );
      await check("approval-owner", async (cell) => {
        if (!("owner" in cell)) throw new Error("not an owner cell");
        const owner = approval.owner as Item;
        assert.equal(owner.kind, cell.owner.kind, JSON.stringify(owner));
        assert.equal(owner.name, cell.owner.name, JSON.stringify(owner));
      });
      const approved = await runSeat(["approve", String(approval.id), ...driver.look.args], {
        env: driver.look.env,
        cwd: repo,
      });
      assert.equal(approved.code, 0, approved.stderr);
      const first = await started.done;
      outcomes.push(first);
      assert.equal(first.stopReason, "end_turn", first.printed);

      // Turn 2: a budget its first model call passes (named doors continue the session, in its worktree).
      const later = named && worktree ? { worktree } : {};
      await check("budget", async (cell) => {
        if (!("budget" in cell)) throw new Error("not a budget cell");
        const over = await (await driver.turn(budgetPromptOf(door), { ...later, maxTokens: cell.budget.maxTokens }))
          .done;
        if (over.promptId) outcomes.push(over);
        assert.ok(over.codes.includes(cell.budget.code), `codes ${JSON.stringify(over.codes)}: ${over.printed}`);
        assert.equal(over.stopReason, "cancelled", over.printed);
        // Its command, held for approval, is never answered: only the budget can end the turn, and its next model
        // call (the command's result) must never reach the model.
        await new Promise((r) => setTimeout(r, 1_000));
        const calls = live.mock.requests.filter(
          (r) => r.reqId === over.promptId && (r.kind === "main" || r.kind === "tool_followup"),
        );
        assert.deepEqual(
          calls.map((r) => r.kind),
          ["main"],
          "the turn made one model call",
        );
      });

      // Turn 3: a slow turn, cancelled from another shell.
      await check("cancel", async (cell) => {
        if (!("cancel" in cell)) throw new Error("not a cancel cell");
        ledgerUntil = Math.max(ledgerFrom, ...ledgerRowsAfter(driver.seatHome, ledgerFrom).map((r) => Number(r.id)));
        servedUntil = live.mock.requests.length;
        const slow = await driver.turn(cancelPromptOf(door), later);
        let ended: Outcome | undefined;
        try {
          const working = await until(`${door.id}'s slow turn listed working`, async () =>
            (await ps(driver.look)).find(
              (i) => (slow.jobId ? i.id === slow.jobId : i.pid === slow.pid) && i.state === "working",
            ),
          );
          const cancel = await runSeat(
            cell.cancel.by === "name"
              ? ["cancel", "-s", door.session!]
              : cell.cancel.by === "job-id"
                ? ["jobs", "cancel", slow.jobId!, ...driver.look.args]
                : ["cancel", String(working.id)],
            { env: driver.look.env, cwd: repo },
          );
          assert.equal(cancel.code, 0, `seat cancel: exit ${cancel.code}\n${cancel.stdout}${cancel.stderr}`);
          ended = await Promise.race([
            slow.done,
            new Promise<undefined>((r) => setTimeout(() => r(undefined), 20_000)),
          ]);
          assert.ok(ended, "the turn ended within 20 s of the cancel");
          assert.equal(ended.stopReason, "cancelled", ended.printed);
          // The library's caller disposes its own session (checked after close); every other door disposes it.
          if (door.id !== "library-named")
            await until(`${door.id}'s agent disposed`, async () => (agentsAlive(live).length === 0 ? true : undefined));
        } finally {
          if (!ended) {
            driver.abort();
            ended = await slow.done;
          }
          if (ended.promptId) outcomes.push(ended);
        }
      });
      await driver.close();
      closed = true;
      const alive = await until(
        "no agent left after the door closed",
        async () => (agentsAlive(live).length === 0 ? [] : undefined),
        10_000,
      ).catch(() => agentsAlive(live));
      assert.deepEqual(alive, [], "no grok process outlives the door");

      await check("worktree", async (cell) => {
        if (!("worktree" in cell)) throw new Error("not a worktree cell");
        let name: string;
        if ("made" in cell.worktree) {
          assert.match(String(first.worktree), cell.worktree.made, `the worktree the door made: ${first.printed}`);
          name = first.worktree!;
        } else name = cell.worktree.name;
        assert.equal(
          gitIn(repo, ["show", `seat/${name}:${MARKER}`]),
          `${door.id}\n`,
          "the turn's file is committed on its branch",
        );
        assert.equal(existsSync(join(repo, MARKER)), false, "the user's tree has no marker");
      });

      await check("ledger", async (cell) => {
        if (!("ledger" in cell)) throw new Error("not a ledger cell");
        const served = live.mock.requests.slice(servedFrom, servedUntil).filter((r) => r.served);
        const all = ledgerRowsAfter(driver.seatHome, ledgerFrom);
        const rows = all.filter((r) => Number(r.id) <= ledgerUntil);
        const sum = (key: string) => rows.reduce((n, r) => n + (Number(r[key]) || 0), 0);
        const summary = JSON.stringify({
          ledger: all.map((r) => [
            r.prompt_id,
            r.source,
            r.session_name,
            r.metered,
            r.model_calls,
            r.input_tokens,
            r.output_tokens,
          ]),
          served: served.map((r) => [r.kind, r.reqId, r.served!.promptTokens, r.served!.completionTokens]),
        });
        assert.equal(sum("model_calls"), served.length, `model calls in the ledger: ${summary}`);
        assert.equal(
          sum("input_tokens"),
          served.reduce((n, r) => n + r.served!.promptTokens, 0),
          `input tokens: ${summary}`,
        );
        assert.equal(
          sum("output_tokens"),
          served.reduce((n, r) => n + r.served!.completionTokens, 0),
          `output tokens: ${summary}`,
        );
        for (const row of all) {
          assert.equal(row.source, cell.ledger.source, `a row's source: ${summary}`);
          assert.equal(row.session_name, cell.ledger.session ?? null, `a row's session: ${summary}`);
        }
        for (const outcome of outcomes)
          assert.ok(
            all.some((r) => r.prompt_id === outcome.promptId && r.metered === "agent"),
            `turn ${outcome.promptId} has its row: ${summary}`,
          );
      });

      await check("journal", async (cell) => {
        if ("jobRecord" in cell) {
          const shown = await Promise.all(
            outcomes.map(async (o) => {
              const record = await runSeat(["jobs", "show", String(o.jobId), "--json", ...driver.look.args], {
                env: driver.look.env,
              });
              const job = jsonLines(record.stdout).find((l) => l.type === "job");
              return [o.jobId, job?.promptId, job?.status];
            }),
          );
          assert.deepEqual(
            shown,
            outcomes.map((o) => [o.jobId, o.promptId, o.stopReason === "cancelled" ? "cancelled" : "completed"]),
          );
          return;
        }
        if (!("journal" in cell)) throw new Error("not a journal cell");
        const history = await runSeat(["sessions", "history", cell.journal.name, "--json"], {
          env,
          cwd: repo,
        });
        assert.equal(history.code, 0, history.stdout + history.stderr);
        const turns = jsonLines(history.stdout).map((row) => [row.promptId, row.state, row.stopReason]);
        assert.deepEqual(
          turns,
          outcomes.map((o) => [o.promptId, o.stopReason === "cancelled" ? "interrupted" : "completed", o.stopReason]),
        );
      });

      await check("masking", async (cell) => {
        if (!("masking" in cell)) throw new Error("not a masking cell");
        for (const [i, outcome] of outcomes.entries())
          assert.ok(!outcome.printed.includes(CANARY), `turn ${i + 1} printed the key: ${outcome.printed}`);
        if (cell.masking.prints === "stdout and stderr" || cell.masking.prints === "the tool result")
          assert.ok(first.printed.includes(REDACTED), `the echoed key shows as ${REDACTED}: ${first.printed}`);
        const held = filesHolding([driver.seatHome], CANARY);
        assert.ok(held.checked > 0, "the seat home was read");
        assert.deepEqual(held.hits, [], "no file of the seat home holds the key");
        if (named) {
          const history = await runSeat(["sessions", "history", door.session!, "--json"], {
            env: { ...env, XAI_API_KEY: "" },
            cwd: repo,
          });
          const answer = jsonLines(history.stdout).find((row) => row.promptId === first.promptId);
          assert.ok(String(answer?.text).includes(REDACTED), `the journal's answer: ${JSON.stringify(answer)}`);
        }
      });
    } finally {
      if (!closed) await driver.close().catch(() => undefined);
      rmSync(join(repo, MARKER), { force: true });
    }
    assert.deepEqual([...checked].sort(), Object.keys(PROPERTIES).sort(), "every cell was checked or said why not");
    assert.deepEqual(failures, [], failures.join("\n"));
  });
}
