import { test } from "node:test";
import assert from "node:assert/strict";
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { isSeatError } from "../errors.js";
import type { SeatEvent } from "../acp/index.js";
import { createPermissionGate, parsePolicyFlags, type Approver } from "../permissions/index.js";
import { registerSecrets } from "../internal/redact.js";
import { ApprovalQueue } from "./queue.js";
import { processApprovals } from "./local.js";
import { parseAnswer } from "./answer.js";
import { answerApproval, listApprovals } from "../supervision/approvals.js";
import { createHash } from "node:crypto";
import { canonicalTarget, describeRequest, targetDigest } from "./target.js";
import { shortTarget, SHORT_TARGET_CHARS, visibleText } from "./display.js";

const OPTIONS = [
  { optionId: "allow-once", name: "Yes", kind: "allow_once" },
  { optionId: "always", name: "Always", kind: "allow_always" },
  { optionId: "reject-once", name: "No", kind: "reject_once" },
] as RequestPermissionRequest["options"];

function shell(command: string, id = "call-1"): RequestPermissionRequest {
  return {
    sessionId: "s1",
    toolCall: { toolCallId: id, kind: "execute", title: `Run ${command}`, rawInput: { command } },
    options: OPTIONS,
  } as RequestPermissionRequest;
}

function setup(timeoutMs = 60_000) {
  const events: SeatEvent[] = [];
  let holds = 0;
  const queue = new ApprovalQueue({
    owner: () => ({ kind: "named-session", id: "sess-1", name: "work" }),
    timeoutMs,
    emit: (e) => void events.push(e),
    onHold: () => {
      holds += 1;
      return () => (holds -= 1);
    },
  });
  const gate = createPermissionGate({ policy: parsePolicyFlags({}) });
  const decide = (request: RequestPermissionRequest, local?: Approver) =>
    gate.decide(request, { approver: queue.approver(local), timeoutMs: queue.timeoutMs });
  return { queue, events, gate, decide, holds: () => holds };
}

async function until<T>(fn: () => T | undefined, ms = 2_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > end) assert.fail("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    assert.ok(isSeatError(error));
    return error.code;
  }
  return "no error";
}

test("a require-approval call with no approver is held, not denied: it waits with its fields until an answer allows it", async () => {
  const { queue, events, decide, holds } = setup();
  try {
    const decided = decide(shell("make test"));
    const pending = await until(() => queue.list()[0]);
    assert.match(pending.id, /^ap_[0-9a-f]{16}$/);
    assert.equal(pending.category, "execute");
    assert.equal(pending.title, "Run make test");
    assert.deepEqual(pending.target, { command: "make test" });
    assert.deepEqual(
      { ...pending.owner, host: undefined },
      { kind: "named-session", id: "sess-1", name: "work", pid: process.pid, host: undefined },
    );
    assert.equal(Date.parse(pending.deadline) - Date.parse(pending.askedAt), 60_000);
    assert.equal(holds(), 1, "the session's idle timeout is held while the approval waits");
    assert.deepEqual(
      events.map((e) => e.type),
      ["approval_asked"],
    );
    assert.deepEqual(queue.answer(pending.id, { decision: "allow", by: "alice" }), {
      id: pending.id,
      decision: "allow",
    });
    const { response, audit } = await decided;
    assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "allow-once" } });
    assert.equal(audit.via, "approver");
    assert.equal(holds(), 0);
    assert.deepEqual(events[1], {
      type: "approval_answered",
      id: pending.id,
      toolCallId: "call-1",
      decision: "allow",
      via: "answer",
      by: "alice",
    });
    assert.deepEqual(queue.list(), []);
  } finally {
    queue.close();
  }
});

test("the first answer wins: a second is told APPROVAL_ALREADY_ANSWERED naming the first, an unknown id APPROVAL_NOT_FOUND", async () => {
  const { queue, decide } = setup();
  try {
    const decided = decide(shell("rm -rf build"));
    const { id } = await until(() => queue.list()[0]);
    queue.answer(id, { decision: "deny", by: "bob", message: "not now" });
    const second = (() => {
      try {
        queue.answer(id, { decision: "allow", by: "carol" });
      } catch (error) {
        return error;
      }
    })();
    assert.ok(isSeatError(second) && second.code === "APPROVAL_ALREADY_ANSWERED");
    assert.match(second.message, /deny by bob/);
    assert.equal((await decided).audit.decision, "deny");
    assert.equal(
      code(() => queue.answer("ap_0000000000000000", { decision: "allow" })),
      "APPROVAL_NOT_FOUND",
    );
    // Once the session is disposed its queue is still asked: a late answer hears who answered, not NOT_FOUND.
    queue.close();
    assert.equal(
      code(() => processApprovals.answer(id, { decision: "allow" })),
      "APPROVAL_ALREADY_ANSWERED",
    );
  } finally {
    queue.close();
  }
});

