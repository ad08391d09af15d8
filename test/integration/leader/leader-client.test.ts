// Message-level tests of src/leader against test/fakes/fake-leader over a real unix socket in a temp dir.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client as acpClient } from "@agentclientprotocol/sdk";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { connectLeader, type LeaderClient } from "../../../src/leader/index.js";
import { isSeatError } from "../../../src/errors.js";
import {
  startFakeLeader,
  TRANSCRIPT_REGISTERED,
  type FakeLeader,
  type FakeLeaderOptions,
  type LoggedFrame,
} from "../../fakes/fake-leader.js";

/** Kind digest of transcripts/transcript-leader1.ndjson (grok 1.0.41), in observed order. */
const TRANSCRIPT_LEADER1_KINDS = [
  "out register",
  "in registered",
  "out acp initialize",
  "in acp response 100",
  "out acp authenticate",
  "in acp _x.ai/mcp/servers_updated",
  "in acp response 101",
  "out acp session/new",
  "in acp _x.ai/session/setup:auth",
  "in acp _x.ai/session/setup:resolve_workspace",
  "in acp _x.ai/session/setup:folder_trust",
  "in acp _x.ai/session/setup:plugin_registry",
  "in acp _x.ai/session/setup:mcp_merge",
  "in acp response 102",
  "in acp _x.ai/session/setup:git_discovery",
  "in acp _x.ai/session/setup:finalize_response",
  "in acp _x.ai/session/setup:tool_overrides",
  "in acp _x.ai/session/setup:response_ready",
  "out ping",
  "out control",
  "out acp session/prompt",
  "in pong",
  "in control_result",
  "in acp _x.ai/mcp_initialized",
  "in acp session/update:available_commands_update",
  "in acp session/update:available_commands_update",
  "in acp _x.ai/sessions/changed",
  "in acp _x.ai/queue/changed",
  "in acp _x.ai/queue/changed",
  "in acp _x.ai/session_notification:session_summary_generated",
  "in acp session/update:session_info_update",
  "in acp session/update:agent_message_chunk",
  "in acp session/update:agent_message_chunk",
  "in acp session/update:agent_message_chunk",
  "in acp session/update:available_commands_update",
  "in acp _x.ai/session_notification:response_completed",
  "in acp _x.ai/queue/changed",
  "in acp _x.ai/session_notification:turn_completed",
  "in acp _x.ai/session/prompt_complete",
  "in acp _x.ai/sessions/changed",
  "in acp response 103",
  "in acp _x.ai/session_notification:last_turn_summary",
  "out disconnect",
];
/** Top-level keys of the transcript's control_result Ok value (get_leader_info). */
const TRANSCRIPT_LEADER_INFO_KEYS = [
  "type",
  "pid",
  "socket_path",
  "lock_path",
  "ws_url_suffix",
  "leader_protocol_version",
  "leader_binary_version",
  "profiling_supported",
  "profiling_compiled_in",
  "cpu_profile_active",
  "cpu_profile_stopping",
  "profile_started_at",
  "profile_formats",
  "cursor_worker",
];

function kindOf(entry: LoggedFrame): string {
  if (entry.frame.type !== "acp") return `${entry.dir} ${entry.frame.type}`;
  const m = entry.message!;
  if (!m.method) return `${entry.dir} acp response ${String(m.id)}`;
  const detail = m.params?.update?.sessionUpdate ?? m.params?.phase;
  return `${entry.dir} acp ${m.method}${detail ? `:${detail}` : ""}`;
}

async function withLeader(
  options: Omit<FakeLeaderOptions, "socketPath">,
  body: (fake: FakeLeader, socketPath: string) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-leader-"));
  const socketPath = join(dir, "leader.sock");
  const fake = await startFakeLeader({ socketPath, ...options });
  try {
    await body(fake, socketPath);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Reads the stream until `count` messages arrived or it ended. */
async function readMessages(client: LeaderClient, count: number): Promise<AnyMessage[]> {
  const reader = client.stream.readable.getReader();
  const out: AnyMessage[] = [];
  while (out.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(value);
  }
  reader.releaseLock();
  return out;
}

async function send(client: LeaderClient, message: AnyMessage): Promise<void> {
  const writer = client.stream.writable.getWriter();
  await writer.write(message);
  writer.releaseLock();
}

test("registers as a stdio client with every capability false or null and exposes the leader's versions", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({
      socketPath,
      clientType: "grok-seat",
      clientVersion: "0.1.0",
      timeoutMs: 5000,
    });
    assert.deepEqual(fake.log[0]!.frame, {
      type: "register",
      client_type: "grok-seat",
      mode: "stdio",
      capabilities: {
        yolo_mode: false,
        auto_mode: false,
        default_model: null,
        client_version: "0.1.0",
        code_nav_enabled: false,
        terminal: false,
        fs_read: false,
        fs_write: false,
        status_line: false,
      },
    });
    assert.equal(client.registered.leaderProtocolVersion, 1);
    assert.equal(client.registered.leaderBinaryVersion, "1.0.41");
    assert.equal(client.registered.controlAvailable, true);
    assert.equal(client.registered.ready, true);
    assert.deepEqual((await client.close()).error, null);
  });
});

