/*
 * Notifications from `seat run` on the real grok 1.0.41 against the mock: a held shell command reaches a signed
 * webhook as `waiting` with the exact command, `seat approve` from another process answers it, and the turn's end
 * arrives as `done` — each checked by a loopback receiver that verifies signature and schema. A receiver that
 * never answers does not keep `seat run` alive for more than 5 s after its turn. A missing binary fails.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runSeat, startSeat } from "../../support/cli.js";
import type { TestLike } from "../../support/requirements.js";
import type { LiveRig } from "../../support/live-rig.js";
import { startNotifyReceiver, type NotifyReceiver } from "../../support/notify-receiver.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";
import { startRequiredLiveRig } from "../../support/required-live-rig.js";
import { jsonLines } from "../../support/json-lines.js";

const SECRET = "notify-live-secret-0123456789";
const COMMAND = 'echo "$(echo ran)" >> notified.txt; token="$(echo x)"; echo configured';

const SCRIPT: MockScript = {
  rules: [
    {
      match: "notify held case",
      replies: [
        {
          toolCalls: [
            { name: "run_terminal_command", arguments: { command: COMMAND, description: "append to notified.txt" } },
          ],
        },
        { text: "held case done" },
      ],
    },
    { match: "notify plain case", replies: [{ text: "plain case done" }] },
  ],
};

type Line = { type: string; [k: string]: unknown };
const lines = (out: string): Line[] => jsonLines<Line>(out);

const rig = (t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> =>
  startRequiredLiveRig(t, SCRIPT);

function envWithHook(r: LiveRig, receiver: NotifyReceiver): NodeJS.ProcessEnv {
  const config = join(r.sandbox.root, "xdg");
  mkdirSync(join(config, "grok-seat"), { recursive: true });
  writeFileSync(
    join(config, "grok-seat", "config.json"),
    JSON.stringify({
      notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secretEnv: "HOOK_SECRET" } } },
    }),
  );
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: r.sandbox.home,
    GROK_HOME: r.sandbox.grokHome,
    GROK_BIN: r.binary,
    GROK_SEAT_HOME: join(r.sandbox.root, "seat-home"),
    XDG_CONFIG_HOME: config,
    HOOK_SECRET: SECRET,
    NO_COLOR: "1",
  };
}

test("seat run --notify: a held approval arrives signed as `waiting` with the exact command, is answered from another process, and the end arrives as `done`", async (t) => {
  const r = await rig(t);
  const receiver = await startNotifyReceiver(SECRET);
  t.after(() => receiver.close());
  const env = envWithHook(r, receiver);
  const cwd = r.sandbox.project;
  const run = startSeat(["run", "-s", "notified", "--notify", "hook", "--json", "please run notify held case"], {
    env,
    cwd,
  });
  t.after(() => void run.child.kill("SIGKILL"));
  const deadline = Date.now() + 90_000;
  let waiting: { approval: { id: string; command: string } } | undefined;
  while (Date.now() < deadline && waiting === undefined) {
    waiting = [...receiver.accepted.values()].find(
      (e) => (e as { event: string }).event === "waiting",
    ) as typeof waiting;
    if (waiting === undefined) await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(
    waiting,
    `no waiting notification arrived; requests: ${JSON.stringify(receiver.requests.map((q) => q.refused ?? "ok"))}`,
  );
  assert.equal(waiting.approval.command, COMMAND, "the notification shows the exact command, byte for byte");
  assert.equal(existsSync(join(cwd, "notified.txt")), false, "nothing ran before the answer");
  const answered = await runSeat(["approve", waiting.approval.id, "--json"], { env, cwd });
  assert.equal(answered.code, 0, answered.stderr);
  const ended = await run.done;
  assert.equal(ended.code, 0, ended.stderr);
  assert.equal(readFileSync(join(cwd, "notified.txt"), "utf8"), "ran\n");
  const events = [...receiver.accepted.values()] as Array<{ event: string; subject: { kind: string; name?: string } }>;
  assert.deepEqual(
    events.map((e) => e.event),
    ["waiting", "done"],
  );
  for (const e of events) assert.deepEqual(e.subject, { kind: "named-session", name: "notified" });
  assert.ok(
    receiver.requests.every((q) => q.refused === undefined),
    "every request verified (signature, schema)",
  );
  assert.ok(
    !lines(ended.stdout).some(
      (l) => l.type === "diagnostic" && (l.diagnostic as { code: string }).code === "NOTIFY_DELIVERY_FAILED",
    ),
  );
});

test("seat mcp --notify: a run turn's held approval arrives signed as `waiting` (subject: the run), is answered from another process, and its end arrives as `done`", async (t) => {
  const r = await rig(t);
  const receiver = await startNotifyReceiver(SECRET);
  t.after(() => receiver.close());
  const env = envWithHook(r, receiver) as Record<string, string>;
  const cwd = r.sandbox.project;
  const { client } = await connectSeatMcp(t, ["--root", cwd, "--ask", "execute", "--notify", "hook"], { env, cwd });
  const running = client.callTool(
    { name: "run", arguments: { prompt: "please run notify held case" } },
    CallToolResultSchema,
    { timeout: 120_000 },
  ) as Promise<CallToolResult>;
  let waiting: { approval: { id: string; command: string; digest: string }; subject: { kind: string } } | undefined;
  for (const end = Date.now() + 90_000; waiting === undefined && Date.now() < end; ) {
    waiting = [...receiver.accepted.values()].find(
      (e) => (e as { event: string }).event === "waiting",
    ) as typeof waiting;
    if (waiting === undefined) await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(waiting, `no waiting notification arrived; requests: ${receiver.requests.length}`);
  assert.equal(waiting.approval.command, COMMAND, "the notification shows the exact command, byte for byte");
  assert.equal(waiting.subject.kind, "run");
  assert.equal(existsSync(join(cwd, "notified.txt")), false, "nothing ran before the answer");
  const answered = await runSeat(["approve", waiting.approval.id, "--digest", waiting.approval.digest, "--json"], {
    env,
    cwd,
  });
  assert.equal(answered.code, 0, answered.stderr);
  const result = await running;
  assert.equal(result.isError, undefined, JSON.stringify(result.content));
  assert.equal(readFileSync(join(cwd, "notified.txt"), "utf8"), "ran\n");
  for (const end = Date.now() + 10_000; receiver.accepted.size < 2 && Date.now() < end; )
    await new Promise((res) => setTimeout(res, 100));
  const events = [...receiver.accepted.values()] as Array<{ event: string; subject: { kind: string; id?: string } }>;
  assert.deepEqual(
    events.map((e) => e.event),
    ["waiting", "done"],
  );
  assert.equal(events[0]!.subject.id, events[1]!.subject.id, "one subject: the run's session");
  assert.ok(
    receiver.requests.every((q) => q.refused === undefined),
    "every request verified (signature, schema)",
  );
});

test("a receiver that never answers: seat run exits within 5 s of its turn's end and says the notification was not delivered", async (t) => {
  const r = await rig(t);
  const receiver = await startNotifyReceiver(SECRET);
  t.after(() => receiver.close());
  receiver.hang(true);
  const env = envWithHook(r, receiver);
  const run = startSeat(["run", "--notify", "hook", "--json", "please run notify plain case"], {
    env,
    cwd: r.sandbox.project,
  });
  t.after(() => void run.child.kill("SIGKILL"));
  let doneAt: number | undefined;
  run.child.stdout?.on("data", () => {
    if (doneAt === undefined && run.stdout().includes('"type":"done"')) doneAt = Date.now();
  });
  const ended = await run.done;
  const exitAt = Date.now();
  assert.equal(ended.code, 0, ended.stderr);
  assert.ok(doneAt !== undefined, ended.stdout);
  assert.ok(exitAt - doneAt < 5_000, `seat run exited ${exitAt - doneAt} ms after its turn's end`);
  assert.ok(receiver.requests.length >= 1, "the receiver was asked");
  const failed = lines(ended.stdout).find(
    (l) => l.type === "diagnostic" && (l.diagnostic as { code: string }).code === "NOTIFY_DELIVERY_FAILED",
  );
  assert.ok(failed, ended.stdout);
});

test("an unknown --notify name exits 2 before any agent starts; seat notify list shows targets without their secret", async (t) => {
  const r = await rig(t);
  const receiver = await startNotifyReceiver(SECRET);
  t.after(() => receiver.close());
  const env = envWithHook(r, receiver);
  const bad = await runSeat(["run", "--notify", "pager", "hello"], { env, cwd: r.sandbox.project });
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /NOTIFY_TARGET_UNKNOWN|No notification target "pager"/);
  const listed = await runSeat(["notify", "list", "--json"], { env, cwd: r.sandbox.project });
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(!listed.stdout.includes(SECRET));
  assert.equal((lines(listed.stdout)[0] as { name?: string }).name, "hook");
  const sample = await runSeat(["notify", "test", "hook", "--json"], { env, cwd: r.sandbox.project });
  assert.equal(sample.code, 0, sample.stderr);
  assert.equal(receiver.accepted.size, 1);
});
