import { test } from "node:test";
import assert from "node:assert/strict";
import type { AcpPeer } from "./connection.js";
import type { Diagnostic } from "./events.js";
import { SessionCore } from "./session-core.js";

/** A peer whose session/prompt answers when the test says so; no stream, no process. */
function scriptedPeer() {
  let answer!: (result: unknown) => void;
  const controller = new AbortController();
  const peer: AcpPeer = {
    request: <T>(method: string) =>
      method === "session/prompt"
        ? new Promise<T>((resolve) => (answer = resolve as (r: unknown) => void))
        : Promise.resolve({} as T),
    notify: async () => undefined,
    closed: new Promise<void>(() => undefined),
    signal: controller.signal,
    close: () => controller.abort(),
  };
  return { peer, answer: (result: unknown) => answer(result) };
}

const noApprover: Diagnostic = {
  code: "PERMISSION_NO_APPROVER",
  message: "A mcp tool call was denied because nobody could be asked.",
};
const text = (t: string) =>
  ({ sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } } }) as never;

test("a host diagnostic noted during a turn ends that turn, even after text streamed, and is emitted once", async () => {
  const { peer, answer } = scriptedPeer();
  const seen: Diagnostic[] = [];
  const core = new SessionCore(peer, { onEvent: (e) => void (e.type === "diagnostic" && seen.push(e.diagnostic)) });
  core.bind("s1");
  const turn = core.prompt("look it up");
  await new Promise((resolve) => setImmediate(resolve));
  core.handleUpdate(text("Let me look. "));
  core.noteTurnDiagnostic(noApprover);
  core.noteTurnDiagnostic({ code: "PERMISSION_NO_APPROVER", message: "second" });
  answer({ stopReason: "cancelled" });
  const result = await turn;
  assert.equal(result.text, "Let me look. ");
  assert.deepEqual(result.diagnostic, noApprover, "the first noted diagnostic wins");
  assert.deepEqual(seen, [noApprover]);
});

test("a bare stop-reason diagnostic gives way to the noted one; a note outside a turn is dropped", async () => {
  const { peer, answer } = scriptedPeer();
  const core = new SessionCore(peer);
  core.bind("s1");
  core.noteTurnDiagnostic(noApprover);
  const first = core.prompt("one");
  await new Promise((resolve) => setImmediate(resolve));
  answer({ stopReason: "cancelled" });
  assert.equal((await first).diagnostic?.code, "ACP_STOP_REASON", "nothing was noted during this turn");
  const second = core.prompt("two");
  await new Promise((resolve) => setImmediate(resolve));
  core.noteTurnDiagnostic(noApprover);
  answer({ stopReason: "cancelled" });
  assert.equal((await second).diagnostic?.code, "PERMISSION_NO_APPROVER");
});

test("the turn's own failure comes before a noted diagnostic", async () => {
  const { peer, answer } = scriptedPeer();
  const core = new SessionCore(peer);
  core.bind("s1");
  const turn = core.prompt("slow", { turnTimeoutMs: 20 });
  await new Promise((resolve) => setImmediate(resolve));
  core.noteTurnDiagnostic(noApprover);
  await new Promise((resolve) => setTimeout(resolve, 40));
  answer({ stopReason: "cancelled" });
  assert.equal((await turn).diagnostic?.code, "ACP_TURN_TIMEOUT");
});

test("the idle timeout does not run while a held approval is pending, and runs again once it is released", async () => {
  const { peer, answer } = scriptedPeer();
  const cancels: string[] = [];
  const recording: AcpPeer = { ...peer, notify: async (method: string) => void cancels.push(method) };
  const core = new SessionCore(recording);
  core.bind("s1");
  const turn = core.prompt("needs approval", { idleTimeoutMs: 30 });
  await new Promise((resolve) => setImmediate(resolve));
  const release = core.holdIdle();
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(cancels, [], "five idle periods passed while held, and nothing cancelled the turn");
  release();
  await new Promise((resolve) => setTimeout(resolve, 150));
  assert.deepEqual(cancels, ["session/cancel"], "released, the silence cancels the turn");
  answer({ stopReason: "cancelled" });
  assert.equal((await turn).diagnostic?.code, "ACP_IDLE_TIMEOUT");
});

test("streamed text is attributed by prompt ID: the running turn's text is kept, another prompt's text is not mixed in, and every chunk reaches the callbacks in order", async () => {
  const { peer, answer } = scriptedPeer();
  const seen: string[] = [];
  const core = new SessionCore(peer, { onText: (t) => void seen.push(t) });
  core.bind("s1");
  const turn = core.prompt("go", { promptId: "p-run" });
  await new Promise((resolve) => setImmediate(resolve));
  const chunk = (t: string, promptId?: string) =>
    ({
      sessionId: "s1",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
      ...(promptId ? { _meta: { promptId } } : {}),
    }) as never;
  core.handleUpdate(chunk("a", "p-run"));
  core.handleUpdate(chunk("x", "p-other"));
  core.handleUpdate(chunk("b"));
  core.handleUpdate({
    sessionId: "s2",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "not ours" } },
  } as never);
  core.handleUpdate(chunk("c", "p-run"));
  answer({ stopReason: "end_turn" });
  const result = await turn;
  assert.equal(result.text, "abc");
  assert.deepEqual(seen, ["a", "x", "b", "c"]);
});
