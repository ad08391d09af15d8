/*
 * `seat mcp` on the real grok 1.0.41 and the scripted model, driven by the official MCP Client over stdio as a
 * host would: the run tool's answer and progress, a client cancel, a host that disconnects mid-turn (no orphan,
 * the turn recorded), and the server's boundaries. A missing real binary is a failure here, never a skip.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema, type CallToolResult, type Progress } from "@modelcontextprotocol/sdk/types.js";
import type { TestLike } from "../../support/requirements.js";
import type { LiveRig } from "../../support/live-rig.js";
import { grokProcesses, seatEnvFor as envFor, startRequiredLiveRig } from "../../support/required-live-rig.js";
import { alive } from "../../support/processes.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

const SCRIPT: MockScript = {
  rules: [
    {
      match: "list it",
      replies: [
        { text: "looking ", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
        { text: "all listed" },
      ],
    },
    {
      match: "run a command",
      replies: [
        {
          toolCalls: [
            {
              name: "run_terminal_command",
              arguments: { command: "echo ran > marker.txt", description: "write marker.txt" },
            },
          ],
        },
        { text: "command done" },
      ],
    },
    // A turn that runs until it is cancelled or its process dies: the model never answers.
    { match: "slow", replies: [{ hang: true }] },
  ],
  fallback: { text: "pong from mock" },
};

/** A required live rig on SCRIPT: its grok processes are killed and it is closed after the test. */
const rig = (t: TestLike & { after(fn: () => Promise<void>): void }): Promise<LiveRig> =>
  startRequiredLiveRig(t, SCRIPT);

interface Connected {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
}

/** Starts `seat mcp ARGS` as a host would and connects the official client to it. */
async function connect(
  t: { after(fn: () => Promise<void>): void },
  r: LiveRig,
  args: string[],
  options: { env?: Record<string, string>; roots?: string[] } = {},
): Promise<Connected> {
  const { client, transport, stderr } = await connectSeatMcp(t, args, {
    env: options.env ?? envFor(r),
    cwd: r.sandbox.project,
    ...(options.roots ? { roots: options.roots } : {}),
  });
  return { client, transport, stderr };
}

async function call(
  c: Connected,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: Progress) => void,
): Promise<CallToolResult> {
  return (await c.client.callTool({ name, arguments: args }, CallToolResultSchema, {
    timeout: 120_000,
    ...(onprogress ? { onprogress } : {}),
  })) as CallToolResult;
}

const textOf = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : "")).join("");
/** The seat event a progress notification carries (the SDK's Progress type omits `_meta`). */
const eventOf = (p: Progress) =>
  (p as { _meta?: Record<string, unknown> })._meta?.["grok-seat/event"] as
    | { type?: string; category?: string; decision?: string }
    | undefined;
const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Ledger rows the seat home holds (the turns `seat run` and `run` record). */
function ledgerRows(r: LiveRig): Array<{ source: string; stop_reason: string | null; prompt_id: string }> {
  const db = new Database(join(r.sandbox.root, "seat-home", "seats.db"), { readonly: true });
  try {
    return db.prepare("SELECT source, stop_reason, prompt_id FROM usage_ledger").all() as Array<{
      source: string;
      stop_reason: string | null;
      prompt_id: string;
    }>;
  } finally {
    db.close();
  }
}

test("run over stdio: a real grok turn's answer comes back as structured content and text, with progress for the streamed text and the tool call", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const tools = await c.client.listTools();
  const run = tools.tools.find((tool) => tool.name === "run");
  assert.ok(run?.outputSchema, "run has an output schema");
  assert.deepEqual(run.inputSchema.required, ["prompt"]);
  const progress: Array<Progress> = [];
  const result = await call(c, "run", { prompt: "list it" }, (p) => progress.push(p));
  assert.equal(result.isError, undefined, textOf(result));
  const out = result.structuredContent as {
    text: string;
    stopReason: string;
    promptId: string;
    agent: string;
    cwd: string;
    usage: Record<string, number>;
    diagnostics: unknown[];
  };
  assert.equal(out.stopReason, "end_turn");
  assert.match(out.text, /all listed/);
  assert.equal(out.agent, "grok");
  assert.ok(textOf(result).includes("all listed"));
  assert.ok(
    progress.some((p) => p.message === "looking " || eventOf(p)?.type === "text"),
    "streamed text arrived as progress",
  );
  assert.ok(
    progress.some((p) => eventOf(p)?.type === "tool_start"),
    "the tool call arrived as progress",
  );
  assert.ok(
    progress.every((p, i) => i === 0 || p.progress > progress[i - 1]!.progress),
    "progress increases",
  );
  assert.ok(
    ledgerRows(r).some((row) => row.prompt_id === out.promptId && row.stop_reason === "end_turn"),
    "the turn is in the ledger",
  );
  assert.ok(!c.stderr().includes("Error:"), c.stderr());
});

