// Notifications against a real HTTP receiver on loopback that verifies the signature and the schema and dedupes
// by event id; a program target; the terminal sequence; the config's refusals. No network beyond loopback.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isSeatError } from "../../../src/errors.js";
import { redactText, registerSecrets } from "../../../src/internal/redact.js";
import { buildRequest, createNotifier, deliver, terminalSequence } from "../../../src/notify/index.js";
import {
  chooseTargets,
  createNotifyEvent,
  parseNotifyConfig,
  type NotifyTarget,
} from "../../../src/notify-config/index.js";
import { startNotifyReceiver } from "../../support/notify-receiver.js";
import { alive } from "../../support/processes.js";

const SECRET = "whsec-test-0123456789abcdef";

function webhook(url: string, events?: string[]): NotifyTarget {
  const config = parseNotifyConfig({
    targets: { hook: { type: "webhook", url, secret: SECRET, ...(events ? { events } : {}) } },
  });
  return config.targets.hook as NotifyTarget;
}

test("a webhook arrives signed, validates against grok-seat.notify.v1, and a retry carries the same id", async () => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    receiver.failNext(1);
    const event = createNotifyEvent({
      event: "waiting",
      subject: { kind: "named-session", name: "fix-login" },
      text: "an approval is waiting",
      approval: {
        id: "ap_1",
        category: "execute",
        command: 'token="$(touch PWNED)"; echo configured',
        digest: "ab".repeat(32),
      },
    });
    const outcome = await deliver(webhook(`${receiver.url}/hook`), event, {
      signal: new AbortController().signal,
      delaysMs: [50],
    });
    assert.equal(outcome.ok, true, outcome.detail);
    assert.equal(outcome.attempts, 2);
    assert.equal(receiver.requests.length, 2);
    const [first, second] = receiver.requests;
    assert.equal(first?.refused, "scripted failure");
    assert.equal(second?.refused, undefined, "the receiver accepted the retry (signature and schema)");
    assert.equal(first?.headers["x-seat-event-id"], second?.headers["x-seat-event-id"]);
    assert.equal(first?.body, second?.body, "a retry sends the same bytes");
    assert.equal(receiver.accepted.size, 1);
    const got = receiver.accepted.get(event.id) as { approval: { command: string } };
    assert.equal(
      got.approval.command,
      'token="$(touch PWNED)"; echo configured',
      "model-chosen text arrives byte for byte",
    );
  } finally {
    await receiver.close();
  }
});

test("a body signed with another secret is refused by the receiver (the check can fail)", async () => {
  const receiver = await startNotifyReceiver("another-secret-0123456789");
  try {
    const outcome = await deliver(
      webhook(`${receiver.url}/hook`),
      createNotifyEvent({ event: "done", subject: { kind: "run", id: "r1" }, text: "done" }),
      { signal: new AbortController().signal, delaysMs: [] },
    );
    assert.equal(outcome.ok, false);
    assert.equal(receiver.requests[0]?.refused, "signature");
  } finally {
    await receiver.close();
  }
});

test("a receiver that never answers does not hold the notifier's close past its grace", async () => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    receiver.hang(true);
    const notifier = createNotifier({ targets: [webhook(`${receiver.url}/hook`)], coalesceMs: 0 });
    notifier.notify(createNotifyEvent({ event: "failed", subject: { kind: "run", id: "r2" }, text: "failed" }));
    const t0 = Date.now();
    const outcomes = await notifier.close(300);
    const waited = Date.now() - t0;
    assert.ok(waited < 2_000, `close waited ${waited} ms`);
    assert.equal(outcomes.length, 1);
    assert.equal(outcomes[0]?.ok, false);
  } finally {
    await receiver.close();
  }
});

test("a burst is coalesced: one message at once, the rest folded into one more, each event accounted for", async () => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    const notifier = createNotifier({ targets: [webhook(`${receiver.url}/hook`)], coalesceMs: 400 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const e = createNotifyEvent({ event: "waiting", subject: { kind: "job", id: `j${i}` }, text: `job ${i} waits` });
      ids.push(e.id);
      notifier.notify(e);
    }
    await new Promise((r) => setTimeout(r, 700));
    await notifier.close(1_000);
    assert.equal(receiver.requests.length, 2, "one message now, one folded message after the window");
    const bodies = [...receiver.accepted.values()] as Array<{
      id: string;
      text: string;
      more?: { count: number; ids: string[] };
    }>;
    assert.equal(bodies[0]?.id, ids[0]);
    assert.equal(bodies[1]?.more?.count, 2);
    assert.deepEqual(bodies[1]?.more?.ids, ids.slice(1, 3));
    assert.match(bodies[1]?.text ?? "", /2 more waiting/);
  } finally {
    await receiver.close();
  }
});

