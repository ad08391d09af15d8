/*
 * fake-grok: the fake is a real ACP agent process whose messages validate against the ACP schema and have the
 * shapes grok 1.0.41 produced in the recorded transcripts; its fault scenarios do what their files say.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startAgent, type AgentUnderTest, type RecordedMessage } from "../conformance/agent-process.js";
import { createAcpValidator } from "../support/acp-schema.js";
import { TRANSCRIPTS } from "../support/replay-agent.js";
import { alive } from "../support/processes.js";
import { need } from "../support/requirements.js";

const here = dirname(fileURLToPath(import.meta.url));
const fakePath = join(here, "fake-grok.js");
const transcriptsDir = fileURLToPath(TRANSCRIPTS);
const ARGV = ["--no-auto-update", "agent", "--no-leader", "stdio"];

type Msg = Record<string, any>;

/** Runs `fn` with a fresh temp dir and a fake started in it; kills the fake's group and removes the dir after. */
async function withFake(
  scenario: string,
  fn: (a: AgentUnderTest, dir: string) => Promise<void>,
  extraArgs: string[] = [],
  extraEnv: Record<string, string> = {},
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-fake-grok-"));
  const a = startAgent({
    command: process.execPath,
    args: [fakePath, ...ARGV.slice(0, 3), ...extraArgs, "stdio"],
    env: { PATH: process.env.PATH ?? "", FAKE_GROK_SCENARIO: scenario, ...extraEnv },
    cwd: dir,
  });
  try {
    await fn(a, dir);
  } finally {
    await a.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function handshake(a: AgentUnderTest, cwd: string): Promise<{ init: acp.InitializeResponse; sessionId: string }> {
  const init = await a.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  await a.agent.request(acp.methods.agent.authenticate, { methodId: "xai.api_key" });
  const created = await a.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  await a.waitFor((m) => m.msg.method === "_x.ai/mcp_initialized", 10_000, "_x.ai/mcp_initialized");
  return { init, sessionId: created.sessionId };
}

function assertAllValid(messages: RecordedMessage[]): void {
  const v = createAcpValidator();
  const bad = messages.map((m) => ({ m, r: v.validate(m.msg, m.direction) })).filter((x) => !x.r.ok);
  assert.deepEqual(
    bad.map((x) => `${x.m.direction} ${JSON.stringify(x.m.msg.method ?? x.m.msg.id)}: ${x.r.errors.join("; ")}`),
    [],
  );
}

function transcript(file: string): Msg[] {
  return readFileSync(join(transcriptsDir, file), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as Msg).msg as Msg);
}
const golden = (file: string): Msg => JSON.parse(readFileSync(join(transcriptsDir, file), "utf8")) as Msg;
const keys = (v: unknown) => Object.keys((v ?? {}) as object).sort();
const kindOf = (m: Msg) =>
  m.method === "session/update" || m.method === "_x.ai/session_notification"
    ? `${m.method}:${m.params?.update?.sessionUpdate}`
    : (m.method ?? (m.error ? "error" : "result"));
const find = (msgs: Msg[], pred: (m: Msg) => boolean, what: string): Msg => {
  const hit = msgs.find(pred);
  assert.ok(hit, `no ${what}`);
  return hit;
};

/** The agent's turn as a list of message kinds between the prompt request and its answer, repeats collapsed. */
function turnShape(msgs: Msg[], promptReqId: unknown, ignore: string[]): string[] {
  const start = msgs.findIndex((m) => m.method === "session/prompt");
  const end = msgs.findIndex((m, i) => i > start && m.id === promptReqId && !m.method);
  const kinds = msgs
    .slice(start + 1, end + 1)
    .map(kindOf)
    .filter((k) => !ignore.includes(k) && k !== "session/prompt");
  return kinds.filter((k, i) => k !== kinds[i - 1]);
}

test("a normal session's messages in both directions validate and have grok 1.0.41's shapes", () =>
  withFake("normal", async (a, dir) => {
    const { init, sessionId } = await handshake(a, dir);
    const result = await a.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "say pong" }],
      _meta: { promptId: "caller-prompt-0001" },
    });
    await a.waitFor(
      (m) => (m.msg.params as Msg | undefined)?.update?.sessionUpdate === "last_turn_summary",
      10_000,
      "last_turn_summary",
    );
    assertAllValid(a.messages);
    const mine = a.messages.filter((m) => m.direction === "agent").map((m) => m.msg as Msg);

    const goldInit = golden("initialize-response-1.0.41-byok.json").result;
    assert.deepEqual(keys(init), keys(goldInit));
    assert.deepEqual(keys(init.agentCapabilities), keys(goldInit.agentCapabilities));
    assert.deepEqual(keys(init._meta), keys(goldInit._meta));
    assert.deepEqual(init.authMethods, goldInit.authMethods);
    assert.equal(init._meta?.agentVersion, "1.0.41");

    const goldNew = golden("session-new-response-1.0.41.json").result;
    const created = find(mine, (m) => m.result?.sessionId === sessionId, "session/new result").result;
    assert.deepEqual(keys(created), keys(goldNew));
    assert.deepEqual(keys(created._meta), keys(goldNew._meta));
    assert.match(sessionId, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const goldPrompt = golden("session-prompt-response-1.0.41.json").result;
    assert.deepEqual(keys(result), keys(goldPrompt));
    assert.deepEqual(keys(result._meta), keys(goldPrompt._meta));
    assert.deepEqual(keys((result._meta as Msg).usage), keys(goldPrompt._meta.usage));
    assert.equal((result._meta as Msg).promptId, "caller-prompt-0001");

    const gold = transcript("transcript-prompt.ndjson");
    for (const method of [
      "_x.ai/mcp_initialized",
      "_x.ai/session/prompt_complete",
      "_x.ai/sessions/changed",
      "_x.ai/mcp/servers_updated",
    ]) {
      assert.deepEqual(
        keys(find(mine, (m) => m.method === method, method).params),
        keys(find(gold, (m) => m.method === method, method).params),
        method,
      );
    }
    const chunk = (msgs: Msg[]) =>
      find(msgs, (m) => m.params?.update?.sessionUpdate === "agent_message_chunk", "agent_message_chunk").params;
    assert.deepEqual(keys(chunk(mine)._meta), keys(chunk(gold)._meta));
    const queued = (msgs: Msg[], running: boolean) =>
      find(
        msgs,
        (m) =>
          m.method === "_x.ai/queue/changed" &&
          Boolean("runningPromptId" in m.params === running && (running || m.params.entries.length > 0)),
        "queue/changed",
      ).params;
    assert.deepEqual(keys(queued(mine, false)), keys(queued(gold, false)));
    assert.deepEqual(keys(queued(mine, false).entries[0]), keys(queued(gold, false).entries[0]));
    assert.deepEqual(keys(queued(mine, true)), keys(queued(gold, true)));

    const goldPromptReq = find(gold, (m) => m.method === "session/prompt", "prompt request").id;
    const minePromptReq = find(
      a.messages.map((m) => m.msg as Msg),
      (m) => m.method === "session/prompt",
      "prompt request",
    ).id;
    const ignore = ["_x.ai/session/setup", "_x.ai/mcp_initialized", "session/update:available_commands_update"];
    assert.deepEqual(
      turnShape(
        a.messages.map((m) => m.msg as Msg),
        minePromptReq,
        ignore,
      ),
      turnShape(gold, goldPromptReq, ignore),
    );
  }));