test("replays transcript-leader1 through the client and sees the same frame sequence grok produced", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "probe-controller", timeoutMs: 5000 });
    await send(client, {
      jsonrpc: "2.0",
      id: 100,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      },
    });
    await readMessages(client, 1);
    await send(client, { jsonrpc: "2.0", id: 101, method: "authenticate", params: { methodId: "xai.api_key" } });
    await readMessages(client, 2);
    await send(client, {
      jsonrpc: "2.0",
      id: 102,
      method: "session/new",
      params: { cwd: "/home/dev/project", mcpServers: [] },
    });
    const created = await readMessages(client, 10);
    const sessionId = (created.find((m) => "id" in m && m.id === 102) as any).result.sessionId;
    const pong = client.ping();
    const info = client.control({ type: "get_leader_info" });
    await send(client, {
      jsonrpc: "2.0",
      id: 103,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "say pong" }], _meta: { promptId: "ctl-prompt-1" } },
    });
    await pong;
    const leaderInfo = (await info) as Record<string, unknown>;
    const turn = await readMessages(client, 19);
    await client.close();

    assert.deepEqual(fake.log.map(kindOf), TRANSCRIPT_LEADER1_KINDS);
    assert.deepEqual(Object.keys(leaderInfo), TRANSCRIPT_LEADER_INFO_KEYS);
    assert.deepEqual(Object.keys(fake.log[1]!.frame).sort(), Object.keys(TRANSCRIPT_REGISTERED).sort());
    const result = turn.find((m) => "id" in m && m.id === 103) as any;
    assert.deepEqual(result.result._meta, {
      sessionId,
      requestId: "ctl-prompt-1",
      promptId: "ctl-prompt-1",
      modelId: "mock-model",
    });
    const wire = fake.log
      .filter((e) => e.dir === "out" && e.frame.type === "acp")
      .map((e) => e.frame.payload as string);
    assert.ok(
      wire.some((p) => p.includes('"method":"session/new"')),
      "payload is a JSON string with an unescaped slash",
    );
  });
});

test("drives an ACP SDK client app over the leader stream", async () => {
  await withLeader({}, async (_fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    const result = await acpClient().connectWith(client.stream, (ctx) =>
      ctx.request("initialize", {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      }),
    );
    assert.equal(result.protocolVersion, 1);
    assert.equal((result._meta as any).agentVersion, "1.0.41");
    await client.close();
  });
});

test("waits for leader_ready when the leader registers before it is ready", async () => {
  await withLeader({ readyAfterMs: 50 }, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    assert.equal(client.registered.ready, true);
    assert.equal(client.registered.frame.ready, false);
    assert.ok(fake.log.some((e) => e.frame.type === "leader_ready"));
    await client.close();
  });
});

test("turns a register error frame into LEADER_PROTOCOL_ERROR carrying the leader's code and message", async () => {
  await withLeader({ registerError: { code: 3, message: "Registration timeout" } }, async (_fake, socketPath) => {
    await assert.rejects(connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 }), (err: unknown) => {
      assert.ok(isSeatError(err, "LEADER_PROTOCOL_ERROR"));
      assert.equal(err.context.leaderErrorCode, 3);
      assert.equal(err.context.leaderErrorMessage, "Registration timeout");
      return true;
    });
  });
});

