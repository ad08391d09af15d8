/*
 * The supervised turn (turn/) through the library, on the fake agent: a turn's ledger rows are written when send()
 * resolves and its control socket is gone after close(); one turn sends one prompt (TURN_ALREADY_SENT); a signal
 * aborted before sending starts nothing (TURN_CANCELLED_UNSENT); a session that does not come up resolves a turn
 * that is not ready, and close() still releases the worktree it took.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";
import { makeRepo } from "../../support/git-repo.js";
import { prepareSupervisedTurn, runSupervisedTurn } from "../../../src/turn/index.js";
import { journalPath } from "../../../src/home/seat-home.js";
import { queryUsage } from "../../../src/usage/index.js";
import { isSeatError } from "../../../src/errors.js";
import { findWorktree, type WorktreeRecord } from "../../../src/worktrees/index.js";

/** A `grok` that runs the fake agent with `scenario`, touching `started` first (so a test sees whether it ran). */
function fakeGrok(dir: string, scenario: string): { path: string; started: string } {
  const path = join(dir, `grok-${scenario}`);
  const started = join(dir, `started-${scenario}`);
  writeFileSync(
    path,
    `#!/bin/sh\ntouch ${JSON.stringify(started)}\nFAKE_GROK_SCENARIO=${scenario} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return { path, started };
}

function sandbox(t: { after(fn: () => void): void }): { dir: string; home: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(tmpdir(), "gs-turn-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const home = join(dir, "seat-home");
  return { dir, home, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: home } };
}

function socketsUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isSocket())
    .map((e) => e.name);
}

test("runSupervisedTurn: the turn's ledger row is there when it resolves, its control socket served while it ran and gone after", async (t) => {
  const { dir, home, env } = sandbox(t);
  const grok = fakeGrok(dir, "normal");
  let socketsWhileWorking: string[] = [];
  const outcome = await runSupervisedTurn({
    prompt: "hello",
    home,
    env,
    cwd: dir,
    grokCliBinaryPath: grok.path,
    callbacks: {
      onEvent(event) {
        if (event.type === "state" && event.state === "working") socketsWhileWorking = socketsUnder(home);
      },
    },
  });
  assert.equal(outcome.sent, true);
  assert.equal(outcome.result.stopReason, "end_turn", JSON.stringify(outcome.diagnostics));
  assert.equal(socketsWhileWorking.length, 1, "the turn's control socket was served while it worked");
  assert.deepEqual(socketsUnder(home), [], "and is gone once the turn resolved");
  const [totals] = queryUsage({ journalFile: journalPath(home) });
  assert.equal(totals?.turns, 1, "one ledger row, written before the turn resolved");
});

test("one supervised turn sends one prompt: a second send() sends nothing (TURN_ALREADY_SENT), nor one after close() (TURN_CLOSED)", async (t) => {
  const { dir, home, env } = sandbox(t);
  const grok = fakeGrok(dir, "normal");
  const prepared = await prepareSupervisedTurn({ home, env, cwd: dir, grokCliBinaryPath: grok.path });
  const turn = await prepared.open();
  try {
    assert.equal(turn.ready, true);
    const first = await turn.send("first");
    assert.equal(first.stopReason, "end_turn");
    const second = await turn.send("second");
    assert.equal(second.diagnostic?.code, "TURN_ALREADY_SENT");
    assert.equal(second.stopReason, undefined);
  } finally {
    await turn.close();
  }
  const late = await turn.send("after close");
  assert.equal(late.diagnostic?.code, "TURN_CLOSED", "a send once close() started sends nothing");
  const [totals] = queryUsage({ journalFile: journalPath(home) });
  assert.equal(totals?.turns, 1, "only the first prompt was sent and recorded");
});

test("a signal aborted before sending starts nothing: TURN_CANCELLED_UNSENT, no agent, no ledger row", async (t) => {
  const { dir, home, env } = sandbox(t);
  const grok = fakeGrok(dir, "normal");
  const stop = new AbortController();
  stop.abort();
  const outcome = await runSupervisedTurn({
    prompt: "never",
    signal: stop.signal,
    home,
    env,
    cwd: dir,
    grokCliBinaryPath: grok.path,
  });
  assert.equal(outcome.sent, false);
  assert.equal(outcome.result.diagnostic?.code, "TURN_CANCELLED_UNSENT");
  assert.equal(existsSync(grok.started), false, "no agent was started");
  assert.equal(existsSync(journalPath(home)), false, "nothing was recorded");
});

test("a session that does not come up: the turn is not ready and says why; close() releases the worktree it took", async (t) => {
  const { dir, home, env } = sandbox(t);
  const repo = join(dir, "repo");
  makeRepo(repo, { "README.md": "# r\n" });
  const dead = fakeGrok(dir, "no-auth");
  const prepared = await prepareSupervisedTurn({
    home,
    env,
    cwd: repo,
    grokCliBinaryPath: dead.path,
    worktree: { name: "turn-wt" },
  });
  assert.ok(prepared.cwd.includes("turn-wt"), "the agent's cwd is the worktree's");
  const turn = await prepared.open();
  assert.equal(turn.ready, false);
  assert.ok(turn.failure?.code, "its failure has a code");
  assert.equal(turn.worktree?.name, "turn-wt");
  const closed = await turn.close();
  assert.equal(closed.worktree?.commit, null, "a turn never sent commits nothing");
  // The lock went with close(): the same worktree is taken again by the next turn of this process.
  const again = await prepareSupervisedTurn({
    home,
    env,
    cwd: repo,
    grokCliBinaryPath: fakeGrok(dir, "normal").path,
    worktree: { name: "turn-wt", reuse: true },
  });
  const next = await again.open();
  try {
    assert.equal(next.ready, true);
    assert.equal((await next.send("hello")).stopReason, "end_turn");
  } finally {
    await next.close();
  }
});

/** Another process holding `record`'s lock as `holder` until release() (what a turn still committing looks like). */
async function holdLock(
  t: { after(fn: () => void): void },
  home: string,
  record: WorktreeRecord,
  holder: string,
): Promise<{ release(): Promise<void> }> {
  const worktrees = new URL("../../../src/worktrees/index.js", import.meta.url).href;
  const child = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { lockWorktree } from ${JSON.stringify(worktrees)};
       const lock = lockWorktree(${JSON.stringify(home)}, ${JSON.stringify(record)}, ${JSON.stringify(holder)});
       process.stdout.write("locked\\n");
       process.stdin.once("data", () => { lock.release(); process.exit(0); });`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  t.after(() => void child.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    child.once("exit", () => reject(new Error("the lock holder exited")));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    release: () => {
      child.stdin!.write("go\n");
      return exited;
    },
  };
}

test("a named turn queued with waitMs also waits for the session's worktree its previous turn still commits; anything else holding it is WORKTREE_BUSY at once", async (t) => {
  const { dir, home, env } = sandbox(t);
  const repo = join(dir, "repo");
  makeRepo(repo, { "README.md": "# r\n" });
  const grok = fakeGrok(dir, "normal").path;
  const turnIn = (waitMs?: number) =>
    prepareSupervisedTurn({
      home,
      env,
      cwd: repo,
      grokCliBinaryPath: grok,
      named: { name: "q", ...(waitMs ? { waitMs } : {}) },
      worktree: {},
    });
  const first = await runSupervisedTurn({
    prompt: "first",
    home,
    env,
    cwd: repo,
    grokCliBinaryPath: grok,
    named: { name: "q" },
    worktree: {},
  });
  assert.equal(first.result.stopReason, "end_turn", JSON.stringify(first.diagnostics));
  const record = await findWorktree(home, repo, "q");

  // The lease is free but the previous turn still holds the worktree: a queued turn waits for it.
  const committing = await holdLock(t, home, record, "session:q");
  const started = Date.now();
  setTimeout(() => void committing.release(), 400);
  const queued = await (await turnIn(10_000)).open();
  try {
    assert.equal(queued.ready, true);
    assert.ok(Date.now() - started >= 350, "it waited for the lock");
    assert.equal((await queued.send("queued")).stopReason, "end_turn");
  } finally {
    await queued.close();
  }

  // Without a wait, or when the worktree is someone else's, the turn is refused at once.
  const busy = async (waitMs: number | undefined, holder: string) => {
    const other = await holdLock(t, home, record, holder);
    const at = Date.now();
    try {
      await assert.rejects(
        async () => (await turnIn(waitMs)).open(),
        (e: unknown) => isSeatError(e) && e.code === "WORKTREE_BUSY",
      );
      assert.ok(Date.now() - at < 3_000, `${holder}, wait ${waitMs}: refused at once`);
    } finally {
      await other.release();
    }
  };
  await busy(undefined, "session:q");
  await busy(10_000, "run");
});
