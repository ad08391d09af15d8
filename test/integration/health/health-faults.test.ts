/*
 * Fail-fast under faults the real grok cannot be made to show: an agent that never answers the cancel, and a
 * log that is garbage. The fake agent hangs the prompt; the test writes grok-shaped retry lines (taken from
 * the recorded fixture) into the session's $GROK_HOME/logs/unified.jsonl while the turn runs.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, type HeadlessSession } from "../../../src/runtime/index.js";
import type { SeatEvent } from "../../../src/acp/index.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";
import { healthFixture, RECORDED_SCOPE, restamp } from "../../support/health-fixtures.js";

async function hungSession(
  t: TestContext,
  scenario: string,
  events: SeatEvent[],
): Promise<{ session: HeadlessSession; log: string }> {
  const bin = fakeGrokBinary();
  const work = mkdtempSync(join(tmpdir(), "health-faults-"));
  const grokHome = join(work, "grok-home");
  mkdirSync(join(grokHome, "logs"), { recursive: true });
  const session = await createSession({
    cwd: work,
    grokCliBinaryPath: bin.path,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
    agentEnv: { FAKE_GROK_SCENARIO: scenario, GROK_HOME: grokHome },
    callbacks: { onEvent: (e) => void events.push(e) },
    handshakeTimeoutMs: 5_000,
    killGraceMs: 500,
    failFastAfterRetries: 2,
  });
  t.after(async () => {
    await session.dispose();
    bin.remove();
    rmSync(work, { recursive: true, force: true });
  });
  assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
  return { session, log: join(grokHome, "logs", "unified.jsonl") };
}

/** The recorded retry lines, re-addressed to `sessionId` and stamped now (written while the turn runs). */
function retryLines(sessionId: string): string[] {
  return healthFixture("refused.turn.jsonl")
    .filter((l) => l.includes("inference_retry"))
    .map((l, i) => restamp(l.split(RECORDED_SCOPE.sessionId).join(sessionId), Date.now() + i));
}

test("fail-fast on an agent that never answers the cancel still resolves MODEL_UNREACHABLE and disposes the stuck session", async (t) => {
  const events: SeatEvent[] = [];
  const { session, log } = await hungSession(t, "hang-on-prompt-deaf", events);
  const turn = session.prompt("hello");
  const lines = retryLines(session.id!);
  setTimeout(() => appendFileSync(log, `garbage that is not json\n${lines[0]}\n${lines[1]}\n${lines[2]}\n`), 200);
  const result = await turn;
  assert.equal(result.diagnostic?.code, "MODEL_UNREACHABLE");
  assert.match(result.diagnostic.message, /connection refused \(attempt 2\/15\)/);
  assert.equal(result.stopReason, undefined, "the deaf agent never answered");
  assert.equal(session.state, "disposed", "a stuck agent is not reused");
  assert.deepEqual(
    events.filter((e) => e.type === "retry").map((e) => e.type === "retry" && e.attempt),
    [1, 2],
    "nothing after fail-fast fired",
  );
});

test("a log full of garbage and another session's retries never ends the turn; the caller's cancel still does", async (t) => {
  const events: SeatEvent[] = [];
  const { session, log } = await hungSession(t, "hang-on-prompt", events);
  const turn = session.prompt("hello");
  appendFileSync(log, `\u0000\u0001\n{"msg":\n${retryLines("another-session").join("\n")}\n`);
  await new Promise((r) => setTimeout(r, 800));
  await session.cancel();
  const result = await turn;
  assert.equal(result.stopReason, "cancelled");
  assert.notEqual(result.diagnostic?.code, "MODEL_UNREACHABLE");
  assert.deepEqual(
    events.filter((e) => e.type === "retry"),
    [],
  );
  assert.equal(session.state, "ready");
});
