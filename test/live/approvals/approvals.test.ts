/*
 * Held approvals on the real grok 1.0.41 (issue 16 §1): `seat run` (named or not) whose scripted shell command
 * needs approval waits; `seat approvals` / `seat approve` / `seat deny` from other processes answer it over the
 * run's control socket. Whether the command ran is read from the disk (a line it appends to a marker file),
 * never from what anyone reported. A missing real binary is a failure here, never a skip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runSeat, startSeat } from "../../support/cli.js";
import type { TestLike } from "../../support/requirements.js";
import type { LiveRig } from "../../support/live-rig.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import type { SeatEvent } from "../../../src/acp/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { answerApproval, listApprovals } from "../../../src/index.js";
import { seatEnvFor, startRequiredLiveRig } from "../../support/required-live-rig.js";
import { jsonLines } from "../../support/json-lines.js";
import { waitForApproval } from "../../support/wait-for-approval.js";

const CASES = ["approve", "deny", "timeout", "library"] as const;
const marker = (name: string) => `approval-${name}.txt`;

const SCRIPT: MockScript = {
  rules: CASES.map((name) => ({
    match: `approval case ${name}`,
    replies: [
      // grok 1.0.41 refuses run_terminal_command without `description`; `>>` lets a second run show as a second line.
      {
        toolCalls: [
          {
            name: "run_terminal_command",
            arguments: { command: `echo ran >> ${marker(name)}`, description: `append to ${marker(name)}` },
          },
        ],
      },
      // The approve case's answer streams slowly, so its run is still alive when the losing answer arrives.
      { text: `case ${name} went on and on`, ...(name === "approve" ? { chunkDelayMs: 400 } : {}) },
    ],
  })),
};

type Line = { type: string; [k: string]: unknown };
const lines = (out: string): Line[] => jsonLines<Line>(out);

const rig = (t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> =>
  startRequiredLiveRig(t, SCRIPT);

const envFor = (r: LiveRig): NodeJS.ProcessEnv => seatEnvFor(r, { NO_COLOR: "1" });

test("a named seat run waits on its held shell command; seat approve from another process runs it exactly once and a second answer is refused naming the first", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const run = startSeat(["run", "-s", "held", "--json", "--idle-timeout", "2", "please run approval case approve"], {
    env,
    cwd,
  });
  t.after(() => void run.child.kill("SIGKILL"));
  const approval = await waitForApproval(env, cwd, (a) => (a.owner as { name?: string }).name === "held", run);
  assert.equal(approval.category, "execute");
  assert.match(String((approval.target as { command?: string }).command), /echo ran >> approval-approve\.txt/);
  assert.deepEqual(
    { kind: (approval.owner as { kind: string }).kind, pid: (approval.owner as { pid: number }).pid },
    { kind: "named-session", pid: run.child.pid },
  );
  assert.equal(existsSync(join(cwd, marker("approve"))), false, "nothing ran while the approval waited");
  // Waiting longer than the idle timeout (2 s) is fine: the idle timeout does not run while an approval is held.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  // Two answers from two processes at once: exactly one is applied, the other is told whose answer stood.
  const answers = await Promise.all([
    runSeat(["approve", String(approval.id), "--always", "--json"], { env, cwd }),
    runSeat(["approve", String(approval.id), "--always", "--json"], { env, cwd }),
  ]);
  const won = answers.filter((a) => a.code === 0);
  const lost = answers.filter((a) => a.code !== 0);
  assert.equal(won.length, 1, answers.map((a) => a.stdout + a.stderr).join("\n"));
  assert.deepEqual(lines(won[0]!.stdout)[0], { type: "answered", id: approval.id, decision: "allow" });
  const refusal = lines(lost[0]!.stdout)[0];
  assert.equal(refusal?.code, "APPROVAL_ALREADY_ANSWERED", lost[0]!.stdout + lost[0]!.stderr);
  assert.match(String(refusal?.message), /allow by .*seat approve, pid \d+/);
  assert.equal(lost[0]!.code, 1);
  const done = await run.done;
  assert.equal(done.code, 0, done.stdout.slice(-2000) + done.stderr.slice(-2000));
  assert.equal(readFileSync(join(cwd, marker("approve")), "utf8"), "ran\n", "the command ran exactly once");
  const events = lines(done.stdout);
  const asked = events.find((e) => e.type === "approval_asked");
  assert.equal((asked?.approval as { id?: string } | undefined)?.id, approval.id);
  const answered = events.find((e) => e.type === "approval_answered");
  assert.equal(answered?.decision, "allow");
  assert.equal(answered?.via, "answer");
  assert.equal(answered?.always, true, "--always travelled with the answer");
  const permission = events.find((e) => e.type === "permission");
  assert.equal(permission?.decision, "allow");
  assert.match(String(permission?.optionId), /always/, "grok was answered with its allow-always option");
  const listed = await runSeat(["approvals", "--json"], { env, cwd });
  assert.equal(
    lines(listed.stdout).some((l) => l.id === approval.id),
    false,
    "gone once answered",
  );
});

test("a plain seat run's held command denied with seat deny never runs; unknown, malformed and missing ids are coded refusals", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const watch = startSeat(["approvals", "--watch", "--json"], { env, cwd });
  t.after(() => void watch.child.kill("SIGKILL"));
  const run = startSeat(["run", "--json", "please run approval case deny"], { env, cwd });
  t.after(() => void run.child.kill("SIGKILL"));
  const approval = await waitForApproval(env, cwd, (a) => (a.owner as { pid?: number }).pid === run.child.pid, run);
  assert.equal((approval.owner as { kind: string }).kind, "session");
  // The watcher must see it appear before it is answered (its listing may be slower than the answer on a loaded
  // machine: one socket of another run that does not answer holds a listing for its 3 s timeout).
  const seen = () =>
    lines(watch.stdout())
      .filter((l) => l.id === approval.id)
      .map((l) => l.type);
  const appeared = Date.now() + 30_000;
  while (seen().length < 1 && Date.now() < appeared) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(seen(), ["approval"], "the watcher shows the pending approval");
  const unknown = await runSeat(["approve", "ap_0000000000000000", "--json"], { env, cwd });
  assert.equal(lines(unknown.stdout)[0]?.code, "APPROVAL_NOT_FOUND");
  assert.equal(unknown.code, 1);
  const malformed = await runSeat(["approve", "not-an-id"], { env, cwd });
  assert.equal(malformed.code, 2, malformed.stderr);
  assert.match(malformed.stderr, /not an approval id/);
  const missing = await runSeat(["deny"], { env, cwd });
  assert.equal(missing.code, 2);
  const denied = await runSeat(["deny", String(approval.id), "--message", "not on my machine"], { env, cwd });
  assert.equal(denied.code, 0, denied.stderr);
  assert.equal(denied.stdout.trim(), `${approval.id}: denied`);
  const done = await run.done;
  assert.equal(existsSync(join(cwd, marker("deny"))), false, "the denied command never ran");
  const events = lines(done.stdout);
  assert.equal(events.find((e) => e.type === "approval_answered")?.decision, "deny");
  assert.ok(events.some((e) => e.type === "permission" && e.decision === "deny"));
  // The watcher saw it appear and go, then stops on SIGINT with exit 0.
  const until = Date.now() + 10_000;
  while (seen().length < 2 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  assert.deepEqual(seen(), ["approval", "approval_gone"]);
  watch.child.kill("SIGINT");
  assert.equal((await watch.done).code, 0);
});

test("a held approval nobody answers is denied at its deadline with APPROVAL_TIMEOUT (exit 124), and the command never runs", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  // The idle timeout (1 s) is shorter than the deadline (3 s): only the deadline may end this wait.
  const done = await runSeat(
    [
      "run",
      "-s",
      "late",
      "--json",
      "--idle-timeout",
      "1",
      "--approval-timeout",
      "3",
      "please run approval case timeout",
    ],
    { env, cwd },
  );
  const events = lines(done.stdout);
  assert.equal(existsSync(join(cwd, marker("timeout"))), false, "a timeout never allows");
  assert.equal(events.find((e) => e.type === "approval_answered")?.via, "timeout");
  const diagnostic = events.find((e) => e.type === "diagnostic")?.diagnostic as { code?: string } | undefined;
  assert.equal(diagnostic?.code, "APPROVAL_TIMEOUT", done.stdout.slice(-2000));
  assert.equal(done.code, 124);
});

test("library: a session with approvals holds the call, approval_asked carries it, answerApproval allows it once; without approvals it is denied with PERMISSION_NO_APPROVER", async (t) => {
  const r = await rig(t);
  const cwd = r.sandbox.project;
  const events: SeatEvent[] = [];
  const held = await createSession({
    ...r.sessionOptions,
    permissions: createPermissionGate({ policy: parsePolicyFlags({ ask: ["execute"] }) }),
    approvals: { timeoutMs: 60_000 },
    callbacks: {
      onEvent: async (e) => {
        events.push(e);
        if (e.type === "approval_asked") {
          assert.ok(
            (
              await listApprovals({ env: { HOME: r.sandbox.home, GROK_SEAT_HOME: join(r.sandbox.root, "seat-home") } })
            ).some((a) => a.id === e.approval.id),
          );
          assert.deepEqual(await answerApproval(e.approval.id, { decision: "allow", by: "test" }), {
            id: e.approval.id,
            decision: "allow",
          });
        }
      },
    },
  });
  try {
    assert.equal(held.state, "ready", JSON.stringify(held.diagnostics));
    const result = await held.prompt("please run approval case library");
    assert.equal(result.diagnostic, undefined, JSON.stringify(result.diagnostic));
    assert.equal(readFileSync(join(cwd, marker("library")), "utf8"), "ran\n");
    const asked = events.find((e) => e.type === "approval_asked");
    assert.equal(asked?.type === "approval_asked" && asked.approval.owner.kind, "session");
    assert.equal(asked?.type === "approval_asked" && asked.approval.owner.id, held.id);
    assert.deepEqual(
      events
        .filter((e) => e.type === "approval_answered")
        .map((e) => e.type === "approval_answered" && [e.decision, e.via, e.by]),
      [["allow", "answer", "test"]],
    );
  } finally {
    await held.dispose();
  }
  const off = await createSession({
    ...r.sessionOptions,
    permissions: createPermissionGate({ policy: parsePolicyFlags({ ask: ["execute"] }) }),
  });
  try {
    const result = await off.prompt("please run approval case library");
    assert.equal(result.diagnostic?.code, "PERMISSION_NO_APPROVER");
    assert.equal(readFileSync(join(cwd, marker("library")), "utf8"), "ran\n", "still exactly one run");
  } finally {
    await off.dispose();
  }
});
