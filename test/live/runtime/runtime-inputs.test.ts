/*
 * Live resolve-never-reject (issue 8 §3): the real grok 1.0.41 and the scripted loopback model. What reached
 * grok is read from the mock model's request log (a prompt grok never got never reaches the model).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createSession, type HeadlessSession } from "../../../src/runtime/index.js";
import { shellCommandScript, withLiveRig as withRig } from "../../support/live-turns.js";
import { alive } from "../../support/processes.js";

const mainTurns = (rig: { mock: { requests: Array<{ kind: string; reqId?: string }> } }) =>
  rig.mock.requests.filter((r) => r.kind === "main").map((r) => r.reqId);

test("on real grok, an already-aborted signal and malformed prompt input send nothing, and the session stays usable", async (t) => {
  await withRig(t, {}, async (rig) => {
    const session = await createSession(rig.sessionOptions);
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const aborted = await session.prompt("say pong", { signal: AbortSignal.abort(), promptId: "aborted-turn" });
      assert.equal(aborted.stopReason, "cancelled");
      assert.equal(aborted.diagnostic?.code, "ACP_PROMPT_ABORTED");
      const prompt = session.prompt as (input: unknown) => ReturnType<HeadlessSession["prompt"]>;
      for (const input of [undefined, null, 42, {}]) {
        assert.equal((await prompt.call(session, input)).diagnostic?.code, "ACP_PROMPT_INVALID", JSON.stringify(input));
      }
      const real = await session.prompt("say pong", { promptId: "real-turn" });
      assert.equal(real.text, "pong from mock");
      assert.deepEqual(mainTurns(rig), ["real-turn"], "only the real prompt reached grok and its model");
    } finally {
      await session.dispose();
    }
  });
});

test("on real grok, an onText that never returns is abandoned at the turn deadline: the turn resolves with ACP_CALLBACK_STUCK and dispose finishes", async (t) => {
  await withRig(t, {}, async (rig) => {
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: { onText: () => new Promise<void>(() => {}) },
    });
    assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
    const pid = session.agent?.pid;
    const started = Date.now();
    const result = await session.prompt("say pong", { turnTimeoutMs: 8_000 });
    const took = Date.now() - started;
    assert.ok(took >= 7_900 && took < 12_000, `resolved at the deadline (${took} ms)`);
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.text, "pong from mock");
    assert.equal(result.diagnostic?.code, "ACP_CALLBACK_STUCK");
    const disposing = Date.now();
    const { survivors } = await session.dispose();
    assert.ok(Date.now() - disposing < 8_000, "dispose finished");
    assert.deepEqual(survivors, []);
    assert.equal(alive(pid!), false);
  });
});

test("on real grok, dispose during a turn waiting on the model resolves the turn as cancelled with ACP_SESSION_DISPOSED", async (t) => {
  await withRig(t, { rules: [{ match: "wait forever", replies: [{ hang: true }] }] }, async (rig) => {
    const session = await createSession(rig.sessionOptions);
    assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
    const pid = session.agent?.pid;
    const turn = session.prompt("please wait forever", { promptId: "hung-turn" });
    for (let i = 0; i < 200 && mainTurns(rig).length === 0; i += 1) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(mainTurns(rig), ["hung-turn"], "the turn reached the model");
    const { survivors } = await session.dispose();
    const result = await turn;
    assert.equal(result.stopReason, "cancelled");
    assert.equal(result.diagnostic?.code, "ACP_SESSION_DISPOSED");
    assert.notEqual(result.diagnostic?.code, "ACP_PROMPT_FAILED");
    assert.deepEqual(survivors, []);
    assert.equal(alive(pid!), false);
  });
});

test("on real grok, a permission hook that throws denies the shell command and reports PERMISSION_APPROVER_FAILED", async (t) => {
  const script = shellCommandScript("echo nope > marker.txt", "was refused");
  await withRig(t, script, async (rig) => {
    const session = await createSession({
      ...rig.sessionOptions,
      onPermissionRequest: async () => {
        throw new Error("approver crashed");
      },
    });
    try {
      await session.prompt("please run echo");
      const reported = session.diagnostics.find((d) => d.code === "PERMISSION_APPROVER_FAILED");
      assert.ok(reported, JSON.stringify(session.diagnostics));
      assert.match(reported.message, /approver crashed/);
    } finally {
      await session.dispose();
    }
  });
});
