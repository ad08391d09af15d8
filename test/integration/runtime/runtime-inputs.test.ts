/*
 * Headless runtime, resolve-never-reject for every input (issue 8 §3), on the fake agent: it logs every
 * session/prompt it receives (FAKE_GROK_PROMPT_LOG), so "nothing was sent" is asserted at the agent, and it
 * plays the hangs and the auth choice that the real grok cannot be made to show.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, type HeadlessSession } from "../../../src/runtime/index.js";
import type { SessionOptions } from "../../../src/runtime/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";
import { alive } from "../../support/processes.js";

const bin = fakeGrokBinary();
const work = mkdtempSync(join(tmpdir(), "runtime-inputs-"));
after(() => {
  bin.remove();
  rmSync(work, { recursive: true, force: true });
});

let counter = 0;

/** A session on the fake agent and the path of its prompt log. */
async function session(
  scenario: string,
  extra: SessionOptions = {},
  agentEnv: Record<string, string> = {},
): Promise<{ s: HeadlessSession; prompts: () => string[] }> {
  const log = join(work, `prompts-${++counter}.log`);
  const s = await createSession({
    cwd: work,
    grokCliBinaryPath: bin.path,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work },
    agentEnv: { FAKE_GROK_SCENARIO: scenario, FAKE_GROK_PROMPT_LOG: log, ...agentEnv },
    handshakeTimeoutMs: 5_000,
    killGraceMs: 500,
    ...extra,
  });
  return { s, prompts: () => (existsSync(log) ? readFileSync(log, "utf8").split("\n").filter(Boolean) : []) };
}

test("an already-aborted AbortSignal ends the turn at once as cancelled, and no session/prompt reaches the agent", async () => {
  const { s, prompts } = await session("normal");
  try {
    const started = Date.now();
    const result = await s.prompt("hello", { signal: AbortSignal.abort(), promptId: "never-sent" });
    assert.ok(Date.now() - started < 1_000, "resolved at once");
    assert.equal(result.stopReason, "cancelled");
    assert.equal(result.diagnostic?.code, "ACP_PROMPT_ABORTED");
    assert.equal(result.text, "");
    assert.deepEqual(prompts(), [], "the agent received no session/prompt");
    const next = await s.prompt("hello", { promptId: "sent" });
    assert.equal(next.text, "pong from fake");
    assert.deepEqual(prompts(), ["sent"], "the agent logs the prompts it does receive");
  } finally {
    await s.dispose();
  }
});

test("prompt() with undefined, null, 42, {} or bad options resolves ACP_PROMPT_INVALID and sends nothing; cancel and dispose never reject", async () => {
  const { s, prompts } = await session("normal");
  const bad: Array<[unknown, unknown]> = [
    [undefined, undefined],
    [null, undefined],
    [42, undefined],
    [{}, undefined],
    [[{ text: "no type" }], undefined],
    ["hello", 42],
    ["hello", { signal: {} }],
    ["hello", { turnTimeoutMs: -1 }],
    ["hello", { promptId: 7 }],
  ];
  for (const [input, options] of bad) {
    const prompt = s.prompt as (input: unknown, options?: unknown) => ReturnType<HeadlessSession["prompt"]>;
    const result = await prompt.call(s, input, options);
    assert.equal(
      result.diagnostic?.code,
      "ACP_PROMPT_INVALID",
      `${JSON.stringify(input)} / ${JSON.stringify(options)}`,
    );
    assert.match(result.diagnostic?.message ?? "", /nothing was sent/);
    assert.equal(typeof result.promptId, "string");
  }
  assert.deepEqual(prompts(), [], "no bad input reached the agent");
  assert.equal(s.state, "ready", "bad input leaves the session usable");
  assert.equal((await s.prompt("hello", null as never)).text, "pong from fake", "null options mean no options");
  await s.cancel();
  await s.dispose();
  await s.cancel();
  assert.equal((await s.prompt(42 as never)).diagnostic?.code, "ACP_PROMPT_INVALID");
});

test("createSession with options that are not an object returns a dead session with its own code", async () => {
  const s = await createSession(42 as never);
  assert.equal(s.state, "dead");
  assert.equal(s.diagnostics[0]?.code, "SESSION_OPTIONS_INVALID");
  assert.deepEqual((await s.dispose()).survivors, []);
});