test("a permission turn asks with reverse id 0 and grok's three options, and completes the tool once allowed", () =>
  withFake("permission", async (a, dir) => {
    const { sessionId } = await handshake(a, dir);
    a.setPermissionAnswer("allow");
    const result = await a.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write it" }],
      _meta: { promptId: "tool-1" },
    });
    assert.equal(result.stopReason, "end_turn");
    assertAllValid(a.messages);
    const gold = transcript("transcript-tool.ndjson");
    const mine = a.messages.map((m) => m.msg as Msg);
    const ask = find(mine, (m) => m.method === "session/request_permission", "permission request");
    const goldAsk = find(gold, (m) => m.method === "session/request_permission", "permission request");
    assert.equal(ask.id, 0);
    assert.deepEqual(ask.params.options, goldAsk.params.options);
    assert.deepEqual(keys(ask.params.toolCall), keys(goldAsk.params.toolCall));
    // Both sides count request ids from 0, so the answer is the client's id-0 message without a method.
    const answer = find(
      a.messages.filter((m) => m.direction === "client").map((m) => m.msg as Msg),
      (m) => m.id === 0 && !m.method,
      "permission answer",
    );
    assert.deepEqual(answer.result.outcome, { outcome: "selected", optionId: "allow-edits-session" });
    const final = find(
      mine,
      (m) => m.params?.update?.sessionUpdate === "tool_call_update" && m.params.update.status,
      "final tool_call_update",
    );
    assert.equal(final.params.update.status, "completed");
    const ignore = [
      "_x.ai/session/setup",
      "_x.ai/mcp_initialized",
      "session/update:available_commands_update",
      "_x.ai/session_notification:tool_call_delta_chunk",
      "_x.ai/session_notification:response_completed",
    ];
    assert.deepEqual(
      turnShape(mine, find(mine, (m) => m.method === "session/prompt", "prompt").id, ignore),
      turnShape(gold, 4, ignore),
    );
  }));

