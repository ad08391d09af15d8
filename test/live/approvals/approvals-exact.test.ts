/*
 * What a person approves is what runs (issue 23 §1, §7b), on the real grok 1.0.41 against the mock model: the
 * model asks for shell commands that shape masking used to hide (`token="$(touch PWNED)"`) or that a listing used
 * to cut (a tail past 2,000 characters). `seat approvals` (text, --json, --full) must show them byte for byte with
 * the digest of the exact target; an answer carrying another digest must leave the call unrun; an approved call
 * must run exactly the bytes shown; only a value the seat knows as a secret is masked, and the listing says so.
 * A late answer (after the deadline, after its run was killed) is APPROVAL_EXPIRED. Whether a command ran is read
 * from the disk, never from what anyone reported. A missing real binary is a failure here, never a skip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runSeat, startSeat, type CliResult } from "../../support/cli.js";
import type { TestLike } from "../../support/requirements.js";
import type { LiveRig } from "../../support/live-rig.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { seatEnvFor, startRequiredLiveRig } from "../../support/required-live-rig.js";
import { jsonLines } from "../../support/json-lines.js";
import { waitForApproval } from "../../support/wait-for-approval.js";

const HIDDEN = `token="$(touch PWNED)"; echo configured`;
// Padded past 2,000 characters; its tail writes TAIL.txt.
const LONG = `echo ${"a".repeat(2_100)} > /dev/null; echo x > TAIL.txt`;
const CANARY = `canary-${randomBytes(12).toString("hex")}`;
const KEYED = `echo ${CANARY} > /dev/null; echo keyed > KEYED.txt`;
const LATE = "echo late >> LATE.txt";

const call = (command: string) => ({
  toolCalls: [{ name: "run_terminal_command", arguments: { command, description: "a command" } }],
});
const SCRIPT: MockScript = {
  rules: [
    { match: "exact case hidden", replies: [call(HIDDEN), { text: "hidden case done" }] },
    { match: "exact case long", replies: [call(LONG), { text: "long case done" }] },
    { match: "exact case keyed", replies: [call(KEYED), { text: "keyed case done" }] },
    { match: "exact case late", replies: [call(LATE), { text: "late case done" }] },
  ],
};

type Line = { type: string; [k: string]: unknown };
const lines = (out: string): Line[] => jsonLines<Line>(out);
// The documented canonical serialisation, computed here by hand: grok names the tool of a shell call.
const digestOf = (command: string) =>
  createHash("sha256")
    .update(JSON.stringify(["grok-seat.approval-target.v1", command, [], "run_terminal_command"]), "utf8")
    .digest("hex");

const rig = (t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> =>
  startRequiredLiveRig(t, SCRIPT);

const envFor = (r: LiveRig): NodeJS.ProcessEnv => seatEnvFor(r, { NO_COLOR: "1" });

/** The approval the run with `pid` holds, as `seat approvals --json` in another process lists it. */
const approvalOf = (env: NodeJS.ProcessEnv, cwd: string, pid: number, run: { done: Promise<CliResult> }) =>
  waitForApproval(env, cwd, (l) => (l.owner as { pid?: number }).pid === pid, run);

test("a command shape masking used to hide is listed byte for byte with its digest; a wrong digest leaves it unrun and held; approved with the listed digest it runs exactly as shown", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const run = startSeat(["run", "--json", "please run exact case hidden"], { env, cwd });
  t.after(() => void run.child.kill("SIGKILL"));
  const approval = await approvalOf(env, cwd, run.child.pid!, run);
  const target = approval.target as { command?: string };
  assert.equal(target.command, HIDDEN, "--json shows the exact command");
  assert.equal(approval.digest, digestOf(HIDDEN), "the digest is sha256 of the documented canonical serialisation");
  assert.equal(approval.masked, undefined, "nothing was masked");
  const text = await runSeat(["approvals"], { env, cwd });
  assert.ok(text.stdout.includes(HIDDEN), text.stdout);
  assert.ok(text.stdout.includes(`digest ${digestOf(HIDDEN)}`), text.stdout);
  assert.ok(!text.stdout.includes("[redacted]"), text.stdout);
  const full = await runSeat(["approvals", "--full", String(approval.id)], { env, cwd });
  assert.equal(full.code, 0, full.stderr);
  assert.ok(full.stdout.includes(`-----\n${HIDDEN}\n-----`), full.stdout);

  const wrong = await runSeat(["approve", String(approval.id), "--digest", digestOf("echo configured"), "--json"], {
    env,
    cwd,
  });
  assert.equal(lines(wrong.stdout)[0]?.code, "APPROVAL_TARGET_CHANGED", wrong.stdout + wrong.stderr);
  assert.equal(wrong.code, 1);
  const malformed = await runSeat(["approve", String(approval.id), "--digest", "abc"], { env, cwd });
  assert.equal(malformed.code, 2, malformed.stderr);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(existsSync(join(cwd, "PWNED")), false, "a wrong digest ran nothing");
  const still = await runSeat(["approvals", "--json"], { env, cwd });
  assert.ok(
    lines(still.stdout).some((l) => l.id === approval.id),
    "a refused answer leaves the approval held",
  );

  const approved = await runSeat(["approve", String(approval.id), "--digest", String(approval.digest), "--json"], {
    env,
    cwd,
  });
  assert.equal(approved.code, 0, approved.stdout + approved.stderr);
  const done = await run.done;
  assert.equal(done.code, 0, done.stdout.slice(-2000) + done.stderr.slice(-2000));
  assert.equal(existsSync(join(cwd, "PWNED")), true, "the approved bytes ran, command substitution and all");
});

