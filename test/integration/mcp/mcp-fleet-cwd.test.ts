/*
 * `seat mcp --redis`: a job's cwd that does not exist here yet is judged where it would be — a directory to be
 * made under a symlink that leads out of the roots (ROOT/link/new, link → outside) is MCP_CWD_OUTSIDE_ROOTS and
 * nothing is queued; one to be made plainly under a root is queued. A real redis-server and the built CLI,
 * driven by the official MCP Client over stdio (no worker: the job only has to be queued or refused).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig } from "../../support/fleet-rig.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("submit: a cwd not made yet under a symlink out of the roots is MCP_CWD_OUTSIDE_ROOTS (nothing queued); one plainly under a root is queued", async (t) => {
  if (!need(t, redisMissing())) return;
  const fleet = await startFleetRig();
  t.after(() => fleet.close());
  const root = join(fleet.root, "project");
  const outside = join(fleet.root, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  symlinkSync(outside, join(root, "link"));
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: fleet.root,
    GROK_SEAT_HOME: join(fleet.root, "mcp-home"),
  };
  const { call } = await connectSeatMcp(t, ["--redis", fleet.redis.url, "--root", root], {
    env,
    callTimeoutMs: 60_000,
  });

  for (const cwd of [join(root, "link", "not-made-yet"), join(root, "link", "a", "b")]) {
    const refused = await call("submit", { prompt: "work elsewhere", cwd });
    assert.equal(codeOf(refused), "MCP_CWD_OUTSIDE_ROOTS", `${cwd}: ${JSON.stringify(refused)}`);
  }
  const queued = await call("submit", { prompt: "work here", cwd: join(root, "not-made-yet") });
  assert.equal(queued.isError, undefined, JSON.stringify(queued));
  assert.equal(
    ((await call("jobs", {})).structuredContent as { jobs: unknown[] }).jobs.length,
    1,
    "only the good job was queued",
  );
});