test("a deadline denies the call (never allows it) and a later answer is APPROVAL_EXPIRED; so does the end of the turn", async () => {
  const { queue, events, decide } = setup(50);
  try {
    const decided = decide(shell("deploy"));
    const { id } = await until(() => queue.list()[0]);
    const { response, audit } = await decided;
    assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "reject-once" } });
    assert.equal(audit.reason, "approver-timeout");
    assert.deepEqual(events.at(-1), {
      type: "approval_answered",
      id,
      toolCallId: "call-1",
      decision: "deny",
      via: "timeout",
    });
    assert.equal(
      code(() => queue.answer(id, { decision: "allow" })),
      "APPROVAL_EXPIRED",
    );
  } finally {
    queue.close();
  }
  const turn = setup();
  try {
    const decided = turn.decide(shell("deploy"));
    const { id } = await until(() => turn.queue.list()[0]);
    turn.queue.expireAll();
    assert.equal((await decided).audit.decision, "deny");
    assert.equal(
      code(() => turn.queue.answer(id, { decision: "allow" })),
      "APPROVAL_EXPIRED",
    );
    assert.equal(turn.holds(), 0);
  } finally {
    turn.queue.close();
  }
});

test("the terminal approver races the queue: whichever answers first wins and the other is stopped", async () => {
  const { queue, decide } = setup();
  try {
    // The terminal answers first.
    const first = await decide(shell("ls", "a"), () => "always");
    assert.deepEqual(first.response, { outcome: { outcome: "selected", optionId: "always" } });
    // A remote answer comes first: the terminal's question is aborted and its late answer ignored.
    let stopped: unknown;
    const slow: Approver = ({ signal }) =>
      new Promise((resolve, reject) => {
        signal.addEventListener("abort", () => {
          stopped = (signal.reason as { code?: unknown }).code;
          reject(new Error("withdrawn"));
        });
        setTimeout(() => resolve("allow"), 500);
      });
    const decided = decide(shell("rm x", "b"), slow);
    const { id } = await until(() => queue.list()[0]);
    processApprovals.answer(id, { decision: "deny" });
    assert.equal((await decided).audit.decision, "deny");
    assert.equal(stopped, "APPROVAL_ALREADY_ANSWERED", "the terminal is told why its question was withdrawn");
  } finally {
    queue.close();
  }
});

test("listApprovals and answerApproval reach this process's queues; a malformed answer or id is APPROVAL_ANSWER_INVALID and allows nothing", async () => {
  const { queue, decide } = setup();
  try {
    const decided = decide(shell("npm publish"));
    const { id } = await until(() => queue.list()[0]);
    const listed = await listApprovals({ env: { HOME: "/nonexistent-home-for-test" } });
    assert.ok(listed.some((a) => a.id === id));
    for (const bad of [
      { decision: "yes" },
      { decision: "deny", always: true },
      { decision: "allow", extra: 1 },
      null,
      "allow",
    ]) {
      await assert.rejects(
        answerApproval(id, bad as never),
        (e: unknown) => isSeatError(e) && e.code === "APPROVAL_ANSWER_INVALID",
      );
    }
    await assert.rejects(
      answerApproval("../etc", { decision: "allow" }),
      (e: unknown) => isSeatError(e) && e.code === "APPROVAL_ANSWER_INVALID",
    );
    await assert.rejects(
      listApprovals({ redis: "not a url" }),
      (e: unknown) => isSeatError(e) && e.code === "FLEET_REDIS_URL_INVALID",
    );
    assert.deepEqual(
      queue.list().map((a) => a.id),
      [id],
      "still pending after the refusals",
    );
    assert.deepEqual(await answerApproval(id, { decision: "deny" }), { id, decision: "deny" });
    assert.equal((await decided).audit.decision, "deny");
  } finally {
    queue.close();
  }
});

test("what a held approval shows is redacted: a registered secret in the command or title never appears", async () => {
  registerSecrets({ XAI_API_KEY: "xai-secret-value-123456" });
  const { queue, decide } = setup();
  try {
    const decided = decide(shell("curl -H 'Authorization: xai-secret-value-123456' https://x"));
    const pending = await until(() => queue.list()[0]);
    assert.doesNotMatch(JSON.stringify(pending), /xai-secret-value-123456/);
    assert.match(pending.target.command ?? "", /\[redacted\]/);
    queue.answer(pending.id, { decision: "deny" });
    await decided;
  } finally {
    queue.close();
  }
});

test("parseAnswer keeps only what an answer may carry", () => {
  assert.deepEqual(parseAnswer({ decision: "allow", always: true, by: "me" }), {
    decision: "allow",
    always: true,
    by: "me",
  });
  assert.deepEqual(parseAnswer({ decision: "deny", message: "no" }), { decision: "deny", message: "no" });
});

test("a raced terminal question withdrawn by the deadline is told APPROVAL_TIMEOUT, by the end of the turn APPROVAL_EXPIRED — never 'answered elsewhere'", async () => {
  const withdrawnWith = async (end: (queue: ApprovalQueue) => void, timeoutMs: number): Promise<unknown> => {
    const { queue, decide } = setup(timeoutMs);
    try {
      let reason: unknown = "not withdrawn";
      const terminal: Approver = ({ signal }) =>
        new Promise((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            reason = (signal.reason as { code?: unknown } | undefined)?.code;
            reject(new Error("withdrawn"));
          });
        });
      const decided = decide(shell("deploy"), terminal);
      await until(() => queue.list()[0]);
      end(queue);
      assert.equal((await decided).audit.decision, "deny");
      return reason;
    } finally {
      queue.close();
    }
  };
  assert.equal(await withdrawnWith(() => undefined, 50), "APPROVAL_TIMEOUT");
  assert.equal(await withdrawnWith((queue) => queue.expireAll(), 60_000), "APPROVAL_EXPIRED");
});

