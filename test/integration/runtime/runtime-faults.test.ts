/*
 * Headless runtime under injected faults: the fake agent (a real ACP process following scenario files) plays
 * crashes, hangs, malformed output and SIGTERM-ignoring children that the real grok cannot be made to show.
 * Each test checks one rule of the resolve-never-reject invariant or of dispose.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, type HeadlessSession } from "../../../src/runtime/index.js";
import type { SeatEvent } from "../../../src/acp/index.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";
import { alive } from "../../support/processes.js";

const bin = fakeGrokBinary();
const work = mkdtempSync(join(tmpdir(), "runtime-faults-"));
after(() => {
  bin.remove();
  rmSync(work, { recursive: true, force: true });
});

async function session(
  scenario: string,
  extra: Parameters<typeof createSession>[0] = {},
  events: SeatEvent[] = [],
  texts: string[] = [],
): Promise<HeadlessSession> {
  return createSession({
    cwd: work,
    grokCliBinaryPath: bin.path,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
    agentEnv: { FAKE_GROK_SCENARIO: scenario, FAKE_GROK_PID_FILE: join(work, `${scenario}.pid`) },
    callbacks: { onEvent: (e) => void events.push(e), onText: (t) => void texts.push(t) },
    handshakeTimeoutMs: 5_000,
    killGraceMs: 500,
    ...extra,
  });
}

test("a crash before any text yields a prompt diagnostic and never rejects", async () => {
  const s = await session("crash-before-text");
  try {
    assert.equal(s.state, "ready");
    const result = await s.prompt("hello");
    assert.equal(result.text, "");
    assert.equal(result.diagnostic?.code, "ACP_PROMPT_FAILED");
  } finally {
    await s.dispose();
  }
});

test("text streamed before a crash is kept and not replaced by an error", async () => {
  const texts: string[] = [];
  const s = await session("crash-mid-stream", {}, [], texts);
  try {
    const result = await s.prompt("hello");
    assert.ok(result.text.length > 0, "partial text kept");
    assert.equal(result.diagnostic, undefined);
    assert.ok(!texts.some((t) => /failed/.test(t)), "no error text reached onText");
  } finally {
    await s.dispose();
  }
});

test("an abnormal stop reason with zero text yields a stop-reason diagnostic", async () => {
  const s = await session("abnormal-stop");
  try {
    const result = await s.prompt("hello");
    assert.notEqual(result.stopReason, "end_turn");
    assert.equal(result.diagnostic?.code, "ACP_STOP_REASON");
    assert.match(result.diagnostic?.message ?? "", new RegExp(String(result.stopReason)));
  } finally {
    await s.dispose();
  }
});

test("a clean end_turn with no text stays silent", async () => {
  const events: SeatEvent[] = [];
  const s = await session("empty-end-turn", {}, events);
  try {
    const result = await s.prompt("hello");
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.text, "");
    assert.equal(result.diagnostic, undefined);
    assert.equal(events.filter((e) => e.type === "diagnostic").length, 0);
  } finally {
    await s.dispose();
  }
});

test("an error response to session/prompt becomes a diagnostic, not a rejection", async () => {
  const s = await session("error-response");
  try {
    const result = await s.prompt("hello");
    assert.equal(result.diagnostic?.code, "ACP_PROMPT_FAILED");
    assert.equal(s.state, "ready", "a refused prompt leaves the session usable");
  } finally {
    await s.dispose();
  }
});

test("a hang on session/new makes create return a dead session with the handshake diagnostic", async () => {
  const texts: string[] = [];
  const s = await session("hang-on-new-session", { handshakeTimeoutMs: 1_500 }, [], texts);
  assert.equal(s.state, "dead");
  assert.equal(s.diagnostics[0]?.code, "ACP_HANDSHAKE_FAILED");
  assert.match(texts.join(""), /could not start/);
  assert.deepEqual((await s.dispose()).survivors, []);
});

test("an agent offering only interactive login gives the not-authenticated diagnostic", async () => {
  const s = await session("no-auth");
  assert.equal(s.state, "dead");
  assert.equal(s.diagnostics[0]?.code, "ACP_NOT_AUTHENTICATED");
  assert.match(s.diagnostics[0]?.message ?? "", /grok login/);
});

test("a turn timeout cancels a hung prompt with its own code and the session stays usable when the agent acknowledges", async () => {
  const s = await session("hang-on-prompt");
  try {
    const result = await s.prompt("hello", { turnTimeoutMs: 800 });
    assert.equal(result.diagnostic?.code, "ACP_TURN_TIMEOUT");
    assert.equal(result.stopReason, "cancelled");
    assert.equal(s.state, "ready");
  } finally {
    await s.dispose();
  }
});

test("a turn timeout on an agent that ignores cancel disposes the session and reports it", async () => {
  const s = await session("hang-on-prompt-deaf");
  const result = await s.prompt("hello", { turnTimeoutMs: 500 });
  assert.equal(result.diagnostic?.code, "ACP_TURN_TIMEOUT");
  assert.equal(result.stopReason, undefined);
  assert.equal(s.state, "disposed");
});

test("a malformed line from the agent does not crash the host; the turn resolves", async () => {
  const s = await session("malformed-line");
  try {
    const result = await s.prompt("hello");
    assert.equal(typeof result.promptId, "string");
    assert.ok(result.stopReason !== undefined || result.diagnostic !== undefined);
  } finally {
    await s.dispose();
  }
});

test("an oversized line from the agent does not crash the host; the turn resolves", async () => {
  const s = await session("oversized-line");
  try {
    const result = await s.prompt("hello");
    assert.ok(result.stopReason !== undefined || result.diagnostic !== undefined);
  } finally {
    await s.dispose();
  }
});

test("dispose kills an agent that ignores SIGTERM and its SIGTERM-ignoring grandchild", async () => {
  for (const scenario of ["ignore-sigterm", "sigterm-ignoring-grandchild", "detached-grandchild"]) {
    const s = await session(scenario);
    assert.equal(s.state, "ready", scenario);
    await s.prompt("hello");
    const pid = s.agent?.pid;
    assert.ok(pid);
    const pidFile = join(work, `${scenario}.pid`);
    const grandchild = existsSync(pidFile) ? Number(readFileSync(pidFile, "utf8").trim()) : undefined;
    if (scenario !== "ignore-sigterm")
      assert.ok(grandchild && alive(grandchild), `${scenario}: grandchild running before dispose`);
    const { survivors } = await s.dispose();
    assert.deepEqual(survivors, [], scenario);
    assert.equal(alive(pid), false, `${scenario}: agent gone`);
    if (grandchild) assert.equal(alive(grandchild), false, `${scenario}: grandchild gone`);
  }
});

test("callbacks see thinking, tool and plan events in arrival order, one at a time", async () => {
  const order: string[] = [];
  let running = 0;
  let overlapped = false;
  for (const scenario of ["thinking", "tool", "plan"]) {
    const s = await createSession({
      cwd: work,
      grokCliBinaryPath: bin.path,
      env: { PATH: process.env.PATH ?? "" },
      agentEnv: { FAKE_GROK_SCENARIO: scenario },
      callbacks: {
        onEvent: async (e) => {
          running += 1;
          if (running > 1) overlapped = true;
          await new Promise((r) => setTimeout(r, 2));
          order.push(`${scenario}:${e.type}`);
          running -= 1;
        },
      },
    });
    await s.prompt("hello");
    await s.dispose();
  }
  assert.equal(overlapped, false, "callbacks never overlap");
  const thinking = order.filter((e) => e.startsWith("thinking:"));
  assert.ok(thinking.indexOf("thinking:thinking") < thinking.indexOf("thinking:text"));
  assert.ok(order.includes("tool:tool_start") && order.indexOf("tool:tool_start") < order.indexOf("tool:tool_end"));
  assert.ok(order.includes("plan:plan"));
  assert.equal(order.filter((e) => e.endsWith(":done")).length, 3);
});

test("a host tool with a broken schema is omitted with its own diagnostic and a schema audit reason, and the session still runs", async () => {
  const s = await session("normal", {
    tools: [
      {
        name: "broken",
        description: "bad schema",
        inputSchema: { type: "object", properties: { a: { type: "no-such-type" } } },
        execute: () => "never",
      },
    ],
  });
  try {
    assert.equal(s.state, "ready");
    assert.deepEqual(
      s.diagnostics.map((d) => d.code),
      ["TOOL_SCHEMA_INVALID"],
      "no bridge failure: the bridge did not fail",
    );
    assert.match(s.diagnostics[0]?.message ?? "", /"broken"/);
    assert.deepEqual(s.audit, [
      {
        event: "session:runtime-resolved",
        toolOmitted: true,
        reason: "tool-schema-invalid",
        toolIndex: 0,
        toolName: "broken",
        requestedToolCount: 1,
      },
    ]);
    assert.equal((await s.prompt("hello")).stopReason, "end_turn");
  } finally {
    await s.dispose();
  }
});
