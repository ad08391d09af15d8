/*
 * `seat mcp --redis URL`: the fleet tools on a real redis-server with a `seat worker` running the real grok 1.0.41
 * offline — submit answers a job id at once, job and jobs follow it, seat://jobs/{id}/events holds its events —
 * driven by the official MCP Client over stdio. Without --redis the fleet tools are not served.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { gotLive, need } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("submit answers a job id at once; a worker's real grok runs it; job, jobs and the events resource follow it; refusals are coded", async (t) => {
  if (!need(t, redisMissing())) return;
  const live = await startLiveRig({
    rules: [
      { match: "fleet work", replies: [{ text: "done by the fleet" }] },
      { match: "slow", replies: [{ hang: true }] },
    ],
  });
  if (!gotLive(t, live)) return;
  const fleet = await startFleetRig();
  t.after(async () => {
    await fleet.close();
    await live.close();
  });
  await fleet.startWorker("host-a", {
    env: { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary },
  });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: live.sandbox.home,
    GROK_SEAT_HOME: join(live.sandbox.root, "mcp-home"),
  };
  const { client, call } = await connectSeatMcp(t, ["--redis", fleet.redis.url, "--root", live.sandbox.project], {
    env,
    callTimeoutMs: 60_000,
  });

  const names = (await client.listTools()).tools.map((tool) => tool.name);
  for (const name of ["run", "submit", "job", "jobs"]) assert.ok(names.includes(name), name);

  const submitted = await call("submit", { prompt: "fleet work please", cwd: live.sandbox.project });
  assert.equal(submitted.isError, undefined, JSON.stringify(submitted));
  const id = (submitted.structuredContent as { id: string }).id;
  const ended = await until(
    async () => {
      const job = (
        (await call("job", { id })).structuredContent as {
          job: { status: string; stopReason: string | null; host: string | null };
        }
      ).job;
      return ["completed", "failed", "cancelled", "uncertain"].includes(job.status) ? job : undefined;
    },
    60_000,
    "the job to end",
  );
  assert.equal(ended.status, "completed");
  assert.equal(ended.stopReason, "end_turn");
  assert.equal(ended.host, "host-a");
  const listed = (await call("jobs", { limit: 5 })).structuredContent as { jobs: Array<{ id: string }> };
  assert.ok(listed.jobs.some((job) => job.id === id));
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((tpl) => tpl.uriTemplate);
  assert.ok(templates.includes("seat://jobs/{id}/events"), templates.join(","));
  const resource = await client.readResource({ uri: `seat://jobs/${id}/events` });
  const events = (
    JSON.parse(String((resource.contents[0] as { text: string }).text)) as {
      events: Array<{ cursor: string; event: { type: string; text?: string; status?: string } }>;
    }
  ).events;
  assert.equal(events.find((e) => e.event.type === "done")?.event.text, "done by the fleet");
  assert.deepEqual(
    events.filter((e) => e.event.type === "job").map((e) => e.event.status),
    ["waiting", "active", "dispatched", "completed"],
  );

  assert.equal(codeOf(await call("job", { id: "../etc/passwd" })), "FLEET_JOB_INVALID");
  assert.equal(codeOf(await call("submit", { prompt: "x", cwd: "/elsewhere/repo" })), "MCP_CWD_OUTSIDE_ROOTS");
  assert.equal(
    codeOf(await call("submit", { prompt: "x", cwd: `${live.sandbox.project}/../x` })),
    "MCP_CWD_OUTSIDE_ROOTS",
  );
  assert.equal(codeOf(await call("submit", { prompt: "x", agent: "claude" })), "MCP_AGENT_NOT_ALLOWED");
  assert.equal(codeOf(await call("submit", { prompt: "x", allow: ["execute"] })), "MCP_POLICY_WIDENING");
  assert.equal(
    ((await call("jobs", {})).structuredContent as { jobs: unknown[] }).jobs.length,
    1,
    "no refused submit was queued",
  );
});

test("without --redis the fleet tools are not served", async (t) => {
  const live = await startLiveRig();
  if (!gotLive(t, live)) return;
  t.after(() => live.close());
  const { client } = await connectSeatMcp(t, ["--root", live.sandbox.project], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: live.sandbox.home },
  });
  const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
  assert.deepEqual(names, [
    "approvals",
    "approve",
    "cancel",
    "deny",
    "diff",
    "discard",
    "hire_visible",
    "merge",
    "release",
    "run",
    "seat_status",
    "send",
    "session_history",
    "sessions",
    "usage",
  ]);
});
