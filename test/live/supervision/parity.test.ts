/*
 * Door parity on the real grok 1.0.41 against the scripted mock: each door of parity-cases.ts runs one supervised
 *   turn in a worktree whose shell command is held for approval, and every cell of that door is checked — `seat ps
 *   --json` lists it with its kind (and name) while working and while waiting; `seat approvals --json` in another
 *   process names its owner, and `seat approve` there answers it; the command's file is committed on seat/<name>
 *   and the user's tree is untouched. A door's failing cells are reported together, by cell.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { SEAT_MAIN, runSeat, startSeat } from "../../support/cli.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";
import { gitIn, makeRepo } from "../../support/git-repo.js";
import { openSession } from "../../../src/sessions/index.js";
import { finishTurnWorktree, planTurnWorktree } from "../../../src/index.js";
import { DEFAULT_POLICY, createPermissionGate } from "../../../src/permissions/index.js";
import type { MockScript } from "../../../src/testing.js";
import { DOORS, PROPERTIES, type Cell, type Door, type PropertyId } from "./parity-cases.js";

type Item = Record<string, unknown>;

const MARKER = "parity-marker.txt";
const promptOf = (door: Door) => `parity turn for ${door.id}`;
const worktreeOf = (door: Door) => {
  const cell = door.cells.worktree;
  return "worktree" in cell ? cell.worktree.name : undefined;
};

// Each door's turn streams text slowly (so `seat ps` sees it working), then asks to run a shell command (held).
const SCRIPT: MockScript = {
  rules: DOORS.map((door) => ({
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
      { text: "marker written" },
    ],
  })),
};

let rig: LiveRig | string;
let dir: string;
let repo: string;
let home: string;
let env: NodeJS.ProcessEnv;

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
    };
});

after(async () => {
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

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** One door's turn, started: the pid that holds it, and its end. */
interface Started {
  pid: number;
  done: Promise<void>;
  kill(): void;
}

/** Starts `door`'s turn the way a person (or a library caller) would. */
async function startDoor(door: Door, live: LiveRig): Promise<Started> {
  const worktree = worktreeOf(door);
  if (door.id === "cli-plain" || door.id === "cli-named") {
    const run = startSeat(
      [
        "run",
        "--json",
        "--ask",
        "execute",
        ...(door.session ? ["-s", door.session] : []),
        ...(worktree ? [`--worktree=${worktree}`] : []),
        promptOf(door),
      ],
      { env, cwd: repo },
    );
    return {
      pid: run.child.pid!,
      done: run.done.then((r) => assert.equal(r.code, 0, r.stdout.slice(-2000) + r.stderr)),
      kill: () => void run.child.kill("SIGKILL"),
    };
  }
  if (door.id === "mcp-run" || door.id === "mcp-named") {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SEAT_MAIN, "mcp", "--root", repo, "--ask", "execute"],
      env: env as Record<string, string>,
      cwd: repo,
      stderr: "pipe",
    });
    const client = new Client({ name: "parity-host", version: "1.0.0" });
    await client.connect(transport);
    const call = client.callTool(
      {
        name: "run",
        arguments: {
          prompt: promptOf(door),
          ...(door.session ? { session: door.session } : {}),
          ...(worktree ? { worktree } : {}),
        },
      },
      CallToolResultSchema,
      { timeout: 120_000 },
    ) as Promise<CallToolResult>;
    return {
      pid: transport.pid!,
      done: call
        .then((result) => assert.equal(result.isError, undefined, JSON.stringify(result)))
        .finally(() => client.close()),
      kill: () => void client.close(),
    };
  }
  // The library: a named session with held approvals, in this process; the worktree through the same lifecycle.
  const plan = worktree
    ? await planTurnWorktree({ home, cwd: repo, session: door.session!, worktree: { name: worktree } })
    : undefined;
  let taken: Awaited<ReturnType<NonNullable<typeof plan>["take"]>> | undefined;
  const opened = await openSession({
    ...live.sessionOptions,
    cwd: plan?.path ?? repo,
    home,
    name: door.session!,
    permissions: createPermissionGate({ policy: DEFAULT_POLICY }),
    approvals: { timeoutMs: 120_000 },
    ...(plan ? { beforeStart: async () => void (taken = await plan.take()) } : {}),
  });
  const session = opened.session;
  const done = (async () => {
    try {
      const result = await session.prompt(promptOf(door));
      assert.equal(result.stopReason, "end_turn", JSON.stringify(result.diagnostic));
      await session.dispose();
      if (taken) await finishTurnWorktree(taken, { promptId: result.promptId, prompt: promptOf(door) });
    } finally {
      await session.dispose();
      taken?.lock.release();
    }
  })();
  return { pid: process.pid, done, kill: () => void session.dispose() };
}