test("the auth method is chosen from the environment grok receives, not from ours", async () => {
  // Our env has no key; the key reaches grok only through agentEnv. Choosing from our env would pick cached_token.
  const { s } = await session("key-or-token", {}, { XAI_API_KEY: "only-in-the-agent-env" });
  try {
    assert.equal(s.state, "ready", JSON.stringify(s.diagnostics));
    assert.equal(s.agent?.authMethodId, "xai.api_key");
  } finally {
    await s.dispose();
  }
  // Our env has a key that the agent env removes: grok has no key, so xai.api_key is not chosen.
  const removed = await session("key-or-token", {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: work, XAI_API_KEY: "ours-only" },
    agentEnv: { FAKE_GROK_SCENARIO: "key-or-token", XAI_API_KEY: undefined as unknown as string },
  });
  assert.equal(removed.s.state, "dead");
  assert.equal(removed.s.diagnostics[0]?.code, "ACP_NOT_AUTHENTICATED");
  assert.match(removed.s.diagnostics[0]?.message ?? "", /cached_token/);
});

test("dispose during a running turn resolves it as cancelled with ACP_SESSION_DISPOSED, whether or not the agent answers the cancel", async () => {
  for (const scenario of ["hang-on-prompt", "hang-on-prompt-deaf"]) {
    const { s, prompts } = await session(scenario);
    const pid = s.agent?.pid;
    const turn = s.prompt("hello", { promptId: `running-${scenario}` });
    while (prompts().length === 0) await new Promise((r) => setTimeout(r, 20));
    const started = Date.now();
    const { survivors } = await s.dispose();
    const result = await turn;
    assert.ok(Date.now() - started < 6_000, `${scenario}: dispose finished promptly`);
    assert.deepEqual(survivors, [], scenario);
    assert.equal(result.stopReason, "cancelled", scenario);
    assert.equal(result.diagnostic?.code, "ACP_SESSION_DISPOSED", scenario);
    assert.equal(alive(pid!), false, `${scenario}: agent gone`);
  }
});

test("a callback that never returns is abandoned at the turn deadline and reported; the turn resolves and dispose finishes", async () => {
  const { s } = await session("normal", { callbacks: { onText: () => new Promise<void>(() => {}) } });
  try {
    const started = Date.now();
    const result = await s.prompt("hello", { turnTimeoutMs: 1_500 });
    const took = Date.now() - started;
    assert.ok(took >= 1_400 && took < 4_000, `resolved at the deadline (${took} ms)`);
    assert.equal(result.stopReason, "end_turn");
    assert.equal(result.text, "pong from fake", "the turn's text is complete even though onText hung");
    assert.equal(result.diagnostic?.code, "ACP_CALLBACK_STUCK");
    assert.match(result.diagnostic?.message ?? "", /onText/);
    assert.ok(s.diagnostics.some((d) => d.code === "ACP_CALLBACK_STUCK"));
  } finally {
    const started = Date.now();
    await s.dispose();
    assert.ok(Date.now() - started < 5_000, "dispose finished");
  }
});

test("without a turn timeout, a turn held by a stuck callback is released by dispose", async () => {
  const seen: string[] = [];
  const { s } = await session("normal", {
    callbacks: { onEvent: (e) => (e.type === "text" ? new Promise<void>(() => {}) : void seen.push(e.type)) },
  });
  const turn = s.prompt("hello");
  const early = await Promise.race([
    turn.then(() => "resolved"),
    new Promise((r) => setTimeout(() => r("pending"), 800)),
  ]);
  assert.equal(early, "pending", "with no limit the turn waits for its callbacks");
  const started = Date.now();
  await s.dispose();
  const result = await turn;
  assert.ok(Date.now() - started < 6_000, "dispose finished");
  assert.equal(result.text, "pong from fake");
  assert.equal(result.diagnostic?.code, "ACP_CALLBACK_STUCK");
});

test("a permission hook that throws, and a gate whose approver throws, deny the call and report PERMISSION_APPROVER_FAILED", async () => {
  const hook = await session("normal", {
    onPermissionRequest: async () => {
      throw new Error("approver crashed");
    },
  });
  try {
    await hook.s.prompt("TOOLTEST please");
    const d = hook.s.diagnostics.find((x) => x.code === "PERMISSION_APPROVER_FAILED");
    assert.ok(d, JSON.stringify(hook.s.diagnostics));
    assert.match(d.message, /approver crashed/);
    assert.ok(!hook.s.diagnostics.some((x) => x.code === "PERMISSION_DENIED"));
  } finally {
    await hook.s.dispose();
  }
  const gate = createPermissionGate({
    policy: parsePolicyFlags({ ask: ["edit"] }),
    approver: () => {
      throw new Error("approver crashed");
    },
  });
  const gated = await session("normal", { permissions: gate });
  try {
    await gated.s.prompt("TOOLTEST please");
    assert.ok(
      gated.s.diagnostics.some((x) => x.code === "PERMISSION_APPROVER_FAILED"),
      JSON.stringify(gated.s.diagnostics),
    );
    assert.ok(
      gated.s.audit.some((a) => a.event === "permission" && a.decision === "deny"),
      JSON.stringify(gated.s.audit),
    );
  } finally {
    await gated.s.dispose();
  }
});