test("a rejected permission fails the tool call and the turn still ends", () =>
  withFake("permission", async (a, dir) => {
    const { sessionId } = await handshake(a, dir);
    a.setPermissionAnswer("reject");
    const result = await a.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "write it" }],
      _meta: { promptId: "p-reject" },
    });
    assert.equal(result.stopReason, "end_turn");
    const statuses = a.messages
      .map((m) => (m.msg.params as Msg | undefined)?.update)
      .filter((u) => u?.sessionUpdate === "tool_call_update" && u.status)
      .map((u) => u.status);
    assert.deepEqual(statuses, ["failed"]);
    assertAllValid(a.messages);
  }));

test("a tool scenario sends tool_call then a completed tool_call_update, all schema-valid", () =>
  withFake("tool", async (a, dir) => {
    const { sessionId } = await handshake(a, dir);
    await a.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
      _meta: { promptId: "p-tool" },
    });
    const kinds = a.messages
      .map((m) => (m.msg.params as Msg | undefined)?.update?.sessionUpdate)
      .filter((k) => k === "tool_call" || k === "tool_call_update");
    assert.deepEqual(kinds, ["tool_call", "tool_call_update"]);
    assertAllValid(a.messages);
  }));

test("session/cancel during a slow stream resolves the prompt cancelled and stops the text", () =>
  withFake("slow-stream", async (a, dir) => {
    const { sessionId } = await handshake(a, dir);
    const pending = a.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "count" }],
      _meta: { promptId: "p-cancel" },
    });
    await a.waitFor(
      (m) => (m.msg.params as Msg | undefined)?.update?.sessionUpdate === "agent_message_chunk",
      10_000,
      "first chunk",
    );
    await a.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    const result = await pending;
    assert.equal(result.stopReason, "cancelled");
    const complete = a.messages.find((m) => m.msg.method === "_x.ai/session/prompt_complete");
    assert.equal((complete?.msg.params as Msg | undefined)?.stopReason, "cancelled");
    const text = a.messages
      .filter((m) => (m.msg.params as Msg | undefined)?.update?.sessionUpdate === "agent_message_chunk")
      .map((m) => (m.msg.params as Msg).update.content.text)
      .join("");
    assert.notEqual(text.trim(), "one two three four five six seven eight nine ten");
    assertAllValid(a.messages);
  }));

test("session/new honours a client-chosen UUID and rejects a non-UUID with -32602", () =>
  withFake("normal", async (a, dir) => {
    await a.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const chosen = "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
    const created = await a.agent.request(acp.methods.agent.session.new, {
      cwd: dir,
      mcpServers: [],
      _meta: { sessionId: chosen },
    });
    assert.equal(created.sessionId, chosen);
    await assert.rejects(
      a.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [], _meta: { sessionId: "not-a-uuid" } }),
      (err: { code?: number }) => err.code === -32602,
    );
  }));