test("refuses control when the leader lacks control_v1 or speaks another protocol, but still reports its versions", async () => {
  for (const registered of [{ leader_capabilities: { control_v1: false } }, { leader_protocol_version: 2 }]) {
    await withLeader({ registered }, async (fake, socketPath) => {
      const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
      assert.equal(client.registered.controlAvailable, false);
      await assert.rejects(client.control({ type: "get_leader_info" }), (e) => isSeatError(e, "LEADER_PROTOCOL_ERROR"));
      assert.ok(!fake.log.some((e) => e.frame.type === "control"), "no control frame was sent");
      await client.close();
    });
  }
});

test("rejects a control command the leader answers with Err", async () => {
  await withLeader({}, async (_fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    await assert.rejects(client.control({ type: "start_cpu_profile" }), (err: unknown) => {
      assert.ok(isSeatError(err, "LEADER_CONTROL_FAILED"));
      assert.match(String(err.context.err), /unsupported control command/);
      return true;
    });
    await client.close();
  });
});

test("reports LEADER_SOCKET_GONE when no socket exists at the path", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-leader-"));
  try {
    await assert.rejects(
      connectLeader({ socketPath: join(dir, "absent.sock"), clientType: "grok-seat", timeoutMs: 2000 }),
      (err: unknown) => {
        assert.ok(isSeatError(err, "LEADER_SOCKET_GONE"));
        assert.equal(err.context.errno, "ENOENT");
        return true;
      },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("times out with LEADER_TIMEOUT when the peer accepts but never answers register", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gs-leader-"));
  const socketPath = join(dir, "mute.sock");
  const sockets: Socket[] = [];
  const server = createServer((s) => void sockets.push(s));
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    await assert.rejects(connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 200 }), (e) =>
      isSeatError(e, "LEADER_TIMEOUT"),
    );
  } finally {
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
});

test("times out a ping the leader never answers", async () => {
  await withLeader({ silentPong: true }, async (_fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    await assert.rejects(client.ping({ timeoutMs: 100 }), (e) => isSeatError(e, "LEADER_TIMEOUT"));
    await client.close();
  });
});

test("ends the stream and fails pending requests with LEADER_FRAME_INVALID on an oversized frame", async () => {
  await withLeader({ control: () => undefined }, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    const pending = client.control({ type: "get_leader_info" });
    fake.injectOversized(await fake.peer());
    await assert.rejects(pending, (e) => isSeatError(e, "LEADER_FRAME_INVALID"));
    const closed = await client.closed;
    assert.ok(isSeatError(closed.error, "LEADER_FRAME_INVALID"));
    assert.deepEqual(await readMessages(client, 1), []);
  });
});

test("reports a truncated frame at end of stream as LEADER_FRAME_INVALID", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    fake.injectTruncated(await fake.peer());
    const closed = await client.closed;
    assert.ok(isSeatError(closed.error, "LEADER_FRAME_INVALID"));
    assert.match(closed.error!.message, /ended in the middle of a frame/);
  });
});

test("treats an acp payload that is not a JSON-RPC string as an invalid frame", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    (await fake.peer()).send({ type: "acp", payload: { jsonrpc: "2.0", method: "x" } });
    const closed = await client.closed;
    assert.ok(isSeatError(closed.error, "LEADER_FRAME_INVALID"));
  });
});

test("ends the stream without reconnecting when the leader closes the socket", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    const peer = await fake.peer();
    peer.send({ type: "shutting_down", reason: "manual", delay_ms: 0 });
    peer.socket.end();
    const closed = await client.closed;
    assert.ok(isSeatError(closed.error, "LEADER_SOCKET_GONE"));
    assert.deepEqual(closed.shutdownNotice, { type: "shutting_down", reason: "manual", delay_ms: 0 });
    assert.deepEqual(await readMessages(client, 1), []);
    await assert.rejects(send(client, { jsonrpc: "2.0", id: 1, method: "initialize", params: {} }), (e) =>
      isSeatError(e, "LEADER_SOCKET_GONE"),
    );
    assert.equal(fake.peers.length, 1, "exactly one connection was ever made");
  });
});

test("close sends disconnect, resolves closed without an error and refuses later requests", async () => {
  await withLeader({}, async (fake, socketPath) => {
    const client = await connectLeader({ socketPath, clientType: "grok-seat", timeoutMs: 5000 });
    const closed = await client.close();
    assert.equal(closed.error, null);
    assert.equal(fake.log.at(-1)!.frame.type, "disconnect");
    await assert.rejects(client.ping(), (e) => isSeatError(e, "LEADER_SOCKET_GONE"));
  });
});
