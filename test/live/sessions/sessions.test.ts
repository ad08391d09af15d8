/*
 * Named sessions on the real grok 1.0.41 and the scripted model, driven as a user would: separate
 * `seat run -s NAME` processes, kill -9 mid-turn, concurrent runs on one name, --wait, and seat cancel.
 * A missing real binary is a failure here, never a skip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { runSeat, startSeat, type CliResult } from "../../support/cli.js";
import type { TestLike } from "../../support/requirements.js";
import type { LiveRig } from "../../support/live-rig.js";
import { grokProcesses, seatEnvFor as envFor, startRequiredLiveRig } from "../../support/required-live-rig.js";
import { alive } from "../../support/processes.js";
import { lastUserQuery, type ChatRequest, type MockScript } from "../../../src/mock-model/index.js";

const SCRIPT: MockScript = {
  rules: [
    { match: "remember", replies: [{ text: "noted" }] },
    // A turn that runs until it is cancelled or its process dies: the model never answers.
    { match: "slow", replies: [{ hang: true }] },
  ],
  fallback: { text: "pong from mock" },
};

/** A required live rig on SCRIPT: its grok processes are killed and it is closed after the test. */
const rig = (t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> =>
  startRequiredLiveRig(t, SCRIPT);

type Line = { type: string; [k: string]: unknown };
const lines = (out: string): Line[] =>
  out
    .trim()
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Line);
const event = (r: CliResult, type: string) => lines(r.stdout).find((l) => l.type === type);

/** Main-turn requests the model received, with the user query each carried. */
function mainRequests(r: LiveRig): Array<{ reqId: string | undefined; query: string; body: string }> {
  return r.mock.requests
    .filter((q) => q.kind === "main")
    .map((q) => ({
      reqId: q.reqId,
      query: lastUserQuery(((q.body ?? {}) as ChatRequest).messages ?? []),
      body: JSON.stringify(q.body),
    }));
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("a second seat run -s NAME in a new process continues the session: its model request carries the first turn's nonce", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const first = await runSeat(["run", "-s", "work", "--json", "remember the nonce NONCE-7f3a91"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const opened1 = event(first, "session")!;
  assert.equal(opened1.resumed, false);
  const second = await runSeat(["run", "-s", "work", "--json", "what was the nonce?"], { env, cwd });
  assert.equal(second.code, 0, second.stderr);
  const opened2 = event(second, "session")!;
  assert.equal(opened2.resumed, true);
  assert.equal(opened2.agentSessionId, opened1.agentSessionId, "the exact agent session was resumed");
  const secondRequest = mainRequests(r).find((q) => q.query.includes("what was the nonce?"));
  assert.ok(secondRequest, "the second turn reached the model");
  assert.ok(
    secondRequest.body.includes("NONCE-7f3a91"),
    "the second turn's model request carries the first turn's nonce",
  );

  const history = await runSeat(["sessions", "history", "work", "--json"], { env, cwd });
  assert.equal(history.code, 0, history.stderr);
  const turns = lines(history.stdout);
  assert.deepEqual(
    turns.map((x) => [x.prompt, x.state, x.stopReason]),
    [
      ["remember the nonce NONCE-7f3a91", "completed", "end_turn"],
      ["what was the nonce?", "completed", "end_turn"],
    ],
  );
  assert.equal(turns[0]!.text, "noted");
  const show = event(await runSeat(["sessions", "show", "work", "--json"], { env, cwd }), "session")!;
  assert.equal(show.turns, 2);
  assert.equal(show.agent, "grok");
  assert.equal(show.agentSessionId, opened1.agentSessionId);
  assert.equal(show.lastStopReason, "end_turn");
  // Names are per directory: the same name elsewhere is not found.
  const elsewhere = await runSeat(["sessions", "show", "work", "--json", "--cwd", r.sandbox.home], { env, cwd });
  assert.equal(event(elsewhere, "error")?.code, "SESSION_NOT_FOUND");
});

test("after kill -9 mid-turn the next run continues the session, the journal marks the turn interrupted, and nothing is re-sent", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  await runSeat(["run", "-s", "crash", "--json", "remember KILLNONCE-55"], { env, cwd });
  const victim = startSeat(["run", "-s", "crash", "--json", "slow turn that will be killed"], { env, cwd });
  t.after(() => void victim.child.kill("SIGKILL"));
  await until("the slow turn to reach the model", () => mainRequests(r).some((q) => q.query.includes("slow turn")));
  const killedPromptId = mainRequests(r).find((q) => q.query.includes("slow turn"))!.reqId;
  victim.child.kill("SIGKILL");
  await victim.done;
  const sentBefore = mainRequests(r).filter((q) => q.reqId === killedPromptId).length;

  const next = await runSeat(["run", "-s", "crash", "--json", "are you there?"], { env, cwd });
  assert.equal(next.code, 0, next.stderr);
  const opened = event(next, "session")!;
  assert.equal(opened.resumed, true);
  assert.deepEqual(opened.interrupted, [killedPromptId]);
  assert.equal(
    mainRequests(r).filter((q) => q.reqId === killedPromptId).length,
    sentBefore,
    "the interrupted prompt was not sent again",
  );
  const after = mainRequests(r).find((q) => q.query.includes("are you there?"))!;
  assert.ok(after.body.includes("KILLNONCE-55"), "the continued turn still carries the session's earlier history");
  const turns = lines((await runSeat(["sessions", "history", "crash", "--json"], { env, cwd })).stdout);
  assert.deepEqual(
    turns.map((x) => x.state),
    ["completed", "interrupted", "completed"],
  );
  assert.equal(turns[1]!.promptId, killedPromptId);
  // The killed seat's grok sees its stdin close and exits: no orphan outlives the run.
  await until("no grok of this rig to be left running", () => grokProcesses(r).length === 0, 15_000);
});

test("two concurrent runs on one name: one runs, the other exits 75 naming the holder; --wait queues; seat cancel ends the running turn", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const holder = startSeat(["run", "-s", "busy", "--json", "slow turn to hold the lease"], { env, cwd });
  t.after(() => void holder.child.kill("SIGKILL"));
  await until("the holder's turn to reach the model", () =>
    mainRequests(r).some((q) => q.query.includes("hold the lease")),
  );

  const refused = await runSeat(["run", "-s", "busy", "--json", "am I second?"], { env, cwd });
  assert.equal(refused.code, 75, refused.stdout + refused.stderr);
  const error = event(refused, "error")!;
  assert.equal(error.code, "SESSION_BUSY");
  assert.equal((error.context as { holderPid: number }).holderPid, holder.child.pid);
  assert.ok(!mainRequests(r).some((q) => q.query.includes("am I second?")), "the refused run sent nothing");

  const waiter = startSeat(["run", "-s", "busy", "--json", "--wait", "60", "queued behind"], { env, cwd });
  t.after(() => void waiter.child.kill("SIGKILL"));
  await new Promise((res) => setTimeout(res, 1_000));
  assert.ok(
    !mainRequests(r).some((q) => q.query.includes("queued behind")),
    "the waiter does not run while the turn runs",
  );

  const cancel = await runSeat(["cancel", "-s", "busy", "--json"], { env, cwd });
  assert.equal(cancel.code, 0, cancel.stdout + cancel.stderr);
  assert.equal(event(cancel, "cancelled")?.holderPid, holder.child.pid);
  const held = await holder.done;
  assert.equal(held.code, 130, held.stderr);
  const queued = await waiter.done;
  assert.equal(queued.code, 0, queued.stderr);
  assert.equal(event(queued, "session")?.resumed, true);
  const turns = lines((await runSeat(["sessions", "history", "busy", "--json"], { env, cwd })).stdout);
  assert.deepEqual(
    turns.map((x) => [x.prompt, x.state]),
    [
      ["slow turn to hold the lease", "interrupted"],
      ["queued behind", "completed"],
    ],
  );
});

