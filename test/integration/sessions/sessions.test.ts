/*
 * Named-session bookkeeping without grok: the journal migration, the lease's three verdicts (alive,
 * proven dead, unknown) against real processes, queueing with a wait, and history order/limits.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openJournal } from "../../../src/journal/index.js";
import { isSeatError } from "../../../src/errors.js";
import { linuxSource, type IdentitySource } from "../../../src/identity/index.js";
import { openSession, openStore } from "../../../src/sessions/index.js";
import { SessionStore, acquireLease } from "../../../src/session-store/index.js";
import { assertSessionName, scopeFor } from "../../../src/names/index.js";

function tempDb(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-sessions-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, "seats.db");
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

test("a v1 journal without the sessions tables gains them by migration, keeps its seats, and records the migration once", (t) => {
  const path = tempDb(t);
  const journal = openJournal(path);
  journal.createSeat({ seatId: "s1", sessionId: "sid", socketPath: "/x.sock" });
  journal.close();
  // Make it a journal written before the migration existed.
  const raw = new Database(path);
  raw.exec(
    "DROP TABLE session_leases; DROP TABLE session_turns; DROP TABLE named_sessions; DELETE FROM meta WHERE key LIKE 'migration:%';",
  );
  raw.close();
  const store = new SessionStore(path);
  assert.equal(newSession(store).name, "n");
  store.close();
  const check = new Database(path);
  assert.equal(
    check.prepare("SELECT value FROM meta WHERE key = 'schema'").pluck().get(),
    "grok-seat.journal.v1",
    "the schema key is unchanged",
  );
  const appliedAt = check.prepare("SELECT value FROM meta WHERE key = 'migration:grok-seat.sessions.v1'").pluck().get();
  assert.match(String(appliedAt), /^\d{4}-\d\d-\d\dT/);
  assert.equal(check.prepare("SELECT count(*) FROM seats").pluck().get(), 1);
  check.close();
  const again = new SessionStore(path);
  assert.equal(again.list().length, 1, "reopening keeps the rows (the migration did not run again)");
  again.close();
  const after = new Database(path);
  assert.equal(
    after.prepare("SELECT value FROM meta WHERE key = 'migration:grok-seat.sessions.v1'").pluck().get(),
    appliedAt,
  );
  after.close();
});

test("a lease whose holder is alive is busy, one whose holder is proven dead is reclaimed", async (t) => {
  const store = new SessionStore(tempDb(t));
  t.after(() => store.close());
  const record = newSession(store);
  const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
  t.after(() => void child.kill("SIGKILL"));
  await new Promise((r) => child.once("spawn", r));
  const identity = (await linuxSource.readIdentity(child.pid!))!;
  assert.ok(store.takeLease(record.row, null, { pid: identity.pid, birth: identity.birth, exe: identity.exe }));
  await assert.rejects(
    acquireLease(store, record),
    (e: unknown) => isSeatError(e, "SESSION_BUSY") && (e.context as { holderPid: number }).holderPid === child.pid,
  );
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
  const held = await acquireLease(store, record);
  assert.equal(held.holder.pid, process.pid);
  assert.equal(held.reclaimedFrom?.holderPid, child.pid);
  held.release();
  assert.equal(store.lease(record.row), null);
});

test("a holder that cannot be proven alive or dead keeps its lease", async (t) => {
  const store = new SessionStore(tempDb(t));
  t.after(() => store.close());
  const record = newSession(store);
  assert.ok(store.takeLease(record.row, null, { pid: 999_999, birth: "1", exe: null }));
  const blind: IdentitySource = {
    ...linuxSource,
    readIdentity: (pid) => (pid === 999_999 ? Promise.reject(new Error("ps failed")) : linuxSource.readIdentity(pid)),
  };
  await assert.rejects(
    acquireLease(store, record, { source: blind }),
    (e: unknown) => isSeatError(e, "SESSION_BUSY") && (e.context as { verdict: string }).verdict === "unknown",
  );
  assert.equal(store.lease(record.row)?.holderPid, 999_999, "not stolen");
});

test("--wait queues behind a running holder and takes the lease when it is released", async (t) => {
  const store = new SessionStore(tempDb(t));
  t.after(() => store.close());
  const record = newSession(store);
  const first = await acquireLease(store, record);
  setTimeout(() => first.release(), 400);
  const started = Date.now();
  const second = await acquireLease(store, record, { waitMs: 10_000, pollMs: 50 });
  assert.ok(Date.now() - started >= 350, "it waited for the release");
  second.release();
});

test("turns are recorded running before they are sent; a dead holder's running turns become interrupted; history limits to the newest", (t) => {
  const store = new SessionStore(tempDb(t));
  t.after(() => store.close());
  const record = newSession(store);
  store.startTurn(record.row, "p1", "one");
  store.finishTurn("p1", { state: "completed", stopReason: "end_turn", text: "a1", usage: { inputTokens: 3 } });
  store.startTurn(record.row, "p2", "two");
  assert.deepEqual(
    store.interruptRunning(record.row).map((x) => x.promptId),
    ["p2"],
  );
  store.finishTurn("p2", { state: "completed", text: "late" });
  assert.equal(store.turns(record.row)[1]!.state, "interrupted", "an interrupted turn is never rewritten as completed");
  store.startTurn(record.row, "p3", "three");
  assert.deepEqual(
    store.turns(record.row, 2).map((x) => x.promptId),
    ["p2", "p3"],
  );
  assert.deepEqual(store.turns(record.row)[0]!.usage, { inputTokens: 3 });
});

test("session names are checked: empty, too long, path-like or dotted-first names are refused", () => {
  for (const bad of ["", "../x", "a/b", ".hidden", "-flag", "x".repeat(65), 42])
    assert.throws(
      () => assertSessionName(bad),
      (e: unknown) => isSeatError(e, "SESSION_NAME_INVALID"),
    );
  for (const good of ["work", "feature-12", "a.b_c"]) assert.doesNotThrow(() => assertSessionName(good));
});

test("a named session continues only on the agent it was recorded with: another agent is SESSION_NOT_RESUMABLE and nothing starts", async (t) => {
  const home = mkdtempSync(join(tmpdir(), "gs-sessions-home-"));
  t.after(() => rmSync(home, { recursive: true, force: true }));
  const cwd = mkdtempSync(join(tmpdir(), "gs-sessions-cwd-"));
  t.after(() => rmSync(cwd, { recursive: true, force: true }));
  const store = openStore(home);
  store.ensure({ name: "work", scope: scopeFor(cwd, false), agent: "grok", cwd, model: null });
  store.close();
  await assert.rejects(
    openSession({ name: "work", cwd, home, agent: "codex", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } }),
    (error: unknown) =>
      isSeatError(error, "SESSION_NOT_RESUMABLE") &&
      (error.context as { recordedAgent?: string }).recordedAgent === "grok",
  );
  const after = openStore(home);
  t.after(() => after.close());
  assert.equal(
    after.find(scopeFor(cwd, false), "work")?.agentSessionId,
    null,
    "no agent session was created in its place",
  );
});
