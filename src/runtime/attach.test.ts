import { test } from "node:test";
import assert from "node:assert/strict";
import { agentProfile } from "../agents/index.js";
import { isSeatError } from "../errors.js";
import { refuseUnsafeAttach } from "./attach.js";
import { createSession } from "./session.js";

test("an attach of an agent whose profile refuses it is SESSION_NOT_RESUMABLE naming why; other agents and new sessions pass", () => {
  const gemini = agentProfile("gemini");
  assert.ok(gemini.attachRefused, "gemini's profile says why");
  assert.throws(
    () => refuseUnsafeAttach(gemini, { sessionId: "s-1" }),
    (e: unknown) =>
      isSeatError(e, "SESSION_NOT_RESUMABLE") &&
      (e.context as { reason: string; agentSessionId: string }).reason === "attach-refused" &&
      (e.context as { agentSessionId: string }).agentSessionId === "s-1" &&
      e.message.includes(gemini.attachRefused!),
  );
  refuseUnsafeAttach(gemini, undefined);
  refuseUnsafeAttach(undefined, { sessionId: "s-1" });
  for (const name of ["grok", "codex", "claude", "opencode"]) {
    assert.equal(agentProfile(name).attachRefused, undefined, name);
    refuseUnsafeAttach(agentProfile(name), { sessionId: "s-1" });
  }
});

test("createSession refuses the attach before it starts the agent: a dead session, the code, nothing launched", async () => {
  // No install anywhere: a launch would be AGENT_NOT_INSTALLED, so the refusal came first.
  const env = { PATH: "/nonexistent", GROK_SEAT_AGENTS_DIR: "/nonexistent/agents", HOME: "/nonexistent" };
  const launched = await createSession({ agent: "gemini", env });
  assert.equal(launched.diagnostics[0]?.code, "AGENT_NOT_INSTALLED", JSON.stringify(launched.diagnostics));
  const session = await createSession({ agent: "gemini", resume: { sessionId: "s-1" }, env });
  assert.equal(session.state, "dead");
  assert.equal(session.diagnostics[0]?.code, "SESSION_NOT_RESUMABLE", JSON.stringify(session.diagnostics));
});