test("a holder killed with kill -9 keeps its lease while it is alive (stopped) and loses it only once proven dead", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const holder = startSeat(["run", "-s", "lease", "--json", "slow turn, then stopped and killed"], { env, cwd });
  t.after(() => {
    holder.child.kill("SIGCONT");
    holder.child.kill("SIGKILL");
  });
  await until("the holder's turn to reach the model", () =>
    mainRequests(r).some((q) => q.query.includes("then stopped")),
  );
  holder.child.kill("SIGSTOP");
  const whileStopped = await runSeat(["run", "-s", "lease", "--json", "while stopped"], { env, cwd });
  assert.equal(whileStopped.code, 75, "a live (stopped) holder is not robbed of its lease");
  holder.child.kill("SIGKILL");
  await holder.done;
  await until("the killed holder to be reaped", () => !alive(holder.child.pid!), 10_000);
  const afterDeath = await runSeat(["run", "-s", "lease", "--json", "after death"], { env, cwd });
  assert.equal(afterDeath.code, 0, afterDeath.stderr);
  assert.equal((event(afterDeath, "session")?.interrupted as string[] | undefined)?.length, 1);
  await until("no grok of this rig to be left running", () => grokProcesses(r).length === 0, 15_000);
});

test("a session whose agent files are gone fails SESSION_NOT_RESUMABLE and starts nothing in its place; close and rm work on the record", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const first = await runSeat(["run", "-s", "gone", "--json", "remember GONE-1"], { env, cwd });
  assert.equal(first.code, 0, first.stderr);
  const keep = await runSeat(["run", "-s", "kept", "--json", "remember KEPT-1"], { env, cwd });
  assert.equal(keep.code, 0, keep.stderr);
  const closed = await runSeat(["sessions", "close", "kept", "--json"], { env, cwd });
  assert.equal(closed.code, 0, closed.stdout + closed.stderr);
  assert.equal(event(closed, "closed")?.closed, true);

  const { rmSync } = await import("node:fs");
  rmSync(join(r.sandbox.grokHome, "sessions"), { recursive: true, force: true });
  const before = mainRequests(r).length;
  const again = await runSeat(["run", "-s", "gone", "--json", "continue please"], { env, cwd });
  assert.notEqual(again.code, 0);
  assert.equal(event(again, "error")?.code, "SESSION_NOT_RESUMABLE", again.stdout);
  assert.match(String(event(again, "error")?.message), /seat sessions rm/);
  assert.equal(mainRequests(r).length, before, "no prompt was sent to a fresh session");
  const show = event(await runSeat(["sessions", "show", "gone", "--json"], { env, cwd }), "session")!;
  assert.equal(
    show.agentSessionId,
    event(first, "session")!.agentSessionId,
    "the record still names the original agent session",
  );

  const removed = await runSeat(["sessions", "rm", "gone", "--json"], { env, cwd });
  assert.equal(removed.code, 0, removed.stderr);
  const list = lines((await runSeat(["sessions", "list", "--json"], { env, cwd })).stdout);
  assert.deepEqual(
    list.map((s) => [s.name, s.state]),
    [["kept", "closed"]],
  );
});