test("a command past 2,000 characters is never cut silently: the listing says it is cut and its length, --full and --json show it whole, and approving runs its tail", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const run = startSeat(["run", "--json", "please run exact case long"], { env, cwd });
  t.after(() => void run.child.kill("SIGKILL"));
  const approval = await approvalOf(env, cwd, run.child.pid!, run);
  assert.equal((approval.target as { command?: string }).command, LONG, "--json carries the whole command");
  const text = await runSeat(["approvals"], { env, cwd });
  assert.match(
    text.stdout,
    new RegExp(`\\[cut: 200 of ${LONG.length} characters shown; seat approvals --full ${approval.id}\\]`),
    text.stdout,
  );
  assert.ok(!text.stdout.includes("TAIL.txt"), "the short listing is cut, and says so");
  const full = await runSeat(["approvals", "--full", String(approval.id)], { env, cwd });
  assert.ok(
    full.stdout.includes(
      `(${LONG.length} characters, exactly as it will run, between the lines)\n-----\n${LONG}\n-----`,
    ),
    full.stdout.slice(-400),
  );
  const fullJson = lines(
    (await runSeat(["approvals", "--full", String(approval.id), "--json"], { env, cwd })).stdout,
  )[0];
  assert.equal((fullJson?.target as { command?: string } | undefined)?.command, LONG);
  const approved = await runSeat(["approve", String(approval.id), "--digest", digestOf(LONG)], { env, cwd });
  assert.equal(approved.code, 0, approved.stderr);
  assert.equal((await run.done).code, 0);
  assert.equal(readFileSync(join(cwd, "TAIL.txt"), "utf8"), "x\n", "the tail that was shown ran");
});

test("only a secret value the seat knows is masked, and the approval says which; its digest is of the exact command, which runs with the real value", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  const run = startSeat(["run", "--json", "please run exact case keyed"], {
    env: { ...env, XAI_API_KEY: CANARY },
    cwd,
  });
  t.after(() => void run.child.kill("SIGKILL"));
  const approval = await approvalOf(env, cwd, run.child.pid!, run);
  assert.equal((approval.target as { command?: string }).command, KEYED.replace(CANARY, "[redacted]"));
  assert.deepEqual(approval.masked, ["XAI_API_KEY"]);
  assert.equal(approval.digest, digestOf(KEYED), "the digest is of the exact, unmasked command");
  const text = await runSeat(["approvals"], { env, cwd });
  assert.match(text.stdout, /masked: \[XAI_API_KEY\]/);
  assert.ok(!text.stdout.includes(CANARY));
  assert.equal(
    (await runSeat(["approve", String(approval.id), "--digest", String(approval.digest)], { env, cwd })).code,
    0,
  );
  const done = await run.done;
  assert.equal(done.code, 0, done.stderr.slice(-2000));
  assert.ok(!done.stdout.includes(CANARY), "the run's own output never shows the value");
  assert.equal(readFileSync(join(cwd, "KEYED.txt"), "utf8"), "keyed\n");
});

test("an answer after the deadline passed, or after its run was killed, is APPROVAL_EXPIRED, never APPROVAL_NOT_FOUND", async (t) => {
  const r = await rig(t);
  const env = envFor(r);
  const cwd = r.sandbox.project;
  // The deadline (2 s) denies the call and the run ends; a later answer reaches no live run.
  const timed = startSeat(["run", "--json", "--approval-timeout", "2", "please run exact case late"], { env, cwd });
  t.after(() => void timed.child.kill("SIGKILL"));
  const first = await approvalOf(env, cwd, timed.child.pid!, timed);
  assert.equal((await timed.done).code, 124);
  const late = await runSeat(["approve", String(first.id), "--json"], { env, cwd });
  assert.equal(lines(late.stdout)[0]?.code, "APPROVAL_EXPIRED", late.stdout + late.stderr);
  assert.match(String(lines(late.stdout)[0]?.message), /deadline passed/);
  assert.equal(late.code, 1);
  // A run killed while its approval is pending: nobody can answer it any more.
  const killed = startSeat(["run", "--json", "please run exact case late"], { env, cwd });
  t.after(() => void killed.child.kill("SIGKILL"));
  const second = await approvalOf(env, cwd, killed.child.pid!, killed);
  killed.child.kill("SIGKILL");
  await killed.done;
  const gone = await runSeat(["approve", String(second.id), "--json"], { env, cwd });
  assert.equal(lines(gone.stdout)[0]?.code, "APPROVAL_EXPIRED", gone.stdout + gone.stderr);
  assert.equal(existsSync(join(cwd, "LATE.txt")), false, "neither late answer ran anything");
  const unknown = await runSeat(["approve", "ap_00000000000000ff", "--json"], { env, cwd });
  assert.equal(lines(unknown.stdout)[0]?.code, "APPROVAL_NOT_FOUND", "an id that never existed is still NOT_FOUND");
});