test("the fake accepts grok's argv, records plugin dirs and -m, ignores unknown flags, and logs a startup line on stderr", () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-fake-argv-"));
  const record = join(dir, "record.json");
  return withFake(
    "normal",
    async (a) => {
      const init = await a.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      assert.equal((init._meta as Msg).modelState.currentModelId, "grok-4.5");
      const recorded = JSON.parse(readFileSync(record, "utf8")) as Msg;
      assert.deepEqual(recorded.pluginDirs, ["/plugins/a", "/plugins/b"]);
      assert.equal(recorded.model, "grok-4.5");
      assert.match(a.stderr(), /fake-grok 1\.0\.41 \(fake\) starting/);
    },
    [
      "--plugin-dir",
      "/plugins/a",
      "--always-approve",
      "--plugin-dir",
      "/plugins/b",
      "-m",
      "grok-4.5",
      "--reasoning-effort",
      "high",
    ],
    { FAKE_GROK_RECORD_FILE: record },
  ).finally(() => rmSync(dir, { recursive: true, force: true }));
});

// --- raw stdout scenarios ---------------------------------------------------------------------------------

interface RawFake {
  child: ChildProcess;
  lines: string[];
  send(msg: Msg): void;
  waitLine(pred: (line: string) => boolean, what: string): Promise<string>;
  kill(): void;
}

function rawFake(scenario: string, env: Record<string, string> = {}): RawFake {
  const child = spawn(process.execPath, [fakePath, ...ARGV], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
    env: { PATH: process.env.PATH ?? "", FAKE_GROK_SCENARIO: scenario, ...env },
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let buf = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      lines.push(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
    for (const w of waiters) w();
  });
  child.stderr!.resume();
  child.stdin!.on("error", () => {});
  return {
    child,
    lines,
    send: (msg) => void child.stdin!.write(`${JSON.stringify(msg)}\n`),
    waitLine: (pred, what) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(pred);
          if (hit !== undefined) waiters.delete(check), clearTimeout(timer), resolve(hit);
        };
        const timer = setTimeout(() => (waiters.delete(check), reject(new Error(`no line: ${what}`))), 15_000);
        waiters.add(check);
        check();
      }),
    kill: () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* already gone */
      }
    },
  };
}

async function rawTurn(f: RawFake, text: string): Promise<void> {
  f.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await f.waitLine((l) => l.startsWith('{"jsonrpc":"2.0","id":1,'), "initialize result");
  f.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: tmpdir(), mcpServers: [] } });
  const sid = (
    JSON.parse(await f.waitLine((l) => l.startsWith('{"jsonrpc":"2.0","id":2,'), "session/new result")) as Msg
  ).result.sessionId as string;
  f.send({
    jsonrpc: "2.0",
    id: 3,
    method: "session/prompt",
    params: { sessionId: sid, prompt: [{ type: "text", text }], _meta: { promptId: "raw-1" } },
  });
  await f.waitLine((l) => l.startsWith('{"jsonrpc":"2.0","id":3,'), "prompt result");
}

test("the malformed-line scenario writes a non-JSON line mid-turn and still finishes the turn", async () => {
  const f = rawFake("malformed-line");
  try {
    await rawTurn(f, "go");
    const bad = f.lines.indexOf("this is not json {");
    assert.ok(bad > 0, "the raw line was not written");
    const result = f.lines.findIndex((l) => l.startsWith('{"jsonrpc":"2.0","id":3,'));
    assert.ok(bad < result);
    assert.match(f.lines[result] ?? "", /"stopReason":"end_turn"/);
  } finally {
    f.kill();
  }
});

test("the oversized-line scenario writes one valid JSON line larger than 1 MiB before finishing the turn", async () => {
  const f = rawFake("oversized-line");
  try {
    await rawTurn(f, "go");
    const big = f.lines.find((l) => l.length > 1024 * 1024);
    assert.ok(big, "no line over 1 MiB");
    assert.equal((JSON.parse(big) as Msg).method, "session/update");
  } finally {
    f.kill();
  }
});

