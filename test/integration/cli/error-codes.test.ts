/*
 * Codes that mean one thing: each failure that used to borrow another meaning's code (SEAT_REFUSED for a
 * directory or a socket, SESSION_BUSY for a cancel nobody answered, WORKTREE_EXISTS for a branch that is gone,
 * CLI_USAGE thrown by the library) now carries its own, and the CLI still maps it to the same exit status.
 * Real files, real unix sockets, real git, the built CLI.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { requestCancel } from "../../../src/control/index.js";
import { callController, unwrapReply } from "../../../src/seat/control-client.js";
import { controlSocketPath } from "../../../src/seat/controller.js";
import { seatDir } from "../../../src/home/seat-home.js";
import { buildHirePlan, buildTuiEnv, createSocketDir } from "../../../src/seat/plan.js";
import { createWorktree } from "../../../src/worktrees/index.js";
import { queryUsage } from "../../../src/usage/index.js";
import { parseFleetBudget } from "../../../src/fleet/index.js";
import { runSeat } from "../../support/cli.js";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";
import { gitIn, makeRepo } from "../../support/git-repo.js";

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-codes-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("a named session's holder that never answers a cancel is SESSION_CANCEL_TIMEOUT, not SESSION_BUSY", async (t) => {
  const dir = scratch(t);
  const path = join(dir, "c.sock");
  // A holder that accepts the connection and never says a word.
  const silent = createServer(() => undefined);
  await new Promise<void>((resolve) => silent.listen(path, resolve));
  t.after(() => silent.close());
  await assert.rejects(
    requestCancel(path, 150),
    (e: unknown) => isSeatError(e, "SESSION_CANCEL_TIMEOUT") && /did not answer the cancel/.test(e.message),
  );
});

test("a seat's control directory that is not private is PRIVATE_DIR_REFUSED, a non-socket in it CONTROL_SOCKET_UNTRUSTED, an uncoded controller refusal SEAT_CONTROLLER_FAILED; none is SEAT_REFUSED", async (t) => {
  const dir = scratch(t);
  const open = join(dir, "open");
  mkdirSync(open, { mode: 0o700 });
  chmodSync(open, 0o755);
  await assert.rejects(callController(open, { op: "status" } as never, 500), (e: unknown) =>
    isSeatError(e, "PRIVATE_DIR_REFUSED"),
  );
  const fake = join(dir, "fake");
  mkdirSync(fake, { mode: 0o700 });
  writeFileSync(controlSocketPath(fake), "not a socket");
  await assert.rejects(callController(fake, { op: "status" } as never, 500), (e: unknown) =>
    isSeatError(e, "CONTROL_SOCKET_UNTRUSTED"),
  );
  assert.throws(
    () => unwrapReply({ ok: false, error: { message: "it broke" } }),
    (e: unknown) => isSeatError(e, "SEAT_CONTROLLER_FAILED") && /it broke/.test(e.message),
  );
  // A coded refusal keeps its code.
  assert.throws(
    () => unwrapReply({ ok: false, error: { code: "SEAT_REFUSED", message: "model" } }),
    (e: unknown) => isSeatError(e, "SEAT_REFUSED"),
  );
});

test("a bad seat id, a relative HOME and a leader socket path too long for sun_path have codes of their own (not CLI_USAGE, not SEAT_REFUSED)", (t) => {
  const dir = scratch(t);
  assert.throws(
    () => seatDir(dir, "../escape"),
    (e: unknown) => isSeatError(e, "SEAT_ID_INVALID"),
  );
  assert.throws(
    () => buildTuiEnv({ HOME: "relative/home" }),
    (e: unknown) => isSeatError(e, "SEAT_USER_HOME_INVALID"),
  );
  const deep = join(dir, "d".repeat(120));
  mkdirSync(deep);
  const plan = buildHirePlan({ grokBinary: "/bin/true", cwd: dir, env: { HOME: dir }, mux: "tmux", socketRoot: deep });
  assert.throws(
    () => createSocketDir(plan),
    (e: unknown) => isSeatError(e, "SEAT_SOCKET_UNUSABLE") && /sun_path/.test(e.message),
  );
});

test("a worktree record whose branch was deleted is WORKTREE_BRANCH_GONE, not WORKTREE_EXISTS", async (t) => {
  const dir = scratch(t);
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n" });
  const home = join(dir, "seat-home");
  const { record } = await createWorktree({ home, cwd: repo, name: "gone", owner: "run" });
  gitIn(repo, ["worktree", "remove", "--force", record.path]);
  gitIn(repo, ["branch", "-D", "seat/gone"]);
  await assert.rejects(createWorktree({ home, cwd: repo, name: "gone", owner: "run" }), (e: unknown) =>
    isSeatError(e, "WORKTREE_BRANCH_GONE"),
  );
});

test("the library's bad dates and fleet budgets carry library codes, and the CLI still exits 2 (usage) for them", async (t) => {
  const dir = scratch(t);
  assert.throws(
    () => queryUsage({ journalFile: join(dir, "none.db"), since: "last tuesday-ish" }),
    (e: unknown) => isSeatError(e, "USAGE_DATE_INVALID"),
  );
  assert.throws(
    () => parseFleetBudget("lots"),
    (e: unknown) => isSeatError(e, "FLEET_BUDGET_INVALID") && !e.message.includes("seat worker"),
  );
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: join(dir, "seat-home") };
  const usage = await runSeat(["usage", "--since", "last tuesday-ish", "--json"], { env, cwd: dir });
  assert.equal(usage.code, 2, usage.stdout + usage.stderr);
  assert.equal((JSON.parse(usage.stdout.trim().split("\n").pop()!) as { code: string }).code, "USAGE_DATE_INVALID");
});

test("a run whose control socket cannot start is diagnosed CONTROL_SOCKET_FAILED (not SEAT_REFUSED) and its turn goes on", async (t) => {
  const dir = scratch(t);
  const grok = join(dir, "grok");
  writeFileSync(grok, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`);
  chmodSync(grok, 0o755);
  const home = join(dir, "seat-home");
  mkdirSync(home, { mode: 0o700 });
  // The control socket's directory is a file: the socket cannot start, nothing else needs it.
  writeFileSync(join(home, "sessions"), "not a directory");
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GROK_SEAT_HOME: home,
    XAI_API_KEY: "test-key",
    NO_COLOR: "1",
  };
  const run = await runSeat(["run", "--json", "--grok", grok, "--cwd", dir, "hello"], { env, cwd: dir });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const events = run.stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string; diagnostic?: { code: string; message: string } });
  const diagnostic = events.find((e) => e.type === "diagnostic")?.diagnostic;
  assert.equal(diagnostic?.code, "CONTROL_SOCKET_FAILED", run.stdout);
  assert.match(diagnostic!.message, /PRIVATE_DIR_REFUSED/);
});