test("run: a permission the server's policy does not allow is denied and reported as progress; the caller's allow list cannot widen it", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project, "--allow", "read", "--block", "execute"]);
  const widened = await call(c, "run", { prompt: "run a command", allow: ["read", "execute"] });
  assert.equal(widened.isError, true);
  assert.equal(codeOf(widened), "MCP_POLICY_WIDENING");
  assert.match(textOf(widened), /\[MCP_POLICY_WIDENING\]/);
  assert.equal(r.mock.requests.filter((q) => q.kind === "main").length, 0, "nothing was sent to the model");
  const progress: Array<Progress> = [];
  const result = await call(c, "run", { prompt: "run a command" }, (p) => progress.push(p));
  const permission = progress.map(eventOf).find((e) => e?.type === "permission");
  assert.equal(permission?.category, "execute");
  assert.equal(permission?.decision, "deny");
  assert.equal(existsSync(join(r.sandbox.project, "marker.txt")), false, "the blocked command did not run");
  // grok 1.0.41 ends a turn whose tool call was refused as cancelled: a coded tool error that still carries the turn.
  assert.equal((result.structuredContent as { stopReason: string }).stopReason, "cancelled");
  assert.equal(result.isError, true);
  assert.match(textOf(result), /^\(stop reason: cancelled\)\n! .*\[ACP_STOP_REASON\]$/);
});

test("run: the client's notifications/cancelled cancels the turn and disposes its grok", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const abort = new AbortController();
  const pending = c.client.callTool({ name: "run", arguments: { prompt: "slow work" } }, CallToolResultSchema, {
    signal: abort.signal,
    timeout: 120_000,
  });
  await until("the turn's model request", () => r.mock.requests.some((q) => q.kind === "main"));
  const serverPid = c.transport.pid!;
  assert.ok(grokProcesses(r, serverPid).length > 0, "positive control: grok runs the turn");
  abort.abort();
  await assert.rejects(pending);
  await until("grok to be disposed", () => grokProcesses(r, serverPid).length === 0, 30_000);
  await until(
    "the cancelled turn in the ledger",
    () => {
      try {
        return ledgerRows(r).some((row) => row.stop_reason === "cancelled");
      } catch {
        return false;
      }
    },
    30_000,
  );
  // The server is still there for the next call.
  const next = await call(c, "run", { prompt: "hello" });
  assert.match((next.structuredContent as { text: string }).text, /pong from mock/);
});

test("run: with --max-runs 1 a second call while a turn runs is MCP_RUNS_LIMIT and starts nothing; once the turn ended the next call runs", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project, "--max-runs", "1"]);
  const abort = new AbortController();
  const pending = c.client.callTool({ name: "run", arguments: { prompt: "slow work" } }, CallToolResultSchema, {
    signal: abort.signal,
    timeout: 120_000,
  });
  await until("the turn's model request", () => r.mock.requests.some((q) => q.kind === "main"));
  const serverPid = c.transport.pid!;
  const agents = grokProcesses(r, serverPid).length;
  assert.ok(agents > 0, "positive control: grok runs the first turn");
  const refused = await call(c, "run", { prompt: "hello" });
  assert.equal(refused.isError, true);
  assert.equal(codeOf(refused), "MCP_RUNS_LIMIT");
  assert.match(textOf(refused), /--max-runs 1/);
  assert.equal(
    r.mock.requests.filter((q) => q.kind === "main").length,
    1,
    "the refused call sent nothing to the model",
  );
  assert.equal(grokProcesses(r, serverPid).length, agents, "the refused call started no agent");
  abort.abort();
  await assert.rejects(pending);
  await until("grok to be disposed", () => grokProcesses(r, serverPid).length === 0, 30_000);
  // The slot is given back when the server's handler settles (after dispose and the control socket's close),
  // which the client does not see: a refusal meanwhile is asked again, for at most 10 s.
  const deadline = Date.now() + 10_000;
  let next = await call(c, "run", { prompt: "hello" });
  while (codeOf(next) === "MCP_RUNS_LIMIT" && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    next = await call(c, "run", { prompt: "hello" });
  }
  assert.equal(next.isError, undefined, textOf(next));
  assert.match((next.structuredContent as { text: string }).text, /pong from mock/);
});