test("the ignore-sigterm scenario keeps answering after SIGTERM and only SIGKILL ends it", async () => {
  const f = rawFake("ignore-sigterm");
  try {
    f.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await f.waitLine((l) => l.includes('"id":1,'), "initialize result");
    process.kill(f.child.pid!, "SIGTERM");
    f.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: tmpdir(), mcpServers: [] } });
    await f.waitLine((l) => l.includes('"id":2,'), "session/new answered after SIGTERM");
    assert.equal(f.child.exitCode, null);
    const exit = new Promise((r) => f.child.once("exit", (_c, s) => r(s)));
    f.kill();
    assert.equal(await exit, "SIGKILL");
  } finally {
    f.kill();
  }
});

function pgidOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}
const noProc = existsSync("/proc/self/stat") ? false : "needs /proc";

async function grandchildPid(f: RawFake, pidFile: string): Promise<number> {
  f.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await f.waitLine((l) => l.includes('"id":1,'), "initialize result"); // the pid file is written before the agent serves
  return Number(readFileSync(pidFile, "utf8"));
}

test("the sigterm-ignoring-grandchild scenario leaves a same-group grandchild that survives a group SIGTERM", async (t) => {
  if (!need(t, noProc)) return;
  const dir = mkdtempSync(join(tmpdir(), "gs-fake-gc-"));
  const pidFile = join(dir, "gc.pid");
  const f = rawFake("sigterm-ignoring-grandchild", { FAKE_GROK_PID_FILE: pidFile });
  let gc = 0;
  try {
    gc = await grandchildPid(f, pidFile);
    assert.equal(pgidOf(gc), f.child.pid);
    const exit = new Promise((r) => f.child.once("exit", (_c, s) => r(s)));
    process.kill(-f.child.pid!, "SIGTERM");
    assert.equal(await exit, "SIGTERM");
    assert.ok(alive(gc), "grandchild died on SIGTERM");
  } finally {
    f.kill();
    if (gc && alive(gc)) process.kill(gc, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the detached-grandchild scenario puts the grandchild in its own process group and it leaves on stdin EOF", async (t) => {
  if (!need(t, noProc)) return;
  const dir = mkdtempSync(join(tmpdir(), "gs-fake-gc-"));
  const pidFile = join(dir, "gc.pid");
  const f = rawFake("detached-grandchild", { FAKE_GROK_PID_FILE: pidFile });
  let gc = 0;
  try {
    gc = await grandchildPid(f, pidFile);
    assert.notEqual(pgidOf(gc), f.child.pid);
    const exit = new Promise((r) => f.child.once("exit", r));
    f.kill();
    await exit;
    // Killing the agent's group never reaches it; it leaves by itself once its stdin pipe closes.
    for (let i = 0; i < 100 && alive(gc); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(gc), false, "detached grandchild did not exit on stdin EOF");
  } finally {
    f.kill();
    if (gc && alive(gc)) process.kill(gc, "SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the mcp-late scenario answers session/new before it announces _x.ai/mcp_initialized", () =>
  withFake("mcp-late", async (a, dir) => {
    await a.agent.request(acp.methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
    const created = await a.agent.request(acp.methods.agent.session.new, { cwd: dir, mcpServers: [] });
    const ready = await a.waitFor((m) => m.msg.method === "_x.ai/mcp_initialized", 10_000, "_x.ai/mcp_initialized");
    const answeredAt = a.messages.findIndex((m) => (m.msg.result as Msg | undefined)?.sessionId === created.sessionId);
    assert.ok(answeredAt >= 0 && answeredAt < a.messages.indexOf(ready));
    assert.deepEqual((ready.msg.params as Msg).sessionId, created.sessionId);
    assert.ok(a.messages.slice(answeredAt).some((m) => (m.msg.params as Msg | undefined)?.phase === "response_ready"));
  }));
