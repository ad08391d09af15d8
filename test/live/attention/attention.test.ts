/*
 * Attention on the real grok 1.0.41: a session's state changes (starting → idle → working → waiting on an
 * approval → working → idle → done) reach onState, `seat run --json` prints them, and `seat ps` lists a named
 * session with the state its holder reports — `--watch --on-waiting` runs a command once when it starts waiting.
 * Whether the approved command ran is read from the disk (a marker file), never from what anyone reported.
 */
import { test } from "node:test";
import { targetDigest } from "../../../src/approvals/target.js";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { openSession } from "../../../src/sessions/index.js";
import { listLive } from "../../../src/listing/listing.js";
import type { ApprovalsSource, PendingApproval } from "../../../src/supervision/approvals-source.js";
import type { StateEvent } from "../../../src/attention/index.js";
import { runSeat, startSeat } from "../../support/cli.js";
import type { LiveRig } from "../../support/live-rig.js";
import { withLiveRig } from "../../support/live-turns.js";
import { untilDefined } from "../../support/poll.js";

const shellRule = (match: string, marker: string) => ({
  match,
  replies: [
    // grok 1.0.41 refuses run_terminal_command without `description`.
    {
      toolCalls: [
        {
          name: "run_terminal_command",
          arguments: { command: `echo ran > ${marker}`, description: `write ${marker}` },
        },
      ],
    },
    { text: `${match}: went on` },
  ],
});

function envFor(rig: LiveRig): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
  };
}

const until = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 30_000): Promise<T> =>
  untilDefined(what, probe, { timeoutMs, everyMs: 50 });

test("a session reports starting, idle, working, waiting on an approval, working, idle and done through onState", async (t) => {
  await withLiveRig(t, { rules: [shellRule("approve me", "marker-lib.txt")] }, async (rig) => {
    const changes: StateEvent[] = [];
    const seenWhileAsked: string[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: { onState: (e) => void changes.push(e) },
      permissions: createPermissionGate({
        policy: parsePolicyFlags({ ask: ["execute"] }),
        approver: () => {
          seenWhileAsked.push(session.attention().state);
          return "allow";
        },
      }),
    });
    assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
    try {
      const result = await session.prompt("approve me");
      assert.equal(result.stopReason, "end_turn", JSON.stringify(result.diagnostic));
    } finally {
      await session.dispose();
    }
    assert.deepEqual(seenWhileAsked, ["waiting"]);
    assert.ok(existsSync(join(rig.sandbox.project, "marker-lib.txt")), "the approved command ran");
    assert.deepEqual(
      changes.map((c) => c.state),
      ["starting", "idle", "working", "waiting", "working", "idle", "done"],
    );
    assert.equal(changes[3]!.waitingOn, "approval");
    assert.equal(changes[3]!.previous, "working");
    for (const c of changes) assert.ok(!Number.isNaN(Date.parse(c.since)), c.since);
  });
});

test("seat run --json prints each state change, and a turn cancelled from another shell ends cancelled", async (t) => {
  await withLiveRig(
    t,
    {
      rules: [
        { match: "hang now", replies: [{ hang: true }] },
        { match: "hello", replies: [{ text: "hi" }] },
      ],
    },
    async (rig) => {
      const env = envFor(rig);
      const done = await runSeat(["run", "--json", "hello"], { env, cwd: rig.sandbox.project });
      assert.equal(done.code, 0, done.stderr);
      const states = done.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((e) => e.type === "state")
        .map((e) => e.state);
      // `done` stays the stream's last line: the state after the turn comes before it, the session's end is the exit code.
      assert.deepEqual(states, ["starting", "idle", "working", "idle"]);
      const lines = done.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(lines.at(-1)?.type, "done");

      const run = startSeat(["run", "-s", "ps-hang", "--json", "hang now"], { env, cwd: rig.sandbox.project });
      const listed = await until("seat ps to list the running named session", async () => {
        const ps = await runSeat(["ps", "--json"], { env, cwd: rig.sandbox.project });
        assert.equal(ps.code, 0, ps.stderr);
        const items = ps.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>);
        return items.find((i) => i.id === "ps-hang" && i.state === "working");
      });
      assert.equal(listed.kind, "named-session");
      assert.equal(listed.agent, "grok");
      assert.equal(listed.cwd, rig.sandbox.project);
      assert.equal(listed.pid, run.child.pid);
      const cancel = await runSeat(["cancel", "-s", "ps-hang"], { env, cwd: rig.sandbox.project });
      assert.equal(cancel.code, 0, cancel.stderr);
      const ended = await run.done;
      assert.equal(ended.code, 130, ended.stderr);
      const runStates = ended.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((e) => e.type === "state")
        .map((e) => e.state);
      assert.deepEqual(runStates, ["starting", "idle", "working", "cancelled"]);
      const after = await runSeat(["ps", "--json"], { env, cwd: rig.sandbox.project });
      assert.equal(after.stdout.trim(), "", "nothing is live once the run ended");
    },
  );
});