test("a host that disconnects mid-turn: the turn is cancelled, grok disposed, the server exits, no orphan, the turn recorded", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const serverPid = c.transport.pid!;
  const pending = c.client
    .callTool({ name: "run", arguments: { prompt: "slow work" } }, CallToolResultSchema, { timeout: 120_000 })
    .catch((e: unknown) => e);
  await until("the turn's model request", () => r.mock.requests.some((q) => q.kind === "main"));
  const agents = grokProcesses(r, serverPid);
  assert.ok(agents.length > 0, "positive control: grok runs the turn");
  await c.transport.close(); // the host goes away: stdin closes
  await pending;
  await until("the server to exit", () => !alive(serverPid), 30_000);
  assert.deepEqual(agents.filter(alive), [], "no grok process outlived the server");
  assert.deepEqual(grokProcesses(r), []);
  assert.ok(
    ledgerRows(r).some((row) => row.stop_reason === "cancelled"),
    "the cancelled turn is in the ledger",
  );
});

test("boundaries: a cwd outside the roots (directly, by .., or by a symlink), an agent not allowed, a bad session name or model, or a wrong type is a coded tool error; nothing starts", async (t) => {
  const r = await rig(t);
  const inside = join(r.sandbox.project, "sub");
  mkdirSync(inside);
  symlinkSync(r.sandbox.root, join(r.sandbox.project, "escape"));
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ prompt: "hi", cwd: r.sandbox.root }, "MCP_CWD_OUTSIDE_ROOTS"],
    [{ prompt: "hi", cwd: `${r.sandbox.project}/../` }, "MCP_CWD_OUTSIDE_ROOTS"],
    [{ prompt: "hi", cwd: join(r.sandbox.project, "escape") }, "MCP_CWD_OUTSIDE_ROOTS"],
    [{ prompt: "hi", cwd: "relative/dir" }, "MCP_CWD_OUTSIDE_ROOTS"],
    [{ prompt: "hi", agent: "codex" }, "MCP_AGENT_NOT_ALLOWED"],
    [{ prompt: "hi", session: "../etc" }, "SESSION_NAME_INVALID"],
    [{ prompt: "hi", model: "$(rm -rf /)" }, "MCP_ARGUMENT_INVALID"],
  ];
  for (const [args, code] of cases) {
    const result = await call(c, "run", args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.equal(codeOf(result), code, `${JSON.stringify(args)}: ${textOf(result)}`);
    assert.ok(textOf(result).endsWith(`[${code}]`), textOf(result));
  }
  for (const args of [{ prompt: 42 }, {}, { prompt: "hi", allow: ["everything"] }]) {
    const result = await call(c, "run", args);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /\[MCP_ARGUMENT_INVALID\]$/, textOf(result));
  }
  assert.equal(r.mock.requests.filter((q) => q.kind === "main").length, 0, "no refused call reached the model");
  // A directory under the root is fine, and so is a root the client declared.
  const ok = await call(c, "run", { prompt: "hello", cwd: inside });
  assert.equal((ok.structuredContent as { cwd: string }).cwd, inside);
  const declared = await connect(t, r, [], { roots: [r.sandbox.home] });
  const viaRoot = await call(declared, "run", { prompt: "hello", cwd: r.sandbox.home });
  assert.equal(viaRoot.isError, undefined, textOf(viaRoot));
  const outside = await call(declared, "run", { prompt: "hello", cwd: r.sandbox.project });
  assert.equal(codeOf(outside), "MCP_CWD_OUTSIDE_ROOTS");
});

