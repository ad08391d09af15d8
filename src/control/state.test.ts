import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { controlStateProblem, describeControlState, parseControlState, type ControlState } from "./state.js";
import { requestControl, requestState, startControlServer } from "./socket.js";

const waiting = {
  id: "sess-1",
  attention: () => ({ state: "waiting" as const, since: "2026-01-01T00:00:00.000Z", waitingOn: "approval" as const }),
};

test("describeControlState gives every door the same typed answer: kind, id, name, agent, cwd, pid and the attention snapshot", () => {
  const run = describeControlState(waiting, { kind: "run", agent: "grok", cwd: "/w" })();
  assert.deepEqual(run, {
    kind: "run",
    id: "sess-1",
    agent: "grok",
    cwd: "/w",
    pid: process.pid,
    state: "waiting",
    since: "2026-01-01T00:00:00.000Z",
    waitingOn: "approval",
  });
  assert.equal(controlStateProblem(run), null);
  const named = describeControlState(
    { id: undefined, attention: () => ({ state: "starting", since: "t" }) },
    { kind: "named-session", name: "s1", agent: "codex", cwd: "/w" },
  )();
  assert.equal(named.id, `pid-${process.pid}`, "before the agent names its session, the pid names it");
  assert.equal(named.name, "s1");
  assert.equal(controlStateProblem(named), null);
});

test("controlStateProblem refuses an answer without a kind (what a plain MCP turn sent), a named session without its name, and states outside the vocabulary", () => {
  const good: ControlState = { kind: "run", id: "x", agent: "grok", cwd: "/w", pid: 42, state: "working", since: "t" };
  assert.match(
    controlStateProblem({ state: "working", since: "t" }) ?? "",
    /kind/,
    "the bare attention snapshot is not a state answer",
  );
  assert.match(controlStateProblem({ ...good, kind: "session" }) ?? "", /kind/);
  assert.match(controlStateProblem({ ...good, kind: "named-session" }) ?? "", /name/);
  assert.match(controlStateProblem({ ...good, name: "n" }) ?? "", /name/);
  assert.match(controlStateProblem({ ...good, state: "busy" }) ?? "", /state/);
  assert.match(controlStateProblem({ ...good, pid: "42" }) ?? "", /pid/);
  assert.match(controlStateProblem({ ...good, waitingOn: "lunch" }) ?? "", /waitingOn/);
  assert.match(controlStateProblem(null) ?? "", /object/);
  assert.equal(controlStateProblem({ ...good, ok: true }), null, "the socket's own ok is allowed");
  assert.deepEqual(parseControlState({ ...good, ok: true }), { ...good, ok: true });
  assert.equal(parseControlState({ ...good, cwd: "" }), null);
});

test("both ends check: a holder never sends a state outside the schema, and requestState believes only one that fits", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-ctl-state-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const typed = await startControlServer(dir, {
    cancel: async () => ({}),
    state: describeControlState(waiting, { kind: "run", agent: "grok", cwd: dir }),
  });
  t.after(() => typed.close());
  const told = await requestState(typed.path);
  assert.equal(told?.kind, "run");
  assert.equal(told?.waitingOn, "approval");
  // A holder whose state handler returns the untyped snapshot (the old shape) is refused at its own end.
  const untyped = await startControlServer(dir, {
    cancel: async () => ({}),
    state: (() => waiting.attention()) as unknown as () => ControlState,
  });
  t.after(() => untyped.close());
  const raw = await requestControl(untyped.path, { op: "state" }, 2_000);
  assert.equal(raw?.ok, false);
  assert.match(String(raw?.error), /control schema: kind/);
  assert.equal(await requestState(untyped.path), null);
});
