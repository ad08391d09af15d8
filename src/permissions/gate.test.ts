import { test } from "node:test";
import assert from "node:assert/strict";
import type { PermissionOption, RequestPermissionRequest } from "@agentclientprotocol/sdk";
import { createPermissionGate } from "./gate.js";
import { DEFAULT_POLICY, createPolicy } from "./policy.js";

const grokOptions: PermissionOption[] = [
  { optionId: "allow-edits-session", name: "Yes, allow all edits during this session", kind: "allow_always" },
  { optionId: "allow-once", name: "Yes", kind: "allow_once" },
  { optionId: "reject-once", name: "No, and tell Grok what to do differently", kind: "reject_once" },
];

function request(
  kind: string,
  options: PermissionOption[] = grokOptions,
  toolCallId = "call_1",
): RequestPermissionRequest {
  return { sessionId: "s", toolCall: { toolCallId, kind, title: "t" }, options } as RequestPermissionRequest;
}

test("allows a read by default with allow_once and records the default as the reason", async () => {
  const gate = createPermissionGate({ policy: DEFAULT_POLICY });
  const { response, audit } = await gate.decide(request("read"));
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "allow-once" } });
  assert.deepEqual(audit, {
    toolCallId: "call_1",
    category: "read",
    decision: "allow",
    via: "default",
    optionId: "allow-once",
  });
});

test("denies require-approval without an approver using reject_once", async () => {
  const gate = createPermissionGate({ policy: DEFAULT_POLICY });
  const { response, audit } = await gate.decide(request("edit"));
  assert.deepEqual(response, { outcome: { outcome: "selected", optionId: "reject-once" } });
  assert.deepEqual(audit, {
    toolCallId: "call_1",
    category: "edit",
    decision: "deny",
    via: "default",
    optionId: "reject-once",
    reason: "no-approver",
  });
});

test("asks the approver and picks allow_once for a single approval, allow_always when it says always", async () => {
  const answers = ["allow", "always"] as const;
  let asked = 0;
  const gate = createPermissionGate({
    policy: DEFAULT_POLICY,
    approver: ({ category }) => {
      assert.equal(category, "execute");
      return answers[asked++]!;
    },
  });
  assert.equal((await gate.decide(request("execute"))).audit.optionId, "allow-once");
  const always = await gate.decide(request("execute"));
  assert.deepEqual(always.response, { outcome: { outcome: "selected", optionId: "allow-edits-session" } });
  assert.equal(always.audit.via, "approver");
});

test("denies when the approver throws, answers nonsense or times out", async () => {
  const throwing = createPermissionGate({
    policy: DEFAULT_POLICY,
    approver: () => {
      throw new Error("ui crashed");
    },
  });
  assert.deepEqual((await throwing.decide(request("edit"))).audit.reason, "approver-failed");
  const nonsense = createPermissionGate({ policy: DEFAULT_POLICY, approver: () => "sure" as never });
  assert.equal((await nonsense.decide(request("edit"))).audit.decision, "deny");
  let sawAbort = false;
  const silent = createPermissionGate({
    policy: DEFAULT_POLICY,
    approverTimeoutMs: 20,
    approver: ({ signal }) => new Promise(() => signal.addEventListener("abort", () => (sawAbort = true))),
  });
  const timedOut = await silent.decide(request("edit"));
  assert.equal(timedOut.audit.decision, "deny");
  assert.equal(timedOut.audit.reason, "approver-timeout");
  assert.equal(sawAbort, true);
});

test("blocks by policy even in unrestricted mode, and never asks the approver for it", async () => {
  const gate = createPermissionGate({
    policy: createPolicy({ block: ["network"], unrestricted: true }),
    approver: () => assert.fail("a blocked category must not be asked about"),
  });
  const blocked = await gate.decide(request("fetch"));
  assert.deepEqual(blocked.audit, {
    toolCallId: "call_1",
    category: "network",
    decision: "deny",
    via: "policy",
    optionId: "reject-once",
  });
  const allowed = await gate.decide(request("execute"));
  assert.deepEqual(allowed.audit, {
    toolCallId: "call_1",
    category: "execute",
    decision: "allow",
    via: "policy",
    optionId: "allow-once",
  });
});

test("answers cancelled when a deny finds no reject option, and never invents an option id", async () => {
  const onlyAllow: PermissionOption[] = [{ optionId: "yes-please", name: "Yes", kind: "allow_once" }];
  const gate = createPermissionGate({ policy: DEFAULT_POLICY });
  const { response, audit } = await gate.decide(request("edit", onlyAllow));
  assert.deepEqual(response, { outcome: { outcome: "cancelled" } });
  assert.equal(audit.optionId, undefined);
});

test("falls back to deny when an allow finds no allow option, and uses allow_always when it is the only allow", async () => {
  const rejectOnly: PermissionOption[] = [{ optionId: "nope", name: "No", kind: "reject_always" }];
  const gate = createPermissionGate({ policy: createPolicy({ allow: ["edit"] }) });
  const denied = await gate.decide(request("edit", rejectOnly));
  assert.deepEqual(denied.response, { outcome: { outcome: "selected", optionId: "nope" } });
  assert.equal(denied.audit.reason, "no-allow-option");
  const alwaysOnly: PermissionOption[] = [{ optionId: "always-allow", name: "Always", kind: "allow_always" }];
  assert.equal((await gate.decide(request("edit", alwaysOnly))).audit.optionId, "always-allow");
});
