/*
 * `seat mcp`'s approval tools on the real grok 1.0.41, driven by the official MCP client over stdio: a `run` whose
 * shell command the server's policy holds is listed by `approvals` and allowed by `approve` (it runs exactly once),
 * or refused by `deny` (it never runs); an approval held by another process of the same user — a person's own
 * `seat run` — is neither listed nor answerable by the host. With --redis, the same for a job the host submitted
 * (answered through Redis) and one someone else queued. Whether a command ran is read from the disk.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runSeat, startSeat } from "../../support/cli.js";
import { gotLive, need, needGrok } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { redisMissing, startFleetRig } from "../../support/fleet-rig.js";
import { connectFleet } from "../../../src/fleet/index.js";
import { listApprovals } from "../../../src/supervision/index.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const shell = (match: string, marker: string) => ({
  match,
  // grok 1.0.41 refuses run_terminal_command without `description`; `>>` shows a second run as a second line.
  replies: [
    {
      toolCalls: [
        {
          name: "run_terminal_command",
          arguments: { command: `echo ran >> ${marker}`, description: `append to ${marker}` },
        },
      ],
    },
    { text: `${match}: went on` },
  ],
});
const SCRIPT: MockScript = {
  rules: [
    shell("host approves", "approved.txt"),
    shell("host denies", "denied.txt"),
    shell("person's own", "person.txt"),
  ],
};

type Approval = { id: string; category: string; owner: { kind: string; id: string; pid?: number } };
const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("seat mcp: approvals lists the held call of the host's own run, approve runs it exactly once, deny never; a person's own seat run is not the host's to see or answer", async (t) => {
  const live = await startLiveRig(SCRIPT);
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
  const { client, transport, call } = await connectSeatMcp(t, ["--root", cwd, "--ask", "execute"], {
    env,
    cwd,
    callTimeoutMs: 120_000,
  });
  const listed = async () => ((await call("approvals", {})).structuredContent as { approvals: Approval[] }).approvals;
  const waitForOne = async (what: string): Promise<Approval> => {
    for (const end = Date.now() + 90_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      const found = await listed();
      if (found.length > 0) return found[0]!;
    }
    assert.fail(`no approval listed for ${what}`);
  };

  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ["approvals", "approve", "deny"]) assert.ok(names.includes(name), name);

  // A person's own held run in another process: the CLI lists it, the host does not.
  const person = startSeat(["run", "--json", "please run the person's own command"], { env, cwd });
  t.after(() => void person.child.kill("SIGKILL"));
  let theirs: { id: string } | undefined;
  for (const end = Date.now() + 90_000; !theirs && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const cli = await runSeat(["approvals", "--json"], { env, cwd });
    theirs = cli.stdout
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { id: string; owner: { pid?: number } })
      .find((a) => a.owner.pid === person.child.pid);
  }
  assert.ok(theirs, "the person's run holds an approval");
  assert.deepEqual(await listed(), [], "the host sees none of it");
  assert.equal(codeOf(await call("approve", { id: theirs.id })), "APPROVAL_NOT_FOUND");
  assert.equal(existsSync(join(cwd, "person.txt")), false, "the host's approve reached nothing");

  // The host's own run: held, listed, allowed once; a second answer is refused naming the first.
  const running = call("run", { prompt: "the host approves this one" });
  const mine = await waitForOne("the host's run");
  assert.equal(mine.category, "execute");
  assert.equal(mine.owner.pid, transport.pid, "held by the seat mcp process");
  assert.equal(existsSync(join(cwd, "approved.txt")), false, "nothing ran while held");
  assert.equal(codeOf(await call("approve", { id: "not-an-id" })), "APPROVAL_ANSWER_INVALID");
  const approved = await call("approve", { id: mine.id });
  assert.deepEqual(approved.structuredContent, { id: mine.id, decision: "allow" });
  const result = await running;
  assert.equal(result.isError, undefined, JSON.stringify(result));
  assert.equal(readFileSync(join(cwd, "approved.txt"), "utf8"), "ran\n", "the approved command ran exactly once");
  const again = await call("deny", { id: mine.id });
  assert.equal(codeOf(again), "APPROVAL_ALREADY_ANSWERED");
  assert.match(String(again.content[0]?.type === "text" ? again.content[0].text : ""), /allow by mcp host test-host/);

  // Denied: never runs.
  const refused = call("run", { prompt: "the host denies this one" });
  const second = await waitForOne("the host's second run");
  assert.deepEqual((await call("deny", { id: second.id, message: "not now" })).structuredContent, {
    id: second.id,
    decision: "deny",
  });
  await refused;
  assert.equal(existsSync(join(cwd, "denied.txt")), false, "the denied command never ran");

  // The person's run is still theirs to answer.
  const theirDeny = await runSeat(["deny", theirs.id], { env, cwd });
  assert.equal(theirDeny.code, 0, theirDeny.stderr);
  await person.done;
  assert.equal(existsSync(join(cwd, "person.txt")), false);
});

test("seat mcp --redis: a job the host submitted holds its shell command; approvals lists it and approve runs it once on the worker; another submitter's job is not the host's", async (t) => {
  if (!need(t, redisMissing())) return;
  const live = await startLiveRig({
    rules: [shell("fleet host approves", "fleet-approved.txt"), shell("someone else's", "someone.txt")],
  });
  if (!gotLive(t, live)) return;
  const fleet = await startFleetRig();
  t.after(async () => {
    await fleet.close();
    await live.close();
  });
  const cwd = live.sandbox.project;
  // Two at a time: the other submitter's held job must not keep the host's waiting in the queue.
  await fleet.startWorker("host-a", {
    env: { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary },
    args: ["--concurrency", "2"],
  });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: live.sandbox.home,
    GROK_SEAT_HOME: join(live.sandbox.root, "mcp-home"),
  };
  const { call } = await connectSeatMcp(t, ["--redis", fleet.redis.url, "--root", cwd, "--ask", "execute"], {
    env,
    callTimeoutMs: 60_000,
  });
  const listed = async () => ((await call("approvals", {})).structuredContent as { approvals: Approval[] }).approvals;

  // Someone else's job holds an approval first: the host never sees it.
  const other = await connectFleet(fleet.redis.url);
  t.after(() => other.close());
  const theirs = await other.enqueue({ prompt: "someone else's job", cwd });
  const submitted = await call("submit", { prompt: "the fleet host approves this", cwd });
  const id = (submitted.structuredContent as { id: string }).id;
  let mine: Approval | undefined;
  for (const end = Date.now() + 90_000; !mine && Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    mine = (await listed()).find((a) => a.owner.id === id);
  assert.ok(mine, "the host's job's approval is listed");
  assert.equal(mine.owner.kind, "job");
  // Theirs is held too (anyone with the fleet's URL sees it), yet not the host's to see.
  let held = false;
  for (const end = Date.now() + 90_000; !held && Date.now() < end; await new Promise((r) => setTimeout(r, 250)))
    held = (await listApprovals({ redis: fleet.redis.url })).some((a) => a.owner.id === theirs.id);
  assert.ok(held, "the other submitter's job holds an approval");
  assert.ok(
    (await listed()).every((a) => a.owner.id !== theirs.id),
    "another submitter's job is not listed",
  );
  assert.equal(existsSync(join(cwd, "fleet-approved.txt")), false, "nothing ran while held");
  assert.deepEqual((await call("approve", { id: mine.id })).structuredContent, { id: mine.id, decision: "allow" });
  const result = await other.job(id).result();
  assert.equal(result.status, "completed");
  assert.equal(readFileSync(join(cwd, "fleet-approved.txt"), "utf8"), "ran\n", "the approved command ran exactly once");
  assert.equal(codeOf(await call("approve", { id: mine.id })), "APPROVAL_ALREADY_ANSWERED");
  await other
    .job(theirs.id)
    .cancel()
    .catch(() => undefined);
});
