/*
 * Named sessions under the audit of issue 14 (items 2, 4, 5), with real processes and a real sqlite file:
 * a holder whose executable was replaced keeps its lease, a zombie holder is dead, a dead holder's control
 * socket is removed, a journal write-locked by another process is busy (never corrupt) and never makes a
 * turn reject, a reused prompt id is refused before sending, and the control socket and seat home are safe
 * with long and symlinked homes. The same scenarios on the real grok binary: test/live/sessions-hardening.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { linuxSource } from "../../../src/identity/index.js";
import { ensurePrivateDir } from "../../../src/home/index.js";
import { openSession, openStore } from "../../../src/sessions/index.js";
import { SessionStore, acquireLease, judgeHolder } from "../../../src/session-store/index.js";
import { scopeFor } from "../../../src/names/index.js";
import { planControlSocket, startControlServer } from "../../../src/control/index.js";
import { runSeat } from "../../support/cli.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";
import { holdWriteLock } from "../../support/journal-lock.js";

type T = { after(fn: () => void | Promise<void>): void };

function scratch(t: T, prefix = "gs-harden-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function newSession(store: SessionStore, name = "n") {
  return store.ensure({
    name,
    scope: scopeFor("/tmp/project", false),
    agent: "grok",
    cwd: "/tmp/project",
    model: null,
  });
}

async function started(child: ChildProcess): Promise<number> {
  await new Promise((r) => child.once("spawn", r));
  return child.pid!;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("a holder whose node binary was replaced on disk while it runs keeps its lease: pid + birth decide, the executable is evidence", async (t) => {
  const dir = scratch(t);
  const copy = join(dir, "node-copy");
  copyFileSync(process.execPath, copy);
  chmodSync(copy, 0o755);
  const child = spawn(copy, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  t.after(() => void child.kill("SIGKILL"));
  const pid = await started(child);
  const before = (await linuxSource.readIdentity(pid))!;
  assert.equal(before.exe, copy);
  unlinkSync(copy); // what a package manager's upgrade does to the running binary
  assert.match(String((await linuxSource.readIdentity(pid))!.exe), /\(deleted\)$/);

  const store = new SessionStore(join(dir, "seats.db"));
  t.after(() => store.close());
  const record = newSession(store);
  assert.ok(store.takeLease(record.row, null, { pid, birth: before.birth, exe: before.exe }));
  const judged = await judgeHolder(store.lease(record.row)!);
  assert.equal(judged.verdict, "match", judged.reasons.join("; "));
  await assert.rejects(
    acquireLease(store, record),
    (e: unknown) =>
      isSeatError(e, "SESSION_BUSY") &&
      /\(deleted\)/.test(e.message) &&
      (e.context as { holderPid: number }).holderPid === pid,
  );
  assert.equal(store.lease(record.row)?.holderPid, pid, "not stolen");
});

test("a zombie holder (exited, not yet reaped) is dead: its lease is reclaimed instead of wedging the name as unknown", async (t) => {
  const dir = scratch(t);
  // The background child exits at once; its parent is exec'd into a sleep that never reaps it.
  const parent = spawn("/bin/sh", ["-c", "sleep 0.2 & echo $!; exec sleep 60"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  t.after(() => void parent.kill("SIGKILL"));
  const zombiePid = await new Promise<number>((resolve) =>
    parent.stdout!.once("data", (d: Buffer) => resolve(Number(d.toString().trim()))),
  );
  const living = await linuxSource.readIdentity(zombiePid);
  assert.ok(living, "the child was read while it lived");
  await until("the child to become a zombie", () => /\) Z /.test(readFileSync(`/proc/${zombiePid}/stat`, "utf8")));

  const store = new SessionStore(join(dir, "seats.db"));
  t.after(() => store.close());
  const record = newSession(store);
  store.startTurn(record.row, "zombie-turn", "a turn its holder never finished");
  assert.ok(store.takeLease(record.row, null, { pid: zombiePid, birth: living.birth, exe: living.exe }));
  const judged = await judgeHolder(store.lease(record.row)!);
  assert.equal(judged.verdict, "mismatch", judged.reasons.join("; "));
  const held = await acquireLease(store, record);
  assert.equal(held.reclaimedFrom?.holderPid, zombiePid);
  assert.deepEqual(
    store.interruptRunning(record.row).map((x) => x.promptId),
    ["zombie-turn"],
  );
  held.release();
});

test("a dead holder's control socket (home or runtime directory) is removed once its lease is reclaimed", async (t) => {
  const dir = scratch(t);
  const store = new SessionStore(join(dir, "seats.db"));
  t.after(() => store.close());
  for (const runtime of [false, true]) {
    const record = newSession(store, `dead-${runtime}`);
    const place = runtime ? { dir, runtime: true } : { dir: join(dir, "sessions"), runtime: false };
    // The holder is a real process listening on the socket, killed -9 so it cannot clean up.
    const code = `import(${JSON.stringify(new URL("../../../src/control/index.js", import.meta.url).href)}).then(async (m) => { const c = await m.startControlServer(${JSON.stringify(place)}, async () => ({})); console.log(c.path); setTimeout(() => {}, 60000); })`;
    const holder = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
    t.after(() => void holder.kill("SIGKILL"));
    const socketPath = await new Promise<string>((resolve) =>
      holder.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim())),
    );
    const identity = (await linuxSource.readIdentity(holder.pid!))!;
    assert.ok(store.takeLease(record.row, null, { pid: identity.pid, birth: identity.birth, exe: identity.exe }));
    store.setControlSocket(record.row, identity.pid, socketPath);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.once("exit", r));
    assert.ok(statSync(socketPath).isSocket(), "the killed holder left its socket behind");
    const held = await acquireLease(store, record);
    assert.equal(existsSync(socketPath), false, "the dead holder's socket was removed");
    if (runtime) assert.equal(existsSync(join(socketPath, "..")), false, "its private runtime directory too");
    held.release();
  }
});

test("with another process holding the journal's write lock, readers answer and a run that must write exits 75 JOURNAL_BUSY, never JOURNAL_CORRUPT", async (t) => {
  const dir = scratch(t);
  const home = join(dir, "home");
  const bin = fakeGrokBinary();
  t.after(() => bin.remove());
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: home, GROK_BIN: bin.path };
  const store = openStore(home);
  store.ensure({ name: "quiet", scope: scopeFor(dir, false), agent: "grok", cwd: dir, model: null });
  store.close();
  const lock = await holdWriteLock(join(home, "seats.db"), 30_000);
  t.after(() => lock.stop());

  const list = await runSeat(["sessions", "list", "--json"], { env, cwd: dir });
  assert.equal(list.code, 0, list.stdout + list.stderr);
  assert.match(list.stdout, /"name":"quiet"/);
  const cancel = await runSeat(["cancel", "-s", "quiet", "--json"], { env, cwd: dir });
  assert.match(cancel.stdout, /"code":"SESSION_IDLE"/, "cancel read the journal and found no running turn");
  const run = await runSeat(["run", "-s", "other", "--json", "hello"], { env, cwd: dir });
  assert.equal(run.code, 75, run.stdout + run.stderr);
  assert.match(run.stdout, /"code":"JOURNAL_BUSY"/);
  assert.doesNotMatch(run.stdout + list.stdout + cancel.stdout, /JOURNAL_CORRUPT|move it aside/i);
  lock.stop();
  await lock.released;
  const after = await runSeat(["sessions", "list", "--json"], { env, cwd: dir });
  assert.doesNotMatch(after.stdout, /"name":"other"/, "the busy run created nothing");
});

/** openSession on the fake agent in a fresh home; `prompts()` lists the prompt ids the agent received. */
async function fakeNamed(t: T, scenario: string) {
  const dir = scratch(t);
  const bin = fakeGrokBinary();
  t.after(() => bin.remove());
  const log = join(dir, "prompts.log");
  const home = join(dir, "home");
  const opened = await openSession({
    name: "named",
    cwd: dir,
    home,
    grokCliBinaryPath: bin.path,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir },
    agentEnv: { FAKE_GROK_SCENARIO: scenario, FAKE_GROK_PROMPT_LOG: log },
    handshakeTimeoutMs: 5_000,
    killGraceMs: 500,
  });
  t.after(() => opened.session.dispose().then(() => undefined));
  assert.equal(opened.session.state, "ready");
  return {
    ...opened,
    home,
    prompts: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []),
  };
}

