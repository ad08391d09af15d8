/*
 * Fleet jobs with a repository (issue 18 §3) on the real grok 1.0.41 against the mock: two `seat worker` hosts, a
 * bare repository as the remote. Each job runs in a worktree of its worker's cache clone; grok writes a file with its
 * own shell tool; at the end the worker pushes seat/<job id> (one atomic push), and the job's record names branch,
 * commit and diffstat (`seat jobs diff ID`). A job whose turn fails pushes nothing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gotLive, need } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { redisMissing, startFleetRig, until } from "../../support/fleet-rig.js";
import { connectFleet } from "../../../src/fleet/index.js";
import { parsePolicyFlags } from "../../../src/permissions/index.js";
import { runSeat } from "../../support/cli.js";
import { gitIn, makeRepo } from "../../support/git-repo.js";

const shell = (command: string) => ({
  toolCalls: [{ name: "run_terminal_command", arguments: { command, description: "write a file" } }],
});

test("fleet jobs with --repo --worktree: grok's work is pushed as seat/<job id> from two workers, with branch, commit and diffstat in the record; a failed turn pushes nothing", async (t) => {
  if (!need(t, redisMissing())) return;
  const dir = mkdtempSync(join(tmpdir(), "gs-fleet-worktrees-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  makeRepo(join(dir, "src"), { "README.md": "# app\n" });
  const remote = join(dir, "remote.git");
  gitIn(dir, ["clone", "--bare", "--quiet", join(dir, "src"), remote]);
  const mainBefore = gitIn(remote, ["rev-parse", "main"]).trim();
  const live = await startLiveRig({
    rules: [
      { match: "make file a", replies: [shell("echo from-grok-a > made-a.txt"), { text: "made a" }] },
      { match: "make file b", replies: [shell("echo from-grok-b > made-b.txt"), { text: "made b" }] },
      { match: "make file c", replies: [shell("echo never > made-c.txt"), { text: "tried c" }] },
    ],
  });
  if (!gotLive(t, live)) return;
  t.after(() => live.close());
  const fleet = await startFleetRig();
  t.after(() => fleet.close());
  const hostEnv = { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary };
  await fleet.startWorker("host-a", { env: { ...hostEnv, GROK_SEAT_HOME: join(dir, "seat-a") } });
  await fleet.startWorker("host-b", { env: { ...hostEnv, GROK_SEAT_HOME: join(dir, "seat-b") } });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  const submit = (id: string, prompt: string, allow: string[]) =>
    runSeat(
      ["submit", "--redis", fleet.redis.url, "--wait", "--id", id, "--repo", remote, "--worktree", ...allow, prompt],
      { env },
    );
  const [a, b] = await Promise.all([
    submit("wt-a", "make file a", ["--allow", "execute"]),
    submit("wt-b", "make file b", ["--allow", "execute"]),
  ]);
  const logs = () => fleet.workers.map((w) => w.stderr()).join("");
  assert.equal(a.code, 0, a.stdout + a.stderr + logs());
  assert.equal(b.code, 0, b.stdout + b.stderr + logs());
  assert.equal(gitIn(remote, ["show", "seat/wt-a:made-a.txt"]), "from-grok-a\n");
  assert.equal(gitIn(remote, ["show", "seat/wt-b:made-b.txt"]), "from-grok-b\n");
  assert.match(gitIn(remote, ["log", "-1", "--format=%s", "seat/wt-a"]), /^seat: fleet-wt-a make file a/);
  assert.equal(gitIn(remote, ["rev-parse", "main"]).trim(), mainBefore, "nothing but the job branches was pushed");

  const diff = await runSeat(["jobs", "diff", "wt-a", "--redis", fleet.redis.url, "--json"], { env });
  assert.equal(diff.code, 0, diff.stdout + diff.stderr);
  const shown = JSON.parse(diff.stdout.trim()) as { branch: string; commit: string; diffstat: string; status: string };
  assert.equal(shown.branch, "seat/wt-a");
  assert.equal(shown.commit, gitIn(remote, ["rev-parse", "seat/wt-a"]).trim());
  assert.match(shown.diffstat, /made-a\.txt \| 1 \+/);
  assert.equal(shown.status, "completed");

  // No --allow execute: the call is held for a person (issue 16); nobody answers, so its deadline denies it
  // (APPROVAL_TIMEOUT, exit 124), the job fails, and nothing is pushed.
  const c = await submit("wt-c", "make file c", ["--approval-timeout", "2"]);
  assert.equal(c.code, 124, c.stderr);
  assert.equal(gitIn(remote, ["branch", "--list", "seat/wt-c"]), "", "a failed job pushes no branch");
  assert.deepEqual(gitIn(remote, ["branch", "--format=%(refname:short)"]).trim().split("\n").sort(), [
    "main",
    "seat/wt-a",
    "seat/wt-b",
  ]);
});

test("a worker killed mid-turn on a --repo job pushes nothing: the job is uncertain and the remote has no seat/<job id>", async (t) => {
  if (!need(t, redisMissing())) return;
  const dir = mkdtempSync(join(tmpdir(), "gs-fleet-worktrees-kill-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  makeRepo(join(dir, "src"), { "README.md": "# app\n" });
  const remote = join(dir, "remote.git");
  gitIn(dir, ["clone", "--bare", "--quiet", join(dir, "src"), remote]);
  const long = Array.from({ length: 120 }, (_, i) => `w${i}`).join(" ");
  const live = await startLiveRig({
    rules: [{ match: "edit slowly", replies: [shell("echo half > half.txt"), { text: long, chunkDelayMs: 200 }] }],
  });
  if (!gotLive(t, live)) return;
  t.after(() => live.close());
  const fleet = await startFleetRig();
  t.after(() => fleet.close());
  const client = await connectFleet(fleet.redis.url);
  t.after(() => client.close());
  const hostEnv = { HOME: live.sandbox.home, GROK_HOME: live.sandbox.grokHome, GROK_BIN: live.binary };
  const worker = await fleet.startWorker("host-a", { env: { ...hostEnv, GROK_SEAT_HOME: join(dir, "seat-a") } });
  const handle = await client.enqueue({
    prompt: "edit slowly",
    repo: remote,
    policy: parsePolicyFlags({ allow: ["execute"] }),
    jobId: "wt-kill",
  });
  // The shell tool ran (its result went back to the model) and the long answer is streaming: kill the worker now.
  await until(
    () =>
      live.mock.requests.some((r) => r.kind === "tool_followup" && r.reqId === "fleet-wt-kill") ? true : undefined,
    60_000,
    "the tool's follow-up at the model",
  );
  worker.child.kill("SIGKILL");
  const result = await handle.result();
  assert.equal(result.status, "uncertain");
  assert.equal(gitIn(remote, ["branch", "--list", "seat/*"]), "", "no branch, half-pushed or otherwise");
});
