import { test } from "node:test";
import assert from "node:assert/strict";
import { namedSessionApprovals } from "./open.js";

test("a named session's held approvals are owned by named-session + its name, whoever opens it; a fleet job's owner is kept", () => {
  assert.deepEqual(namedSessionApprovals(true, "s1"), { owner: { kind: "named-session", name: "s1" } });
  assert.deepEqual(namedSessionApprovals({ timeoutMs: 5_000, owner: { kind: "session" } }, "s1"), {
    timeoutMs: 5_000,
    owner: { kind: "named-session", name: "s1" },
  });
  assert.deepEqual(namedSessionApprovals({ owner: { kind: "named-session", name: "other" } }, "s1"), {
    owner: { kind: "named-session", name: "s1" },
  });
  const job = { owner: { kind: "job" as const, id: "j1" } };
  assert.equal(namedSessionApprovals(job, "s1"), job);
  assert.equal(namedSessionApprovals(undefined, "s1"), undefined);
  assert.equal(namedSessionApprovals(false, "s1"), false);
});
