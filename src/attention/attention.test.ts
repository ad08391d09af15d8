import { test } from "node:test";
import assert from "node:assert/strict";
import { createStateTracker, jobAttentionState, seatAttentionState, stateAfterTurn, type StateEvent } from "./index.js";
import { diffListings, startsWaiting, waitingEnv } from "../listing/index.js";
import { approvalBelongsTo, type PendingApproval } from "../supervision/approvals-source.js";
import type { LiveItem } from "../listing/index.js";

const item = (id: string, state: LiveItem["state"], extra: Partial<LiveItem> = {}): LiveItem => ({
  kind: "named-session",
  id,
  name: id,
  agent: "grok",
  state,
  since: null,
  cwd: "/w",
  pendingApprovals: 0,
  ...extra,
});

test("a tracker reports its first state and each change once, with the previous state and what a wait is on", () => {
  const events: StateEvent[] = [];
  let clock = 0;
  const tracker = createStateTracker(
    (e) => events.push(e),
    "starting",
    () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++)),
  );
  tracker.set("idle");
  tracker.set("idle");
  tracker.set("working");
  tracker.set("waiting", { waitingOn: "approval" });
  tracker.set("waiting", { waitingOn: "approval" });
  tracker.set("waiting", { waitingOn: "question" });
  assert.deepEqual(
    events.map((e) => `${e.previous ?? "-"}>${e.state}${e.waitingOn ? `:${e.waitingOn}` : ""}`),
    ["->starting", "starting>idle", "idle>working", "working>waiting:approval", "waiting>waiting:question"],
  );
  assert.equal(tracker.snapshot().since, "2026-01-01T00:00:04.000Z");
});

test("a turn ends idle, cancelled when cancelled from outside, failed with its code", () => {
  assert.deepEqual(stateAfterTurn({ stopReason: "end_turn" }), { state: "idle", reason: "end_turn" });
  assert.deepEqual(stateAfterTurn({ stopReason: "cancelled" }), { state: "cancelled", reason: "cancelled" });
  assert.deepEqual(stateAfterTurn({ stopReason: "cancelled", diagnostic: { code: "ACP_IDLE_TIMEOUT" } }), {
    state: "failed",
    reason: "ACP_IDLE_TIMEOUT",
  });
  assert.deepEqual(stateAfterTurn({ diagnostic: { code: "ACP_PROMPT_FAILED" } }), {
    state: "failed",
    reason: "ACP_PROMPT_FAILED",
  });
});

test("a job's status and a seat's journal map onto the one vocabulary", () => {
  assert.deepEqual(
    ["waiting", "active", "dispatched", "completed", "failed", "cancelled", "uncertain", "weird"].map(
      jobAttentionState,
    ),
    ["starting", "starting", "working", "done", "failed", "cancelled", "uncertain", "uncertain"],
  );
  assert.equal(seatAttentionState("hiring", []), "starting");
  assert.equal(seatAttentionState("active", ["completed"]), "idle");
  assert.equal(seatAttentionState("active", ["completed", "dispatched"]), "working");
  assert.equal(seatAttentionState("active", ["uncertain", "dispatched"]), "uncertain");
  assert.equal(seatAttentionState("releasing", []), "done");
});

test("watching reports an item that starts waiting once per stretch of waiting, and items that appear or go", () => {
  const first = diffListings([], [item("a", "working"), item("b", "waiting", { waitingOn: "approval" })]);
  assert.deepEqual(
    first.map((c) => `${c.change}:${c.item.id}`),
    ["appeared:a", "appeared:b"],
  );
  assert.deepEqual(
    first.filter(startsWaiting).map((c) => c.item.id),
    ["b"],
  );
  const second = diffListings(
    [item("a", "working"), item("b", "waiting")],
    [item("a", "waiting"), item("b", "waiting")],
  );
  assert.deepEqual(
    second.filter(startsWaiting).map((c) => c.item.id),
    ["a"],
  );
  const third = diffListings([item("a", "waiting")], []);
  assert.deepEqual(
    third.map((c) => c.change),
    ["gone"],
  );
  assert.equal(third.filter(startsWaiting).length, 0);
});

test("the on-waiting environment describes the item, empty strings for what is unknown", () => {
  const env = waitingEnv(item("a", "waiting", { waitingOn: "approval", pid: 42, pendingApprovals: 2 }));
  assert.equal(env.SEAT_PS_ID, "a");
  assert.equal(env.SEAT_PS_WAITING_ON, "approval");
  assert.equal(env.SEAT_PS_PID, "42");
  assert.equal(env.SEAT_PS_HOST, "");
  assert.equal(env.SEAT_PS_PENDING_APPROVALS, "2");
});

test("an approval belongs to the item its owner names, by kind and id, name or pid", () => {
  const approval = (owner: PendingApproval["owner"]): PendingApproval => ({
    id: "x",
    category: "execute",
    title: "t",
    target: {},
    digest: "0".repeat(64),
    owner,
    askedAt: "",
    deadline: "",
  });
  assert.ok(approvalBelongsTo(approval({ kind: "named-session", id: "a" }), item("a", "waiting")));
  assert.ok(!approvalBelongsTo(approval({ kind: "job", id: "a" }), item("a", "waiting")));
  assert.ok(
    approvalBelongsTo(approval({ kind: "session", id: "run-1", pid: 7 }), { kind: "run", id: "other", pid: 7 }),
  );
});