test("a notifier with an HTTP target loads the HTTP client when it is made (a data: URL, nothing sent), one with only programs does not", async () => {
  const calls: string[] = [];
  const spy = (async (input: string | URL | Request) => {
    calls.push(String(input));
    return new Response("");
  }) as typeof fetch;
  const program: NotifyTarget = { name: "sound", type: "command", command: ["true"], events: ["done"] };
  const quiet = createNotifier({ targets: [program], fetch: spy });
  assert.deepEqual(calls, [], "no HTTP target, no warm-up");
  await quiet.close();
  const notifier = createNotifier({ targets: [webhook("http://127.0.0.1:9/hook"), program], fetch: spy });
  assert.deepEqual(calls, ["data:,"], "warmed at creation, before any event, without a request to the target");
  await notifier.close();
  assert.deepEqual(calls, ["data:,"]);
});

test("a target gets only the events it chose", async () => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    const notifier = createNotifier({ targets: [webhook(`${receiver.url}/hook`, ["failed"])], coalesceMs: 0 });
    notifier.notify(createNotifyEvent({ event: "done", subject: { kind: "run", id: "r" }, text: "done" }));
    notifier.notify(createNotifyEvent({ event: "failed", subject: { kind: "run", id: "r" }, text: "failed" }));
    await notifier.close(1_000);
    assert.deepEqual(
      [...receiver.accepted.values()].map((e) => (e as { event: string }).event),
      ["failed"],
    );
  } finally {
    await receiver.close();
  }
});

test("ntfy and slack targets get their services' shapes, with the approval's links as actions", async () => {
  const receiver = await startNotifyReceiver(SECRET);
  try {
    const config = parseNotifyConfig({
      targets: {
        phone: { type: "ntfy", url: `${receiver.url}/topic` },
        chat: { type: "slack", url: `${receiver.url}/slack` },
      },
    });
    const notifier = createNotifier({ targets: chooseTargets(config, ["phone", "chat"]), coalesceMs: 0 });
    notifier.notify(
      createNotifyEvent({
        event: "waiting",
        subject: { kind: "seat", name: "w1" },
        text: "approval waiting\r\nInjected: header",
        approval: {
          id: "ap_2",
          category: "execute",
          command: "rm -rf build",
          digest: "cd".repeat(32),
          approve_url: "http://127.0.0.1:1/a/x",
          deny_url: "http://127.0.0.1:1/d/x",
        },
      }),
    );
    await notifier.close(2_000);
    const ntfy = receiver.requests.find((r) => r.path === "/topic");
    assert.ok(ntfy);
    assert.equal(ntfy.headers.title, "grok-seat: seat w1 waiting");
    assert.equal(ntfy.headers.priority, "high");
    assert.equal(ntfy.headers.actions, "view, Approve, http://127.0.0.1:1/a/x; view, Deny, http://127.0.0.1:1/d/x");
    assert.equal(ntfy.headers.injected, undefined, "text travels in the body, never as a header");
    assert.match(ntfy.body, /rm -rf build/);
    const slack = JSON.parse(receiver.requests.find((r) => r.path === "/slack")?.body ?? "{}") as {
      text: string;
      blocks: Array<{ type: string; elements?: Array<{ url: string }> }>;
    };
    assert.match(slack.text, /rm -rf build/);
    assert.deepEqual(
      slack.blocks.find((b) => b.type === "actions")?.elements?.map((e) => e.url),
      ["http://127.0.0.1:1/a/x", "http://127.0.0.1:1/d/x"],
    );
  } finally {
    await receiver.close();
  }
});