test("a named session's prompt resolves JOURNAL_BUSY and sends nothing while another process holds the journal's write lock", async (t) => {
  const { session, home, prompts } = await fakeNamed(t, "normal");
  const lock = await holdWriteLock(join(home, "seats.db"), 30_000);
  t.after(() => lock.stop());
  const result = await session.prompt("hello", { promptId: "locked-out" });
  assert.equal(result.diagnostic?.code, "JOURNAL_BUSY");
  assert.equal(result.stopReason, undefined);
  assert.deepEqual(prompts(), [], "nothing reached the agent");
  lock.stop();
  await lock.released;
  const again = await session.prompt("hello again", { promptId: "after-lock" });
  assert.equal(again.stopReason, "end_turn", JSON.stringify(again.diagnostic));
  const store = openStore(home);
  t.after(() => store.close());
  const record = store.list()[0]!;
  assert.deepEqual(
    store.turns(record.row).map((x) => [x.promptId, x.state]),
    [["after-lock", "completed"]],
  );
});

test("a turn that ends while another process holds the write lock resolves (never rejects) and is recorded once the lock is released", async (t) => {
  const { session, home, prompts } = await fakeNamed(t, "hang-on-prompt");
  const turn = session.prompt("wait for cancel", { promptId: "ends-under-lock" });
  await until("the prompt to reach the agent", () => prompts().includes("ends-under-lock"));
  const lock = await holdWriteLock(join(home, "seats.db"), 8_000);
  await session.cancel();
  const result = await turn;
  assert.equal(result.stopReason, "cancelled");
  assert.notEqual(result.diagnostic?.code, "SESSION_TURN_UNRECORDED", "the end was recorded within the wait");
  await lock.released;
  const store = openStore(home);
  t.after(() => store.close());
  assert.deepEqual(
    store.turns(store.list()[0]!.row).map((x) => [x.promptId, x.state]),
    [["ends-under-lock", "interrupted"]],
  );
});

