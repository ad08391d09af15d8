/*
 * Fleet approvals on the real grok 1.0.41 and a real redis-server (issue 16 §1): a job whose shell command needs
 * approval waits; it is listed by `seat approvals --redis URL` from another process (another "host": no shared
 * HOME) and answered there; the worker applies the first answer. Whether the command ran is read from the disk.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectFleet } from "../../../src/fleet/index.js";
import { startLiveFleet, until, withLiveFleet } from "../../support/fleet-rig.js";
import { runSeat, startSeat } from "../../support/cli.js";
import { jsonLines } from "../../support/json-lines.js";

const CASES = ["approve", "deny", "timeout", "kill"] as const;
const marker = (name: string) => `fleet-approval-${name}.txt`;
const SCRIPT = {
  rules: CASES.map((name) => ({
    match: `fleet case ${name}`,
    replies: [
      {
        toolCalls: [
          {
            name: "run_terminal_command",
            arguments: { command: `echo ran >> ${marker(name)}`, description: `append to ${marker(name)}` },
          },
        ],
      },
      { text: `case ${name} went on` },
    ],
  })),
};

type Line = { type: string; [k: string]: any };
const lines = (out: string): Line[] => jsonLines<Line>(out);
/** Another host's shell: no HOME of the worker, only the Redis URL. */
const elsewhere = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent-other-host" };

async function approvalOf(url: string, jobId: string): Promise<Line> {
  return until(
    async () => {
      const listed = await runSeat(["approvals", "--redis", url, "--json"], { env: elsewhere });
      assert.equal(listed.code, 0, listed.stdout + listed.stderr);
      return lines(listed.stdout).find(
        (l) => l.type === "approval" && l.owner?.kind === "job" && l.owner?.id === jobId,
      );
    },
    90_000,
    `the approval of job ${jobId} in seat approvals --redis`,
  );
}

test("a fleet job's held shell command is listed on another host and approved there: it runs exactly once; a second answer is refused naming the first", async (t) => {
  await withLiveFleet(t, SCRIPT, async ({ live, fleet, hostEnv }) => {
    await fleet.startWorker("host-a", { env: hostEnv });
    const url = fleet.redis.url;
    const submit = startSeat(
      [
        "submit",
        "--redis",
        url,
        "--wait",
        "--id",
        "job-approve",
        "--idle-timeout",
        "2",
        "--cwd",
        live.sandbox.project,
        "fleet case approve",
      ],
      { env: elsewhere },
    );
    const approval = await approvalOf(url, "job-approve");
    assert.equal(approval.category, "execute");
    assert.match(String(approval.target?.command), /echo ran >> fleet-approval-approve\.txt/);
    await new Promise((resolve) => setTimeout(resolve, 2_500)); // past the idle timeout: held approvals pause it
    const answers = await Promise.all(
      [1, 2].map(() => runSeat(["approve", approval.id, "--redis", url, "--json"], { env: elsewhere })),
    );
    const won = answers.filter((a) => a.code === 0);
    assert.equal(won.length, 1, answers.map((a) => a.stdout + a.stderr).join("\n"));
    const refusal = lines(answers.find((a) => a.code !== 0)!.stdout)[0];
    assert.equal(refusal?.code, "APPROVAL_ALREADY_ANSWERED");
    assert.match(String(refusal?.message), /allow by .*seat approve/);
    const done = await submit.done;
    assert.equal(done.code, 0, done.stdout.slice(-2000) + done.stderr + fleet.workers.map((w) => w.stderr()).join(""));
    assert.equal(readFileSync(join(live.sandbox.project, marker("approve")), "utf8"), "ran\n", "ran exactly once");
    const events = lines(done.stdout);
    assert.equal(
      events.find((e) => e.type === "approval_asked")?.approval?.id,
      approval.id,
      "the job's event stream carries the approval",
    );
    assert.equal(events.find((e) => e.type === "approval_answered")?.decision, "allow");
    assert.deepEqual(
      events.filter((e) => e.type === "job").map((e) => e.status),
      ["waiting", "active", "dispatched", "completed"],
    );
  });
});

