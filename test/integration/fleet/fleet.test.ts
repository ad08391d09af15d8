/*
 * Fleet on a real redis-server with `seat worker` processes (each a simulated host with its own HOME) running
 * the fake agent. The fake logs every session/prompt it receives, so "sent once" is counted at the agent.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CursorEvent, JobEvent } from "../../../src/fleet/index.js";
import { answerApproval } from "../../../src/supervision/index.js";
import { APPROVAL_ANSWERED_CHANNEL } from "../../../src/fleet/keys.js";
import { Redis } from "ioredis";
import { need } from "../../support/requirements.js";
import { redisMissing, until, waitForEvent, withFleet } from "../../support/fleet-rig.js";
import { runSeat, startSeat } from "../../support/cli.js";

const status = (s: string) => (e: CursorEvent["event"]) => e.type === "job" && e.status === s;
const env = () => ({ PATH: process.env.PATH ?? "/usr/bin:/bin" });

test("seat submit --wait streams the job's turn as seat run's NDJSON from a worker in another process and exits 0", async (t) => {
  await withFleet(t, async (rig) => {
    await rig.startWorker("host-a");
    await rig.startWorker("host-b");
    const result = await runSeat(["submit", "--redis", rig.redis.url, "--wait", "hello fleet"], { env: env() });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; [k: string]: any });
    assert.ok(lines.every((l) => typeof l.type === "string"));
    assert.deepEqual(
      lines.filter((l) => l.type === "job").map((l) => l.status),
      ["waiting", "active", "dispatched", "completed"],
    );
    assert.equal(lines.find((l) => l.type === "done")?.text, "pong from fake");
    const id = lines[0]!.id as string;
    const sent = rig.workers.flatMap((w) => w.prompts()).filter((p) => p === `fleet-${id}`);
    assert.equal(sent.length, 1, "the prompt reached one agent once");
  });
});

test("kill -9 of the worker right after dispatch leaves the job uncertain within 30 s and the prompt reached the agent once", async (t) => {
  await withFleet(t, async (rig, client) => {
    const a = await rig.startWorker("host-a");
    const handle = await client.enqueue({ prompt: "scenario:hang-on-prompt keep going" });
    await waitForEvent(client, handle.id, status("dispatched"));
    const b = await rig.startWorker("host-b");
    a.child.kill("SIGKILL");
    const killedAt = Date.now();
    const result = await handle.result();
    const noticedMs = Date.now() - killedAt;
    assert.equal(result.status, "uncertain");
    assert.equal(result.code, "FLEET_JOB_UNCERTAIN");
    assert.ok(noticedMs < 30_000, `reported uncertain ${noticedMs} ms after the kill`);
    // Give host-b's stalled-job recovery time to take the job back (lock 10 s + check 5 s): it must not re-send.
    await new Promise((r) => setTimeout(r, Math.max(0, 16_000 - noticedMs)));
    assert.deepEqual(a.prompts(), [`fleet-${handle.id}`]);
    assert.deepEqual(b.prompts(), [], "the worker that recovered the stalled job sent nothing");
    const show = await runSeat(["jobs", "show", handle.id, "--redis", rig.redis.url], { env: env() });
    assert.equal(show.code, 76, show.stderr);
    assert.match(show.stdout, /uncertain: .*may have reached the model; it was not re-sent/);
  });
});

test("a worker killed before dispatch: the job is retried on another worker and completes there, sent once", async (t) => {
  await withFleet(t, async (rig, client) => {
    // host-a's agent never answers session/new, so its job stays active and undispatched.
    const a = await rig.startWorker("host-a", { scenario: "hang-on-new-session" });
    const handle = await client.enqueue({ prompt: "retry me" });
    await waitForEvent(client, handle.id, status("active"));
    const b = await rig.startWorker("host-b");
    a.child.kill("SIGKILL");
    const result = await handle.result();
    assert.equal(result.status, "completed");
    assert.equal(result.text, "pong from fake");
    assert.equal((await handle.state()).host, "host-b");
    assert.deepEqual(a.prompts(), []);
    assert.deepEqual(b.prompts(), [`fleet-${handle.id}`]);
  });
});

test("cancel reaches the running worker and ends a turn that would never end by itself as cancelled; seat submit --wait exits 130", async (t) => {
  await withFleet(t, async (rig, client) => {
    await rig.startWorker("host-a");
    const submit = startSeat(
      ["submit", "--redis", rig.redis.url, "--wait", "scenario:hang-on-prompt wait for cancel"],
      { env: env() },
    );
    const id = await until(() => /"type":"submitted","id":"([^"]+)"/.exec(submit.stdout())?.[1], 10_000, "the job id");
    await waitForEvent(client, id, status("dispatched"));
    const t0 = Date.now();
    const cancel = await runSeat(["jobs", "cancel", id, "--redis", rig.redis.url], { env: env() });
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.match(cancel.stdout, /cancel acknowledged by worker host-a\//);
    const ended = await waitForEvent(
      client,
      id,
      (e) => e.type === "job" && ["cancelled", "completed", "failed"].includes(e.status),
    );
    const latencyMs = (ended.event as { atMs: number }).atMs - t0;
    assert.equal((ended.event as { status: string }).status, "cancelled");
    // The hanging turn never ends by itself, so "cancelled" here proves the cancel path reached the worker. How fast
    // is measured, not asserted (machines are noisy): R6 in `npm run torture` reports cancel latency p50/p99.
    t.diagnostic(`cancel latency ${latencyMs} ms (including the seat CLI's start)`);
    const result = await submit.done;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stdout, /"type":"done","stopReason":"cancelled"/);
  });
});

test("a waiting job cancelled before any worker takes it is removed from the queue and never runs", async (t) => {
  await withFleet(t, async (rig, client) => {
    const handle = await client.enqueue({ prompt: "never run me" });
    const outcome = await handle.cancel();
    assert.deepEqual(outcome, { status: "cancelled", removed: true, acknowledged: true });
    const w = await rig.startWorker("host-a");
    const other = await client.enqueue({ prompt: "run me" });
    assert.equal((await other.result()).status, "completed");
    assert.deepEqual(w.prompts(), [`fleet-${other.id}`]);
  });
});

test("a watcher that disconnects resumes from its cursor and misses nothing", async (t) => {
  await withFleet(t, async (rig, client) => {
    await rig.startWorker("host-a");
    const handle = await client.enqueue({ prompt: "scenario:slow-stream" });
    const seen: CursorEvent[] = [];
    for await (const item of handle.events()) {
      seen.push(item);
      if (item.event.type === "text") break; // disconnect mid-turn
    }
    await new Promise((r) => setTimeout(r, 400)); // events keep arriving while nobody watches
    const watch = await runSeat(["jobs", "watch", handle.id, "--from", seen.at(-1)!.cursor, "--redis", rig.redis.url], {
      env: env(),
    });
    assert.equal(watch.code, 0, watch.stderr);
    const resumed = watch.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { cursor: string; type: string });
    const all: string[] = [];
    for await (const item of client.job(handle.id).events()) all.push(item.cursor);
    assert.deepEqual(
      [...seen.map((s) => s.cursor), ...resumed.map((r) => r.cursor)],
      all,
      "first part + resumed part = the whole stream, no gap, no repeat",
    );
    assert.equal(
      resumed.filter((r) => r.type === "text").length + seen.filter((s) => s.event.type === "text").length,
      10,
    );
  });
});

test("a job's permission policy travels with it: require-approval holds the call for a person (issue 16 §1), denied from Redis it is a deny, reported in its events", async (t) => {
  await withFleet(t, async (rig, client) => {
    await rig.startWorker("host-a");
    // An accepted answer is announced to the workers (so the asking one reads it back at once, not at its next poll).
    const listener = new Redis(rig.redis.url);
    const announced: string[] = [];
    listener.on("message", (_channel: string, jobId: string) => void announced.push(jobId));
    await listener.subscribe(APPROVAL_ANSWERED_CHANNEL);
    const denied = await client.enqueue({ prompt: "TOOLTEST run it" });
    const events: CursorEvent["event"][] = [];
    try {
      for await (const { event } of denied.events()) {
        events.push(event);
        if (event.type === "approval_asked")
          assert.deepEqual(await answerApproval(event.approval.id, { decision: "deny" }, { redis: rig.redis.url }), {
            id: event.approval.id,
            decision: "deny",
          });
      }
      assert.deepEqual(announced, [denied.id]);
    } finally {
      listener.disconnect();
    }
    assert.equal((events.find((e) => e.type === "approval_answered") as { via?: string } | undefined)?.via, "answer");
    const permission = events.find((e) => e.type === "permission") as
      | { decision: string; category: string }
      | undefined;
    assert.equal(permission?.decision, "deny");
    const allowed = await client.enqueue({
      prompt: "TOOLTEST run it",
      policy: {
        defaults: { read: "allow", edit: "allow", execute: "allow", network: "allow", mcp: "allow", other: "allow" },
        configured: ["read", "edit", "execute", "network", "mcp", "other"],
      },
    });
    const again: CursorEvent["event"][] = [];
    for await (const { event } of allowed.events()) again.push(event);
    assert.equal((again.find((e) => e.type === "permission") as { decision: string } | undefined)?.decision, "allow");
  });
});

test("a Redis password in the URL is never printed, not even in an error", async (t) => {
  if (!need(t, redisMissing())) return;
  const secret = "s3cret-fleet-pass";
  const result = await runSeat(["jobs", "show", "no-such-job", "--redis", `redis://:${secret}@127.0.0.1:9/0`], {
    env: env(),
  });
  assert.notEqual(result.code, 0);
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(secret));
  assert.match(result.stderr, /redis:\/\/:\*\*\*@127\.0\.0\.1:9\/0|FLEET_REDIS_UNAVAILABLE/);
});

test("SIGTERM on seat worker hands back a job not yet dispatched (it runs on another worker) and finishes the dispatched one before exiting 0", async (t) => {
  await withFleet(t, async (rig, client) => {
    // host-a's agent streams a 4 s turn, and its sessions become ready 3 s after session/new (MCP readiness
    // waits for the worker's host tool): a window in which a taken job is active but not dispatched.
    const scenario = join(rig.root, "slow-start.json");
    writeFileSync(
      scenario,
      JSON.stringify({
        name: "slow-start",
        newSession: { mcpInitializedDelayMs: 3_000, mcpToolCount: 1 },
        prompt: { steps: [{ text: Array.from({ length: 20 }, (_, i) => `w${i}`).join(" "), chunkDelayMs: 200 }] },
      }),
    );
    const tools = join(rig.root, "tools.mjs");
    writeFileSync(
      tools,
      `export const tools = [{ name: "noop", description: "Does nothing.", inputSchema: { type: "object", properties: {} }, execute: () => "ok" }];\n`,
    );
    const a = await rig.startWorker("host-a", { scenario, args: ["--concurrency", "2", "--tools", tools] });
    const dispatchedJob = await client.enqueue({ prompt: "finish me" });
    await waitForEvent(client, dispatchedJob.id, status("dispatched"));
    const waitingJob = await client.enqueue({ prompt: "hand me back" });
    assert.equal(((await waitForEvent(client, waitingJob.id, status("active"))).event as JobEvent).host, "host-a");
    a.child.kill("SIGTERM");
    const b = await rig.startWorker("host-b");
    const exit = await a.done;
    const exitedAt = Date.now();
    assert.equal(exit.code, 0, a.stderr());
    const finished = await dispatchedJob.result();
    assert.equal(finished.status, "completed");
    assert.equal(finished.text.split(/\s+/).filter(Boolean).length, 20, "the whole turn streamed");
    assert.ok((await dispatchedJob.state()).endedAt! <= exitedAt, "completed before the worker exited");
    const moved = await waitingJob.result();
    assert.equal(moved.status, "completed");
    assert.equal((await waitingJob.state()).host, "host-b");
    const transitions: JobEvent[] = [];
    for await (const { event } of waitingJob.events()) if (event.type === "job") transitions.push(event as JobEvent);
    assert.deepEqual(
      transitions.map((e) => [e.status, e.host ?? e.reason]),
      [
        ["waiting", undefined],
        ["active", "host-a"],
        ["waiting", "handed-back"],
        ["active", "host-b"],
        ["dispatched", "host-b"],
        ["completed", "host-b"],
      ],
    );
    assert.deepEqual(a.prompts(), [`fleet-${dispatchedJob.id}`], "host-a sent only the dispatched job's prompt");
    assert.deepEqual(b.prompts(), [`fleet-${waitingJob.id}`]);
  });
});

test("a failed job whose agent error quotes a key the worker knows keeps it out of the job record, its stream and seat jobs show (redacted before Redis)", async (t) => {
  await withFleet(t, async (rig, client) => {
    // The keys are the worker's own (what it passes to agents): known values, so masked wherever they appear.
    await rig.startWorker("host-a", {
      env: { XAI_API_KEY: "sk-live-9e8d7c6b5a4f3e2d1c0b", ANTHROPIC_AUTH_TOKEN: "tok3n-9e8d7c6b5a4f" },
    });
    const handle = await client.enqueue({ prompt: "scenario:error-with-key go" });
    const result = await handle.result();
    assert.equal(result.status, "failed");
    const { Redis } = await import("ioredis");
    const redis = new Redis(rig.redis.url);
    try {
      const stored = JSON.stringify([
        await redis.hgetall(`grok-seat:job:{${handle.id}}:state`),
        await redis.xrange(`grok-seat:job:{${handle.id}}:events`, "-", "+"),
      ]);
      assert.match(stored, /upstream refused: api_key=\[redacted\]/, "the failure is recorded, masked");
      for (const secret of ["sk-live-9e8d7c6b5a4f3e2d1c0b", "tok3n-9e8d7c6b5a4f"])
        assert.ok(!stored.includes(secret), `${secret} is not in Redis`);
    } finally {
      redis.disconnect();
    }
    const shown = await runSeat(["jobs", "show", "--redis", rig.redis.url, handle.id], { env: env() });
    assert.ok(!shown.stdout.includes("sk-live-9e8d7c6b5a4f3e2d1c0b"), shown.stdout);
  });
});