test("a command target gets the event as JSON on stdin, with no shell", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-notify-"));
  try {
    const out = join(dir, "event.json");
    const config = parseNotifyConfig({
      targets: {
        local: {
          type: "command",
          command: [
            process.execPath,
            "-e",
            "require('fs').writeFileSync(process.argv[1], require('fs').readFileSync(0))",
            out,
          ],
        },
      },
    });
    const notifier = createNotifier({ targets: chooseTargets(config, ["local"]), coalesceMs: 0 });
    notifier.notify(
      createNotifyEvent({ event: "done", subject: { kind: "run", id: "r3" }, text: "done; $(touch PWNED)" }),
    );
    const [outcome] = await notifier.close(5_000);
    assert.equal(outcome?.ok, true, outcome?.detail);
    const got = JSON.parse(readFileSync(out, "utf8")) as { text: string; event: string };
    assert.equal(got.event, "done");
    assert.equal(got.text, "done; $(touch PWNED)");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the terminal sequence cannot be ended or extended by model-chosen text", () => {
  const seq = terminalSequence(
    createNotifyEvent({
      event: "waiting",
      subject: { kind: "seat", name: "w1" },
      text: "x\x07\x1b]52;c;ZXZpbA==\x07y",
    }),
  );
  const inner = seq.slice(1, -1);
  assert.equal((seq.match(/\x07/g) ?? []).length, 3, "BEL, and one terminator for each of OSC 9 and OSC 777");
  assert.equal((inner.match(/\x1b/g) ?? []).length, 2, "only our two OSC introducers");
  assert.doesNotMatch(seq, /\x1b\]52;/);
});

test("a known secret value in an event's text is masked before any target sees it", () => {
  const canary = "canary-secret-value-7f3a9c2e";
  registerSecrets({ XAI_API_KEY: canary });
  const event = createNotifyEvent({
    event: "failed",
    subject: { kind: "run", id: "r4" },
    text: `stderr: key ${canary} refused`,
  });
  assert.ok(!JSON.stringify(event).includes(canary));
  assert.equal(event.text, redactText(`stderr: key ${canary} refused`));
});

test("a malformed notify section is NOTIFY_CONFIG_INVALID naming the target; an unknown --notify name is NOTIFY_TARGET_UNKNOWN", () => {
  const cases: unknown[] = [
    { targets: { a: { type: "pager", url: "http://x" } } },
    { targets: { a: { type: "webhook", url: "http://127.0.0.1/", secret: "short" } } },
    { targets: { a: { type: "webhook", url: "file:///etc/passwd", secret: SECRET } } },
    { targets: { a: { type: "ntfy", url: "http://127.0.0.1/t", events: ["done", "nap"] } } },
    { targets: { a: { type: "command", command: "notify-send hi" } } },
    { targets: { a: { type: "slack", url: "http://127.0.0.1/s", extra: 1 } } },
    { targets: {}, default: ["nobody"] },
    [],
  ];
  for (const raw of cases) {
    assert.throws(
      () => parseNotifyConfig(raw),
      (e: unknown) => isSeatError(e) && e.code === "NOTIFY_CONFIG_INVALID",
      JSON.stringify(raw),
    );
  }
  const config = parseNotifyConfig({ targets: { a: { type: "ntfy", url: "http://127.0.0.1/t" } }, default: ["a"] });
  assert.deepEqual(
    chooseTargets(config, undefined).map((t) => t.name),
    ["a"],
  );
  assert.deepEqual(chooseTargets(config, ["none"]), []);
  assert.throws(
    () => chooseTargets(config, ["b"]),
    (e: unknown) => isSeatError(e) && e.code === "NOTIFY_TARGET_UNKNOWN",
  );
});

test("a webhook secret given by secretEnv is read from the environment and masked in every output", () => {
  const value = "env-secret-canary-0123456789";
  const config = parseNotifyConfig(
    { targets: { h: { type: "webhook", url: "http://127.0.0.1/hook", secretEnv: "MY_HOOK_SECRET" } } },
    { MY_HOOK_SECRET: value },
  );
  assert.equal((config.targets.h as { secret: string }).secret, value);
  assert.ok(!redactText(`the secret is ${value}`).includes(value));
});