test("a reused prompt id on a named session resolves SESSION_PROMPT_ID_REUSED before anything is sent", async (t) => {
  const { session, prompts } = await fakeNamed(t, "normal");
  const first = await session.prompt("one", { promptId: "same-id" });
  assert.equal(first.stopReason, "end_turn");
  const second = await session.prompt("two", { promptId: "same-id" });
  assert.equal(second.diagnostic?.code, "SESSION_PROMPT_ID_REUSED");
  assert.deepEqual(prompts(), ["same-id"], "the second prompt was never sent");
});

test("a seat home too long for sun_path binds its control socket in a short private runtime directory, and cancel reaches it", async (t) => {
  const dir = scratch(t);
  const home = join(dir, "h".repeat(120));
  const place = planControlSocket(home);
  assert.equal(place.runtime, true);
  const server = await startControlServer(place, async () => ({ promptId: "p" }));
  t.after(() => server.close());
  assert.ok(Buffer.byteLength(server.path) <= 100, server.path);
  const holds = await linuxSource.checkSocketHolder(process.pid, server.path);
  assert.equal(holds.check.verdict, "match", holds.check.reason);
  assert.throws(
    () => planControlSocket(home, join(dir, "t".repeat(120))),
    (e: unknown) => isSeatError(e, "SESSION_SOCKET_PATH_TOO_LONG"),
  );
  await server.close();
  assert.equal(existsSync(join(server.path, "..")), false, "closing removes the runtime directory");
});

test("a symlinked GROK_SEAT_HOME is refused before anything is changed: its target keeps its mode", async (t) => {
  const dir = scratch(t);
  const target = join(dir, "target");
  mkdirSync(target);
  chmodSync(target, 0o755);
  const link = join(dir, "link");
  symlinkSync(target, link);
  assert.throws(
    () => ensurePrivateDir(link),
    (e: unknown) => isSeatError(e, "PRIVATE_DIR_REFUSED") && /symlink/.test(e.message),
  );
  assert.equal(statSync(target).mode & 0o777, 0o755, "ensurePrivateDir left the target alone");
  const list = await runSeat(["sessions", "list", "--json"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: link },
    cwd: dir,
  });
  assert.equal(list.code, 6, list.stdout + list.stderr);
  assert.match(list.stdout, /"code":"PRIVATE_DIR_REFUSED"/);
  assert.equal(statSync(target).mode & 0o777, 0o755, "seat sessions list left the target alone");
  assert.deepEqual(readdirSync(target), [], "nothing was written into it");
});
