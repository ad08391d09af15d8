// Golden tests for the Herdr agent / agent_session rule (ADR 0224), with real-shaped PaneInfo fixtures.
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkHerdrAgent } from "./herdr-agent.js";
import type { HerdrPaneInfo } from "./herdr-wire.js";

const SID = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
const base = {
  pane_id: "w1:p2",
  terminal_id: "term_63f1a2b3c4d5e1",
  workspace_id: "w1",
  tab_id: "w1:t2",
  focused: false,
  cwd: "/repo",
  label: "grok-seat",
  revision: 7,
};

// Herdr 0.9.x after report_agent{source:"herdr:grok"} on a pane whose process it does not detect as grok: no top-level agent.
const grokAbsent = {
  ...base,
  agent_status: "unknown",
  agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: SID },
} as HerdrPaneInfo;
// Process detected as grok and the hook's session ref agree.
const grokAgreeing = {
  ...base,
  agent: "grok",
  agent_status: "idle",
  agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: SID },
} as HerdrPaneInfo;
// Detected grok, stale session ref of opencode from before an agent switch (herdr#2681 shape).
const contradictory = {
  ...base,
  agent: "grok",
  agent_status: "idle",
  agent_session: { source: "herdr:opencode", agent: "opencode", kind: "id", value: "ses_6a1f0c2e9b7d" },
} as HerdrPaneInfo;
// OpenCode plugin: hook authority plus its session id.
const opencode = {
  ...base,
  agent: "opencode",
  agent_status: "working",
  display_agent: "OpenCode",
  agent_session: { source: "herdr:opencode", agent: "opencode", kind: "id", value: "ses_6a1f0c2e9b7d" },
} as HerdrPaneInfo;
// Pi extension: session stored as a file path.
const pi = {
  ...base,
  agent: "pi",
  agent_status: "idle",
  agent_session: {
    source: "herdr:pi",
    agent: "pi",
    kind: "path",
    value: "/home/me/.pi/agent/sessions/2026-10-04_abc.jsonl",
  },
} as HerdrPaneInfo;

const grok = { agent: "grok", sessionId: SID };

test("accepts the nested agent when the top-level agent is absent", () => {
  assert.deepEqual(checkHerdrAgent(grokAbsent, grok).verdict, "match");
});

test("accepts agreeing top-level and nested agents", () => {
  const v = checkHerdrAgent(grokAgreeing, { ...grok, terminalId: base.terminal_id, paneId: "w1:p2" });
  assert.equal(v.verdict, "match");
  assert.equal(v.agent, "grok");
});

test("refuses contradictory top-level and nested agents", () => {
  const v = checkHerdrAgent(contradictory, grok);
  assert.equal(v.verdict, "mismatch");
  assert.match(v.reason, /contradicts/);
});

test("refuses an OpenCode pane when grok is expected, and accepts it when opencode is expected", () => {
  assert.equal(checkHerdrAgent(opencode, grok).verdict, "mismatch");
  assert.equal(checkHerdrAgent(opencode, { agent: "opencode", sessionId: "ses_6a1f0c2e9b7d" }).verdict, "match");
});

test("refuses a Pi pane when grok is expected; a Pi path session matches only the expected path", () => {
  assert.equal(checkHerdrAgent(pi, grok).verdict, "mismatch");
  assert.equal(checkHerdrAgent(pi, { agent: "pi", sessionId: "x" }).verdict, "unknown");
  assert.equal(
    checkHerdrAgent(pi, { agent: "pi", sessionId: "x", sessionPath: pi.agent_session!.value }).verdict,
    "match",
  );
  assert.equal(checkHerdrAgent(pi, { agent: "pi", sessionId: "x", sessionPath: "/other.jsonl" }).verdict, "mismatch");
});

test("refuses null, missing and malformed agent fields without authorizing", () => {
  const cases: Array<[string, unknown]> = [
    ["null pane", null],
    ["no agent_session", { ...base, agent: "grok", agent_status: "idle" }],
    ["null agent_session", { ...base, agent_session: null, agent_status: "idle" }],
    ["null top-level agent", { ...grokAgreeing, agent: null }],
    ["missing source", { ...base, agent_status: "idle", agent_session: { agent: "grok", kind: "id", value: SID } }],
    [
      "missing id",
      { ...base, agent_status: "idle", agent_session: { source: "herdr:grok", agent: "grok", kind: "id" } },
    ],
    [
      "empty id",
      { ...base, agent_status: "idle", agent_session: { source: "herdr:grok", agent: "grok", kind: "id", value: "" } },
    ],
  ];
  for (const [name, pane] of cases) {
    const v = checkHerdrAgent(pane as HerdrPaneInfo, grok);
    assert.notEqual(v.verdict, "match", name);
    assert.ok(v.reason.length > 0, name);
  }
});

test("refuses a source that does not vouch for its own agent", () => {
  const pane = {
    ...grokAbsent,
    agent_session: { source: "herdr:opencode", agent: "grok", kind: "id", value: SID },
  } as HerdrPaneInfo;
  assert.equal(checkHerdrAgent(pane, grok).verdict, "mismatch");
});

test("refuses a changed session, terminal, pane or pid", () => {
  assert.match(
    checkHerdrAgent(grokAgreeing, { ...grok, sessionId: "0199ffff-0000-7000-8000-000000000000" }).reason,
    /session changed/,
  );
  assert.equal(checkHerdrAgent(grokAgreeing, { ...grok, terminalId: "term_other" }).verdict, "mismatch");
  assert.equal(checkHerdrAgent(grokAgreeing, { ...grok, paneId: "w1:p3" }).verdict, "mismatch");
  assert.equal(
    checkHerdrAgent(grokAgreeing, { ...grok, pid: 4242 }, { pane_id: "w1:p2", shell_pid: 4243 }).verdict,
    "mismatch",
  );
  assert.equal(checkHerdrAgent(grokAgreeing, { ...grok, pid: 4242 }, { pane_id: "w1:p2" }).verdict, "unknown");
  assert.equal(checkHerdrAgent(grokAgreeing, { ...grok, pid: 4242 }).verdict, "unknown");
  assert.equal(
    checkHerdrAgent(grokAgreeing, { ...grok, pid: 4242 }, { pane_id: "w1:p2", shell_pid: 4242 }).verdict,
    "match",
  );
});
