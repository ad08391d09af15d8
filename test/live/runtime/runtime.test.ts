/*
 * Live headless runtime: createSession against the real grok 1.0.41 and the scripted loopback model.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../../src/runtime/index.js";
import type { SeatEvent } from "../../../src/acp/index.js";
import { shellCommandScript, withLiveRig as withRig } from "../../support/live-turns.js";
import { alive } from "../../support/processes.js";

test("streams a multi-turn conversation over one grok process and echoes each prompt ID", async (t) => {
  await withRig(t, { rules: [{ match: "second", replies: [{ text: "second answer" }] }] }, async (rig) => {
    const texts: string[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: { onText: (text) => void texts.push(text) },
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      const pid = session.agent?.pid;
      const first = await session.prompt("say pong", { promptId: "live-turn-1" });
      assert.equal(first.stopReason, "end_turn");
      assert.equal(first.text, "pong from mock");
      assert.equal(first.echoed, true);
      const second = await session.prompt("now the second one", { promptId: "live-turn-2" });
      assert.equal(second.text, "second answer");
      assert.equal(second.echoed, true);
      assert.equal(session.agent?.pid, pid, "the second turn reused the same process");
      assert.equal(texts.join(""), "pong from mocksecond answer");
      const mainTurns = rig.mock.requests.filter((r) => r.kind === "main").map((r) => r.reqId);
      assert.deepEqual(mainTurns, ["live-turn-1", "live-turn-2"], "each prompt ID reached the model once");
    } finally {
      const { survivors } = await session.dispose();
      assert.deepEqual(survivors, []);
    }
  });
});

test("a permission request for a shell command reaches the hook, and the chosen option is what grok gets", async (t) => {
  const script = shellCommandScript("echo from-the-tool > marker.txt", "ran it");
  await withRig(t, script, async (rig) => {
    const asked: string[] = [];
    const events: SeatEvent[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: { onEvent: (e) => void events.push(e) },
      onPermissionRequest: async (request) => {
        asked.push(request.toolCall.kind ?? "none");
        const allow = request.options.find((o) => o.kind === "allow_once");
        assert.ok(allow, "grok offered an allow_once option");
        return { outcome: { outcome: "selected", optionId: allow.optionId } };
      },
    });
    try {
      assert.equal(session.state, "ready");
      const result = await session.prompt("please run echo");
      assert.equal(result.stopReason, "end_turn");
      assert.deepEqual(asked, ["execute"]);
      assert.equal(readFileSync(join(rig.sandbox.project, "marker.txt"), "utf8").trim(), "from-the-tool");
      const end = events.find((e) => e.type === "tool_end");
      assert.equal(end?.type === "tool_end" && end.status, "completed");
      assert.ok(events.some((e) => e.type === "permission" && e.decision === "allow"));
    } finally {
      await session.dispose();
    }
  });
});

test("with no permission hook the safe default rejects the shell command and reports it", async (t) => {
  const script = shellCommandScript("echo nope > marker.txt", "was refused");
  await withRig(t, script, async (rig) => {
    const events: SeatEvent[] = [];
    const session = await createSession({ ...rig.sessionOptions, callbacks: { onEvent: (e) => void events.push(e) } });
    try {
      const result = await session.prompt("please run echo");
      // grok 1.0.41 ends the turn as cancelled after reject-once ("tell Grok what to do differently"); with no
      // gate nobody could be asked, and the turn says so (issue 15 §1) rather than naming the bare stop reason.
      assert.equal(result.stopReason, "cancelled");
      assert.equal(result.diagnostic?.code, "PERMISSION_NO_APPROVER");
      assert.equal(existsSync(join(rig.sandbox.project, "marker.txt")), false, "the command never ran");
      const decision = events.find((e) => e.type === "permission");
      assert.ok(decision && decision.type === "permission");
      assert.equal(decision.decision, "deny");
      assert.equal(decision.optionId, "reject-once");
    } finally {
      await session.dispose();
    }
  });
});

test("cancel mid-turn ends the turn as cancelled and keeps the partial text", async (t) => {
  const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
  await withRig(t, { rules: [{ match: "slowly", replies: [{ text: long, chunkDelayMs: 150 }] }] }, async (rig) => {
    let cancelled = false;
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: {
        onText: () => {
          if (!cancelled) {
            cancelled = true;
            void session.cancel();
          }
        },
      },
    });
    try {
      const result = await session.prompt("answer slowly");
      assert.equal(result.stopReason, "cancelled");
      assert.ok(result.text.length > 0, "partial text kept");
      assert.ok(result.text.length < long.length, "the turn stopped early");
      assert.equal(result.diagnostic, undefined, "partial text is the answer, not a diagnostic");
      const after = await session.prompt("say pong");
      assert.equal(after.text, "pong from mock", "the session stays usable after a cancel");
    } finally {
      await session.dispose();
    }
  });
});

test("dispose leaves no grok process alive and is idempotent", async (t) => {
  await withRig(t, {}, async (rig) => {
    const session = await createSession(rig.sessionOptions);
    assert.equal(session.state, "ready");
    const pid = session.agent?.pid;
    assert.ok(pid && alive(pid));
    const first = await session.dispose();
    const second = await session.dispose();
    assert.deepEqual(first.survivors, []);
    assert.deepEqual(second, first);
    assert.equal(alive(pid), false);
    assert.equal(session.state, "disposed");
    const late = await session.prompt("anyone there?");
    assert.equal(late.diagnostic?.code, "ACP_SESSION_DEAD");
  });
});

test("without credentials create does not throw: a dead session carries the not-authenticated diagnostic", async (t) => {
  await withRig(t, {}, async (rig) => {
    writeFileSync(join(rig.sandbox.grokHome, "config.toml"), "[cli]\nauto_update = false\n");
    const seen: string[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      callbacks: { onText: (text) => void seen.push(text) },
    });
    assert.equal(session.state, "dead");
    assert.equal(session.diagnostics[0]?.code, "ACP_NOT_AUTHENTICATED");
    assert.match(session.diagnostics[0]?.message ?? "", /grok login|XAI_API_KEY/);
    assert.equal(seen.length, 1, "the diagnostic text reached onText");
    const { survivors } = await session.dispose();
    assert.deepEqual(survivors, []);
  });
});

test("a model selection grok-cli/<id> is passed as -m <id> and the lane marker is grok/<id>", async (t) => {
  await withRig(t, {}, async (rig) => {
    const session = await createSession({ ...rig.sessionOptions, model: "grok-cli/mock" });
    try {
      assert.equal(session.state, "ready");
      assert.equal(session.model, "mock");
      assert.equal(session.laneMarker, "grok/mock");
      const cmdline = readFileSync(`/proc/${session.agent?.pid}/cmdline`, "utf8").split("\0");
      assert.deepEqual(cmdline.slice(cmdline.indexOf("-m"), cmdline.indexOf("-m") + 2), ["-m", "mock"]);
      await session.prompt("say pong");
      assert.equal(
        rig.mock.requests.find((r) => r.kind === "main")?.headers["x-grok-model-override"] ?? "mock-model",
        "mock-model",
      );
    } finally {
      await session.dispose();
    }
  });
});

test("an idle timeout cancels a turn stuck on a failing model endpoint and reports its own code", async (t) => {
  await withRig(t, { rules: [{ match: "fail please", replies: [{ errorStatus: 500 }] }] }, async (rig) => {
    const session = await createSession({ ...rig.sessionOptions, idleTimeoutMs: 4_000 });
    try {
      const result = await session.prompt("fail please");
      assert.equal(result.text, "");
      assert.equal(result.diagnostic?.code, "ACP_IDLE_TIMEOUT");
      // Documented: if grok answered the cancel the session stays usable, otherwise it was disposed.
      if (result.stopReason !== undefined) assert.equal(session.state, "ready");
      else assert.equal(session.state, "disposed");
    } finally {
      await session.dispose();
    }
  });
});

test("an image block is refused with its own code when grok does not advertise images, and nothing is sent", async (t) => {
  await withRig(t, {}, async (rig) => {
    const session = await createSession(rig.sessionOptions);
    try {
      const result = await session.prompt([
        { type: "text", text: "what is this?" },
        { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
      ]);
      assert.equal(result.diagnostic?.code, "ACP_CONTENT_UNSUPPORTED");
      assert.equal(rig.mock.requests.filter((r) => r.kind === "main").length, 0, "no turn reached the model");
      const text = await session.prompt([{ type: "text", text: "say pong" }]);
      assert.equal(text.text, "pong from mock", "text content blocks go through");
    } finally {
      await session.dispose();
    }
  });
});