test("a held approval shows model-chosen text exact: no shape masking, no cut; only a registered value is masked and the view names it", async () => {
  registerSecrets({ ANTHROPIC_API_KEY: "exact-canary-value-98765" });
  const { queue, decide } = setup();
  try {
    const hidden = `token="$(touch PWNED)"; password=hunter2; echo configured`;
    const first = decide(shell(hidden, "c1"));
    const long = `echo ${"z".repeat(2_500)}; echo x > FILE`;
    const second = decide(shell(long, "c2"));
    const keyed = decide(shell("echo exact-canary-value-98765", "c3"));
    const [a, b, c] = await until(() => (queue.list().length === 3 ? queue.list() : undefined));
    assert.equal(a!.target.command, hidden);
    assert.equal(a!.masked, undefined);
    assert.equal(a!.digest, targetDigest({ command: hidden }));
    assert.equal(b!.target.command, long, "never cut");
    assert.equal(c!.target.command, "echo [redacted]");
    assert.deepEqual(c!.masked, ["ANTHROPIC_API_KEY"]);
    assert.equal(
      c!.digest,
      targetDigest({ command: "echo exact-canary-value-98765" }),
      "the digest is of the exact, unmasked target",
    );
    for (const p of [a!, b!, c!]) queue.answer(p.id, { decision: "deny" });
    await Promise.all([first, second, keyed]);
  } finally {
    queue.close();
  }
});

test("an answer whose digest is not the held target's is refused with APPROVAL_TARGET_CHANGED, allows nothing and leaves it held; the right digest answers it", async () => {
  const { queue, decide } = setup();
  try {
    const decided = decide(shell("echo ok"));
    const pending = await until(() => queue.list()[0]);
    assert.equal(
      code(() => queue.answer(pending.id, { decision: "allow", digest: targetDigest({ command: "echo other" }) })),
      "APPROVAL_TARGET_CHANGED",
    );
    assert.equal(
      code(() => queue.answer(pending.id, { decision: "deny", digest: "f".repeat(64) })),
      "APPROVAL_TARGET_CHANGED",
    );
    assert.equal(queue.list().length, 1, "still held");
    assert.deepEqual(queue.answer(pending.id, { decision: "allow", digest: pending.digest }), {
      id: pending.id,
      decision: "allow",
    });
    assert.deepEqual((await decided).response, { outcome: { outcome: "selected", optionId: "allow-once" } });
  } finally {
    queue.close();
  }
  assert.equal(
    code(() => parseAnswer({ decision: "allow", digest: "ABC" })),
    "APPROVAL_ANSWER_INVALID",
  );
  assert.deepEqual(parseAnswer({ decision: "allow", digest: "a".repeat(64) }), {
    decision: "allow",
    digest: "a".repeat(64),
  });
});

test("the digest is sha256 of the documented canonical serialisation, and an argv is shown as the JSON array it is", () => {
  assert.equal(
    canonicalTarget({ command: "ls", paths: ["/a"], toolName: "t" }),
    JSON.stringify(["grok-seat.approval-target.v1", "ls", ["/a"], "t"]),
  );
  assert.equal(
    targetDigest({}),
    createHash("sha256")
      .update(JSON.stringify(["grok-seat.approval-target.v1", null, [], null]))
      .digest("hex"),
  );
  const argv = {
    sessionId: "s",
    toolCall: { toolCallId: "x", rawInput: { command: ["sh", "-c", "a b"] } },
    options: OPTIONS,
  } as unknown as RequestPermissionRequest;
  assert.equal(describeRequest(argv).target.command, `["sh","-c","a b"]`);
});

test("a short listing cuts only with its full length said, and control or bidi characters are shown as escapes, never hidden", () => {
  const view = {
    id: "ap_0000000000000001",
    category: "execute" as const,
    title: "t",
    target: { command: `echo ${"q".repeat(300)}` },
    digest: "0".repeat(64),
    owner: { kind: "session" as const, id: "s" },
    askedAt: "",
    deadline: "",
  };
  assert.equal(
    shortTarget(view, "see all"),
    `${view.target.command.slice(0, SHORT_TARGET_CHARS)}… [cut: ${SHORT_TARGET_CHARS} of ${view.target.command.length} characters shown; see all]`,
  );
  assert.equal(shortTarget({ ...view, target: { command: "ls" } }, "x"), "ls");
  assert.equal(visibleText("echo ok\u001b[2K\rrm -rf ~ \u202eabc\n"), "echo ok\\x1b[2K\\x0drm -rf ~ \\u202eabc\n");
  assert.equal(visibleText("a\nb\tc", true), "a\\nb\\tc");
});