test("a fleet job's held command denied from another host never runs; one nobody answers is denied at its deadline with APPROVAL_TIMEOUT", async (t) => {
  await withLiveFleet(t, SCRIPT, async ({ live, fleet, hostEnv }) => {
    await fleet.startWorker("host-a", { env: hostEnv });
    const url = fleet.redis.url;
    const denyJob = startSeat(
      ["submit", "--redis", url, "--wait", "--id", "job-deny", "--cwd", live.sandbox.project, "fleet case deny"],
      { env: elsewhere },
    );
    const approval = await approvalOf(url, "job-deny");
    const denied = await runSeat(["deny", approval.id, "--redis", url, "--message", "no"], { env: elsewhere });
    assert.equal(denied.code, 0, denied.stderr);
    await denyJob.done;
    assert.equal(existsSync(join(live.sandbox.project, marker("deny"))), false, "the denied command never ran");
    const late = await runSeat(["approve", approval.id, "--redis", url, "--json"], { env: elsewhere });
    assert.equal(lines(late.stdout)[0]?.code, "APPROVAL_ALREADY_ANSWERED");
    const timeout = await runSeat(
      [
        "submit",
        "--redis",
        url,
        "--wait",
        "--id",
        "job-timeout",
        "--approval-timeout",
        "3",
        "--cwd",
        live.sandbox.project,
        "fleet case timeout",
      ],
      { env: elsewhere },
    );
    assert.equal(existsSync(join(live.sandbox.project, marker("timeout"))), false);
    const events = lines(timeout.stdout);
    assert.equal(events.find((e) => e.type === "approval_answered")?.via, "timeout");
    assert.equal(
      events.find((e) => e.type === "diagnostic")?.diagnostic?.code,
      "APPROVAL_TIMEOUT",
      timeout.stdout.slice(-1500),
    );
    assert.equal(timeout.code, 124);
    const expired = await runSeat(
      ["approve", String(events.find((e) => e.type === "approval_asked")?.approval?.id), "--redis", url, "--json"],
      { env: elsewhere },
    );
    assert.equal(lines(expired.stdout)[0]?.code, "APPROVAL_EXPIRED");
    const unknown = await runSeat(["approve", "ap_0000000000000000", "--redis", url, "--json"], { env: elsewhere });
    assert.equal(lines(unknown.stdout)[0]?.code, "APPROVAL_NOT_FOUND");
  });
});

test("kill -9 of a worker while its job's approval is pending leaves the job uncertain, never re-sent; the approval is gone and answering it is APPROVAL_EXPIRED", async (t) => {
  const rigs = await startLiveFleet(t, SCRIPT);
  if (!rigs) return;
  const { live, fleet, hostEnv } = rigs;
  const client = await connectFleet(fleet.redis.url);
  try {
    const a = await fleet.startWorker("host-a", { env: hostEnv });
    const url = fleet.redis.url;
    const handle = await client.enqueue({ prompt: "fleet case kill", cwd: live.sandbox.project, jobId: "job-kill" });
    const approval = await approvalOf(url, "job-kill");
    await fleet.startWorker("host-b", { env: hostEnv });
    a.child.kill("SIGKILL");
    const result = await handle.result();
    assert.equal(result.status, "uncertain");
    const answer = await runSeat(["approve", approval.id, "--redis", url, "--json"], { env: elsewhere });
    assert.equal(lines(answer.stdout)[0]?.code, "APPROVAL_EXPIRED", answer.stdout + answer.stderr);
    const listed = await runSeat(["approvals", "--redis", url, "--json"], { env: elsewhere });
    assert.equal(
      lines(listed.stdout).some((l) => l.id === approval.id),
      false,
    );
    await new Promise((r) => setTimeout(r, 5_000));
    assert.equal(
      live.mock.requests.filter((r) => r.kind === "main" && r.reqId === "fleet-job-kill").length,
      1,
      "never re-sent",
    );
    assert.equal(existsSync(join(live.sandbox.project, marker("kill"))), false);
  } finally {
    await client.close();
    await rigs.close();
  }
});
