/*
 * What a person approves is what runs (issue 23 §1), through the two other doors: `seat mcp`'s approvals tools
 * (official MCP client over stdio) and a fleet job's approval answered through Redis from another host, on the
 * real grok 1.0.41 against the mock model. The command is one shape masking used to hide; the listing must show
 * it exact with its digest, an answer carrying another digest must leave it unrun, and the listed digest must run
 * exactly the bytes shown. Whether a command ran is read from the disk.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runSeat, startSeat } from "../../support/cli.js";
import { needGrok } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { until, withLiveFleet } from "../../support/fleet-rig.js";
import { connectRedis, parseRedisUrl } from "../../../src/fleet/index.js";
import { approvalsKey } from "../../../src/fleet/approvals.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";
import { jsonLines } from "../../support/json-lines.js";

const command = (file: string) => `token="$(touch ${file})"; echo configured`;
const LONG = `echo ${"b".repeat(2_100)} > /dev/null; echo x > MCP-TAIL.txt`;
const call = (match: string, cmd: string) => ({
  match,
  replies: [
    { toolCalls: [{ name: "run_terminal_command", arguments: { command: cmd, description: "a command" } }] },
    { text: `${match}: went on` },
  ],
});
const digestOf = (cmd: string) =>
  createHash("sha256")
    .update(JSON.stringify(["grok-seat.approval-target.v1", cmd, [], "run_terminal_command"]), "utf8")
    .digest("hex");

type Approval = {
  id: string;
  digest: string;
  masked?: string[];
  target: { command?: string };
  owner: { kind: string; id: string };
};
const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;
const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
type Line = { type: string; [k: string]: any };
const lines = (out: string): Line[] => jsonLines<Line>(out);

test("seat mcp: the approvals tool shows the held command exact with its digest (text cut only with its length said, whole with full); approve with another digest runs nothing, with the listed one runs exactly that", async (t) => {
  const live = await startLiveRig({
    rules: [call("mcp exact hidden", command("MCP-PWNED")), call("mcp exact long", LONG)],
  });
  if (typeof live === "string") assert.fail(`the real grok binary is required: ${live}`);
  needGrok(t, false);
  t.after(() => live.close());
  const cwd = live.sandbox.project;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: live.sandbox.home,
    GROK_HOME: live.sandbox.grokHome,
    GROK_BIN: live.binary,
    GROK_SEAT_HOME: join(live.sandbox.root, "seat-home"),
  };
  const { call: tool } = await connectSeatMcp(t, ["--root", cwd, "--ask", "execute"], {
    env,
    cwd,
    callTimeoutMs: 120_000,
  });
  const waitForOne = async (): Promise<{ approval: Approval; result: CallToolResult }> => {
    for (const end = Date.now() + 90_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      const result = await tool("approvals", {});
      const found = (result.structuredContent as { approvals: Approval[] }).approvals;
      if (found.length > 0) return { approval: found[0]!, result };
    }
    assert.fail("no approval listed");
  };

  const running = tool("run", { prompt: "please run mcp exact hidden" });
  const { approval, result } = await waitForOne();
  assert.equal(approval.target.command, command("MCP-PWNED"), "structured content: exact");
  assert.equal(approval.digest, digestOf(command("MCP-PWNED")));
  assert.ok(textOf(result).includes(command("MCP-PWNED")), textOf(result));
  assert.ok(textOf(result).includes(`digest ${approval.digest}`), textOf(result));
  assert.equal(
    codeOf(await tool("approve", { id: approval.id, digest: digestOf("echo configured") })),
    "APPROVAL_TARGET_CHANGED",
  );
  assert.equal(codeOf(await tool("approve", { id: approval.id, digest: "nope" })), "APPROVAL_ANSWER_INVALID");
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(existsSync(join(cwd, "MCP-PWNED")), false, "another digest ran nothing");
  assert.deepEqual((await tool("approve", { id: approval.id, digest: approval.digest })).structuredContent, {
    id: approval.id,
    decision: "allow",
  });
  assert.equal((await running).isError, undefined);
  assert.equal(existsSync(join(cwd, "MCP-PWNED")), true, "the listed bytes ran");

  const longRun = tool("run", { prompt: "please run mcp exact long" });
  const long = await waitForOne();
  assert.equal(long.approval.target.command, LONG, "structured content carries the whole command");
  assert.match(
    textOf(long.result),
    new RegExp(`\\[cut: 200 of ${LONG.length} characters shown; call approvals with full: true to see it whole\\]`),
  );
  assert.ok(textOf(await tool("approvals", { full: true })).includes(LONG), "full: true shows it whole");
  assert.deepEqual((await tool("deny", { id: long.approval.id, digest: long.approval.digest })).structuredContent, {
    id: long.approval.id,
    decision: "deny",
  });
  await longRun;
  assert.equal(existsSync(join(cwd, "MCP-TAIL.txt")), false);
});

const elsewhere = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent-other-host" };

test("fleet: another host lists the job's held command exact with its digest; an answer through Redis with another digest is refused and runs nothing, with the listed one runs exactly that", async (t) => {
  await withLiveFleet(
    t,
    { rules: [call("fleet exact hidden", command("FLEET-PWNED"))] },
    async ({ live, fleet, hostEnv }) => {
      await fleet.startWorker("host-a", { env: hostEnv });
      const url = fleet.redis.url;
      const submit = startSeat(
        [
          "submit",
          "--redis",
          url,
          "--wait",
          "--id",
          "job-exact",
          "--cwd",
          live.sandbox.project,
          "please run fleet exact hidden",
        ],
        { env: elsewhere },
      );
      t.after(() => void submit.child.kill("SIGKILL"));
      const approval = await until(
        async () => {
          const listed = await runSeat(["approvals", "--redis", url, "--json"], { env: elsewhere });
          return lines(listed.stdout).find((l) => l.type === "approval" && l.owner?.id === "job-exact");
        },
        90_000,
        "the job's approval",
      );
      assert.equal(approval.target?.command, command("FLEET-PWNED"), "the fleet listing is exact");
      assert.equal(approval.digest, digestOf(command("FLEET-PWNED")));
      const wrong = await runSeat(
        ["approve", approval.id, "--redis", url, "--digest", digestOf("echo configured"), "--json"],
        { env: elsewhere },
      );
      assert.equal(lines(wrong.stdout)[0]?.code, "APPROVAL_TARGET_CHANGED", wrong.stdout + wrong.stderr);
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(existsSync(join(live.sandbox.project, "FLEET-PWNED")), false, "another digest ran nothing");
      const right = await runSeat(["approve", approval.id, "--redis", url, "--digest", approval.digest], {
        env: elsewhere,
      });
      assert.equal(right.code, 0, right.stdout + right.stderr);
      const done = await submit.done;
      assert.equal(done.code, 0, done.stdout.slice(-1500) + done.stderr);
      assert.equal(existsSync(join(live.sandbox.project, "FLEET-PWNED")), true, "the listed bytes ran");
    },
  );
});

test("fleet: a record changed in Redis to show another command (and its digest) is never run: the worker checks the answer's digest against the call it holds and denies it", async (t) => {
  await withLiveFleet(
    t,
    { rules: [call("fleet tampered", command("TAMPER-PWNED"))] },
    async ({ live, fleet, hostEnv }) => {
      await fleet.startWorker("host-a", { env: hostEnv });
      const url = fleet.redis.url;
      const submit = startSeat(
        [
          "submit",
          "--redis",
          url,
          "--wait",
          "--id",
          "job-tampered",
          "--cwd",
          live.sandbox.project,
          "please run fleet tampered",
        ],
        { env: elsewhere },
      );
      t.after(() => void submit.child.kill("SIGKILL"));
      const approval = await until(
        async () => {
          const listed = await runSeat(["approvals", "--redis", url, "--json"], { env: elsewhere });
          return lines(listed.stdout).find((l) => l.type === "approval" && l.owner?.id === "job-tampered");
        },
        90_000,
        "the job's approval",
      );
      // Someone who can write Redis makes the listing show a harmless command with a matching digest.
      const redis = connectRedis(parseRedisUrl(url, elsewhere), { name: "tamper" });
      try {
        const key = approvalsKey("job-tampered");
        const record = JSON.parse(String(await redis.hget(key, approval.id)));
        record.view.target.command = "echo harmless";
        record.view.digest = digestOf("echo harmless");
        await redis.hset(key, approval.id, JSON.stringify(record));
      } finally {
        redis.disconnect();
      }
      const shown = await runSeat(["approvals", "--redis", url, "--json"], { env: elsewhere });
      const view = lines(shown.stdout).find((l) => l.id === approval.id);
      assert.equal(view?.target?.command, "echo harmless", "the tampered listing is what a person would see");
      const answered = await runSeat(["approve", approval.id, "--redis", url, "--digest", String(view?.digest)], {
        env: elsewhere,
      });
      assert.equal(answered.code, 0, answered.stdout + answered.stderr);
      const done = await submit.done;
      assert.equal(
        existsSync(join(live.sandbox.project, "TAMPER-PWNED")),
        false,
        "the call that was not shown never ran",
      );
      const events = lines(done.stdout);
      const verdict = events.find((e) => e.type === "approval_answered");
      assert.equal(verdict?.decision, "deny", done.stdout.slice(-1500));
      assert.match(String(verdict?.by), /APPROVAL_TARGET_CHANGED/);
    },
  );
});