test("a command target that is abandoned takes the programs it started with it (the whole process group)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-notify-group-"));
  const pidFile = join(dir, "grandchild.pid");
  try {
    // The program starts a child of its own and waits: killing only the program would leave the child running.
    const target = parseNotifyConfig({
      targets: { cmd: { type: "command", command: ["/bin/sh", "-c", `sleep 60 & echo $! > ${pidFile}; wait`] } },
    }).targets.cmd as NotifyTarget;
    const stop = new AbortController();
    const delivery = deliver(
      target,
      createNotifyEvent({ event: "done", subject: { kind: "run", id: "r1" }, text: "done" }),
      { signal: stop.signal, delaysMs: [] },
    );
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      try {
        if (readFileSync(pidFile, "utf8").trim() !== "") break;
      } catch {
        // not written yet
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    const grandchild = Number(readFileSync(pidFile, "utf8").trim());
    assert.ok(grandchild > 0);
    stop.abort();
    const outcome = await delivery;
    assert.equal(outcome.ok, false);
    // A killed child whose new parent has not reaped it yet is a zombie: gone, though kill(pid, 0) still finds it.
    const gone = Date.now() + 2_000;
    while (alive(grandchild) && Date.now() < gone) await new Promise((r) => setTimeout(r, 20));
    const outlived = alive(grandchild);
    if (outlived) {
      try {
        process.kill(grandchild, "SIGKILL");
      } catch {
        // it ended between the check and the kill
      }
    }
    assert.equal(outlived, false, `the program's child ${grandchild} outlived the abandoned delivery`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a webhook URL with a user name or password is NOTIFY_CONFIG_INVALID, and the password is never shown", () => {
  for (const url of [
    "https://alice:hunter2-canary-pw@hooks.example.com/x",
    "https://hunter2-canary-pw@hooks.example.com/x",
  ]) {
    for (const type of ["webhook", "ntfy", "slack"]) {
      const raw = { targets: { hook: { type, url, ...(type === "webhook" ? { secret: SECRET } : {}) } } };
      assert.throws(
        () => parseNotifyConfig(raw),
        (error: unknown) => {
          assert.ok(isSeatError(error));
          assert.equal(error.code, "NOTIFY_CONFIG_INVALID");
          assert.doesNotMatch(JSON.stringify({ message: error.message, context: error.context }), /hunter2-canary-pw/);
          return true;
        },
      );
    }
  }
});

test("a slack message shows a long approval command whole, in sections Slack accepts (at most 3,000 characters each)", () => {
  const command = `echo ${"ab".repeat(3_500)} && echo end-of-command`;
  const event = createNotifyEvent({
    event: "waiting",
    subject: { kind: "run", id: "r1" },
    text: "waits for your approval",
    approval: { id: "ap_1", category: "execute", command, digest: "cd".repeat(32) },
  });
  const slack = parseNotifyConfig({ targets: { chat: { type: "slack", url: "http://127.0.0.1:1/slack" } } }).targets
    .chat as Exclude<NotifyTarget, { type: "command" }>;
  const body = JSON.parse(buildRequest(slack, event).body) as {
    text: string;
    blocks: Array<{ type: string; text?: { text: string } }>;
  };
  const sections = body.blocks.filter((b) => b.type === "section").map((b) => b.text!.text);
  assert.ok(sections.length >= 3);
  for (const text of sections) assert.ok(Array.from(text).length <= 3_000, `a section of ${text.length} characters`);
  assert.equal(sections.join(""), body.text, "the sections together are the whole text");
  assert.ok(body.text.includes(command));

  // Past what one message holds (50 blocks), the cut is said, never silent.
  const huge = createNotifyEvent({ event: "waiting", subject: { kind: "run", id: "r1" }, text: "x".repeat(200_000) });
  const cut = JSON.parse(buildRequest(slack, huge).body) as {
    blocks: Array<{ type: string; text?: { text: string } }>;
  };
  const last = cut.blocks.filter((b) => b.type === "section").at(-1)!.text!.text;
  assert.ok(cut.blocks.length <= 50);
  assert.match(last, /\d+ more characters do not fit in one Slack message; the board shows all of it$/);
});

test("a project .grok-seat.json may not define notification targets: seat exits 2 naming the key, and nothing runs", async () => {
  const { runSeat } = await import("../../support/cli.js");
  const dir = mkdtempSync(join(tmpdir(), "gs-notify-project-"));
  try {
    const marker = join(dir, "ran");
    writeFileSync(
      join(dir, ".grok-seat.json"),
      JSON.stringify({ notify: { targets: { x: { type: "command", command: ["touch", marker] } }, default: ["x"] } }),
    );
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, XDG_CONFIG_HOME: join(dir, "xdg") };
    const listed = await runSeat(["notify", "list"], { env, cwd: dir });
    assert.equal(listed.code, 2, listed.stderr);
    assert.match(listed.stderr, /notify/);
    assert.match(listed.stderr, /user config file/);
    const run = await runSeat(["run", "hello"], { env, cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(existsSync(marker), false, "the project's program never ran");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