test("seat ps --watch shows a named session waiting on an approval and runs --on-waiting once, with its variables", async (t) => {
  await withLiveRig(t, { rules: [shellRule("wait for me", "marker-ps.txt")] }, async (rig) => {
    const env = envFor(rig);
    const home = join(rig.sandbox.home, ".grok-seat");
    // The approval is held by this test until it let go: a real in-process approvals source lists it meanwhile.
    const pending: PendingApproval[] = [];
    let release: (answer: "allow" | "deny") => void = () => undefined;
    const source: ApprovalsSource = {
      list: async () => [...pending],
      answer: async (id, answer) => {
        release(answer.decision);
        return { id, decision: answer.decision };
      },
    };
    const watch = startSeat(["ps", "--watch", "--json", "--interval", "0.1", "--on-waiting", "env"], {
      env,
      cwd: rig.sandbox.project,
    });
    const opened = await openSession({
      ...rig.sessionOptions,
      home,
      name: "ps-wait",
      permissions: createPermissionGate({
        policy: parsePolicyFlags({ ask: ["execute"] }),
        approver: () =>
          new Promise((resolve) => {
            pending.push({
              id: "ap-1",
              category: "execute",
              title: "write marker-ps.txt",
              target: { command: "echo ran > marker-ps.txt" },
              digest: targetDigest({ command: "echo ran > marker-ps.txt" }),
              owner: { kind: "named-session", id: "ps-wait", name: "ps-wait", pid: process.pid },
              askedAt: new Date().toISOString(),
              deadline: new Date(Date.now() + 60_000).toISOString(),
            });
            release = (answer) => {
              pending.length = 0;
              resolve(answer);
            };
          }),
      }),
    });
    try {
      assert.equal(opened.session.state, "ready", JSON.stringify(opened.session.diagnostics));
      const turn = opened.session.prompt("wait for me");
      const waiting = await until("the named session to be listed waiting", async () => {
        const items = await listLive({ home, approvals: source });
        return items.find((i) => i.id === "ps-wait" && i.state === "waiting");
      });
      assert.equal(waiting.waitingOn, "approval");
      assert.equal(waiting.pendingApprovals, 1);
      assert.equal(waiting.pid, process.pid);
      await until("the --on-waiting command to run", () =>
        watch.stderr().includes("SEAT_PS_STATE=waiting") ? true : undefined,
      );
      assert.ok(!existsSync(join(rig.sandbox.project, "marker-ps.txt")), "nothing ran while the approval was pending");
      await source.answer("ap-1", { decision: "allow" });
      const result = await turn;
      assert.equal(result.stopReason, "end_turn", JSON.stringify(result.diagnostic));
      assert.ok(existsSync(join(rig.sandbox.project, "marker-ps.txt")), "the approved command ran");
      await until("seat ps --watch to see the session idle again", () =>
        watch.stdout().includes('"state":"idle"') ? true : undefined,
      );
    } finally {
      await opened.session.dispose();
    }
    await until("seat ps --watch to see the session gone", () =>
      watch.stdout().includes('"change":"gone"') ? true : undefined,
    );
    watch.child.kill("SIGTERM");
    const ended = await watch.done;
    assert.equal(ended.code, 0, ended.stderr);
    const stderr = ended.stderr;
    assert.equal(
      stderr.split("\n").filter((l) => l === "SEAT_PS_STATE=waiting").length,
      1,
      "--on-waiting ran exactly once",
    );
    for (const line of [
      "SEAT_PS_KIND=named-session",
      "SEAT_PS_ID=ps-wait",
      "SEAT_PS_NAME=ps-wait",
      "SEAT_PS_AGENT=grok",
      "SEAT_PS_WAITING_ON=approval",
      `SEAT_PS_PID=${process.pid}`,
      `SEAT_PS_CWD=${rig.sandbox.project}`,
    ]) {
      assert.ok(stderr.split("\n").includes(line), `${line} in the command's environment`);
    }
    const changes = ended.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((c) => c.id === "ps-wait")
      .map((c) => `${String(c.change)}:${String(c.state)}`);
    assert.ok(changes.includes("state:waiting") || changes.includes("appeared:waiting"), changes.join(","));
    assert.match(changes.at(-1) ?? "", /^gone:/);
  });
});