async function ps(): Promise<Item[]> {
  const listed = await runSeat(["ps", "--json"], { env, cwd: repo });
  assert.equal(listed.code, 0, listed.stderr);
  return jsonLines(listed.stdout);
}

/** Checks one cell; returns what failed, or null. */
type CellCheck = (cell: Cell) => Promise<void>;

for (const door of DOORS) {
  test(`parity: ${door.id} (${door.label}) — ${Object.keys(PROPERTIES).join(", ")}`, async (t) => {
    if (!gotLive(t, rig)) return;
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
    const started = await startDoor(door, live);
    try {
      const mine = (i: Item) => i.pid === started.pid && (door.session === undefined || i.name === door.session);
      await check("ps", async (cell) => {
        if (!("ps" in cell)) throw new Error("not a ps cell");
        const working = await until(`${door.id} listed working`, async () =>
          (await ps()).find((i) => mine(i) && i.state === "working"),
        );
        assert.equal(working.kind, cell.ps.kind);
        assert.equal(working.name, cell.ps.name);
        const waiting = await until(`${door.id} listed waiting`, async () =>
          (await ps()).find((i) => mine(i) && i.state === "waiting"),
        );
        assert.equal(waiting.kind, cell.ps.kind);
        assert.equal(waiting.name, cell.ps.name);
        assert.equal(waiting.waitingOn, "approval");
      });
      // The held approval is there whatever the ps cell found; it is listed and answered from other processes.
      const approval = await until(
        `${door.id}'s held approval`,
        async () => {
          const listed = await runSeat(["approvals", "--json"], { env, cwd: repo });
          return jsonLines(listed.stdout).find(
            (a) => a.type === "approval" && (a.owner as Item | undefined)?.pid === started.pid,
          );
        },
        60_000,
      );
      await check("approval-owner", async (cell) => {
        if (!("owner" in cell)) throw new Error("not an owner cell");
        const owner = approval.owner as Item;
        assert.equal(owner.kind, cell.owner.kind, JSON.stringify(owner));
        assert.equal(owner.name, cell.owner.name, JSON.stringify(owner));
      });
      const approved = await runSeat(["approve", String(approval.id)], { env, cwd: repo });
      assert.equal(approved.code, 0, approved.stderr);
      await started.done;
      await check("worktree", async (cell) => {
        if (!("worktree" in cell)) throw new Error("not a worktree cell");
        assert.equal(
          gitIn(repo, ["show", `seat/${cell.worktree.name}:${MARKER}`]),
          `${door.id}\n`,
          "the turn's file is committed on its branch",
        );
        assert.equal(existsSync(join(repo, MARKER)), false, "the user's tree has no marker");
      });
    } finally {
      started.kill();
      rmSync(join(repo, MARKER), { force: true });
    }
    assert.deepEqual([...checked].sort(), Object.keys(PROPERTIES).sort(), "every cell was checked or said why not");
    assert.deepEqual(failures, [], failures.join("\n"));
  });
}