test("named sessions: run with `session` continues it; sessions, session_history and the history resource show it; cancel stops its running turn", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const first = await call(c, "run", { prompt: "remember NONCE-5e1f", session: "work" });
  assert.deepEqual((first.structuredContent as { session: { resumed: boolean } }).session.resumed, false);
  const second = await call(c, "run", { prompt: "hello again", session: "work" });
  assert.equal((second.structuredContent as { session: { resumed: boolean } }).session.resumed, true);
  const secondRequest = r.mock.requests
    .map((q) => JSON.stringify(q.body ?? {}))
    .find((body) => body.includes("hello again"));
  assert.ok(secondRequest?.includes("NONCE-5e1f"), "the second turn's model request carries the first turn");

  const listed = await call(c, "sessions", {});
  const sessions = (listed.structuredContent as { sessions: Array<{ name: string; turns: number; running: unknown }> })
    .sessions;
  assert.deepEqual(
    sessions.map((s) => [s.name, s.turns, s.running]),
    [["work", 2, null]],
  );
  const history = await call(c, "session_history", { name: "work" });
  const turns = (history.structuredContent as { turns: Array<{ prompt: string; text: string; state: string }> }).turns;
  assert.deepEqual(
    turns.map((turn) => [turn.prompt, turn.state]),
    [
      ["remember NONCE-5e1f", "completed"],
      ["hello again", "completed"],
    ],
  );
  const newest = await call(c, "session_history", { name: "work", limit: 1 });
  assert.equal((newest.structuredContent as { turns: unknown[] }).turns.length, 1);
  const templates = await c.client.listResourceTemplates();
  assert.ok(templates.resourceTemplates.some((tpl) => tpl.uriTemplate === "seat://sessions/{name}/history"));
  const resource = await c.client.readResource({ uri: "seat://sessions/work/history" });
  assert.equal(
    (JSON.parse(String((resource.contents[0] as { text: string }).text)) as { turns: unknown[] }).turns.length,
    2,
  );

  for (const [args, code] of [
    [{ name: "nope" }, "SESSION_NOT_FOUND"],
    [{ name: "../x" }, "SESSION_NAME_INVALID"],
    [{ name: "work", cwd: r.sandbox.root }, "MCP_CWD_OUTSIDE_ROOTS"],
  ] as const) {
    assert.equal(codeOf(await call(c, "session_history", args)), code);
  }
  assert.equal(codeOf(await call(c, "cancel", { name: "work" })), "SESSION_IDLE");

  const slow = call(c, "run", { prompt: "slow work", session: "work" });
  await until("the slow turn's model request", () =>
    r.mock.requests.some((q) => JSON.stringify(q.body ?? {}).includes("slow work")),
  );
  const busy = await call(c, "run", { prompt: "meanwhile", session: "work" });
  assert.equal(codeOf(busy), "SESSION_BUSY", textOf(busy));
  assert.match(textOf(busy), /the cancel tool/, "a host is pointed at its own tools");
  assert.doesNotMatch(textOf(busy), /--wait|seat cancel/, "not at CLI flags a host has not");
  const cancelled = await call(c, "cancel", { name: "work" });
  assert.equal(cancelled.isError, undefined, textOf(cancelled));
  assert.equal((cancelled.structuredContent as { holderPid: number }).holderPid, c.transport.pid);
  const ended = await slow;
  assert.equal((ended.structuredContent as { stopReason: string }).stopReason, "cancelled");
  const after = await call(c, "session_history", { name: "work" });
  assert.equal((after.structuredContent as { turns: Array<{ state: string }> }).turns.at(-1)?.state, "interrupted");
});

test("a long quiet turn outlives a 2 s client timeout that resets on progress: the server's heartbeat keeps the call alive; without the reset it times out and the turn is cancelled", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project, "--heartbeat", "0.5"]);
  const serverPid = c.transport.pid!;
  // Control: a client that does not reset on progress gives up at 2 s and cancels; the server cancels the turn.
  const started = Date.now();
  await assert.rejects(
    c.client.callTool({ name: "run", arguments: { prompt: "slow one" } }, CallToolResultSchema, {
      timeout: 2_000,
      onprogress: () => undefined,
    }),
    /timed out/i,
  );
  assert.ok(Date.now() - started < 10_000);
  await until("the timed-out turn's grok to be disposed", () => grokProcesses(r, serverPid).length === 0, 30_000);

  const beats: Progress[] = [];
  const abort = new AbortController();
  let settled = false;
  const pending = c.client
    .callTool({ name: "run", arguments: { prompt: "slow two" } }, CallToolResultSchema, {
      timeout: 2_000,
      resetTimeoutOnProgress: true,
      onprogress: (p) => beats.push(p),
      signal: abort.signal,
    })
    .finally(() => (settled = true));
  pending.catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  assert.equal(settled, false, "the call is still waiting after 3× its timeout");
  assert.ok(beats.filter((p) => eventOf(p)?.type === "heartbeat").length >= 4, JSON.stringify(beats));
  assert.match(String(beats.at(-1)?.message), /^still working \(\d+ s\)$/);
  abort.abort();
  await assert.rejects(pending);
  await until("grok to be disposed", () => grokProcesses(r, serverPid).length === 0, 30_000);
});

test("SIGTERM to the server mid-turn: the turn is cancelled and recorded, grok disposed, the server exits", async (t) => {
  const r = await rig(t);
  const c = await connect(t, r, ["--root", r.sandbox.project]);
  const serverPid = c.transport.pid!;
  const exited = new Promise<void>((resolve) => (c.transport.onclose = () => resolve()));
  const pending = c.client
    .callTool({ name: "run", arguments: { prompt: "slow work" } }, CallToolResultSchema, { timeout: 120_000 })
    .catch((e: unknown) => e);
  await until("the turn's model request", () => r.mock.requests.some((q) => q.kind === "main"));
  const agents = grokProcesses(r, serverPid);
  assert.ok(agents.length > 0, "positive control: grok runs the turn");
  process.kill(serverPid, "SIGTERM");
  await pending;
  await exited;
  await until("the server to exit", () => !alive(serverPid), 30_000);
  assert.deepEqual(agents.filter(alive), [], "no grok process outlived the server");
  assert.ok(
    ledgerRows(r).some((row) => row.stop_reason === "cancelled"),
    "the cancelled turn is in the ledger",
  );
});
