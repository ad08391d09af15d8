import { test } from "node:test";
import assert from "node:assert/strict";
import { InteractionWatch } from "./interactions.js";

const note = (sessionId: string, update: Record<string, unknown>) =>
  ["_x.ai/session_notification", { sessionId, update }] as const;

test("an interaction is open from pending_interaction to the matching interaction_resolved; a permission is waiting on an approval, anything else on a question", () => {
  let changes = 0;
  let clock = 0;
  const watch = new InteractionWatch(
    () => (changes += 1),
    () => new Date(Date.UTC(2026, 11, 1, 0, 0, clock)),
  );
  watch.bind("s1");
  assert.equal(watch.wait(), null);
  watch.observe(...note("s1", { sessionUpdate: "pending_interaction", tool_call_id: "call-1", kind: "permission" }));
  clock = 5;
  watch.observe(...note("s1", { sessionUpdate: "pending_interaction", tool_call_id: "call-2", kind: "question" }));
  // A repeat (the leader replays open requests) and another session's are not new.
  watch.observe(...note("s1", { sessionUpdate: "pending_interaction", tool_call_id: "call-1", kind: "permission" }));
  watch.observe(...note("other", { sessionUpdate: "pending_interaction", tool_call_id: "call-9", kind: "permission" }));
  watch.observe("_x.ai/queue/changed", {
    sessionId: "s1",
    update: { sessionUpdate: "pending_interaction", tool_call_id: "call-8" },
  });
  assert.equal(changes, 2);
  assert.deepEqual(watch.wait(), { waitingOn: "approval", since: "2026-12-01T00:00:00.000Z", toolCallId: "call-1" });
  watch.observe(...note("s1", { sessionUpdate: "interaction_resolved", tool_call_id: "call-1" }));
  assert.deepEqual(watch.wait(), { waitingOn: "question", since: "2026-12-01T00:00:05.000Z", toolCallId: "call-2" });
  watch.observe(...note("s1", { sessionUpdate: "interaction_resolved", tool_call_id: "call-2" }));
  assert.equal(watch.wait(), null);
  assert.equal(changes, 4);
  // Malformed updates change nothing.
  for (const bad of [
    null,
    "x",
    { update: null },
    { update: { sessionUpdate: "pending_interaction" } },
    { update: { sessionUpdate: "pending_interaction", tool_call_id: 7 } },
  ])
    watch.observe("_x.ai/session_notification", bad);
  assert.deepEqual(watch.list(), []);
});

test("notifications before the seat is bound are kept when they name its session and dropped when they name another; clear() forgets all", () => {
  const watch = new InteractionWatch();
  watch.observe(...note("s1", { sessionUpdate: "pending_interaction", tool_call_id: "a", kind: "permission" }));
  watch.observe(...note("s2", { sessionUpdate: "pending_interaction", tool_call_id: "b", kind: "permission" }));
  watch.bind("s1");
  assert.deepEqual(
    watch.list().map((i) => i.toolCallId),
    ["a"],
  );
  watch.clear();
  assert.equal(watch.wait(), null);
});
