/*
 * Fake leader: a real unix-socket peer that speaks grok's leader framing, for message-level tests.
 * Owns: a listening socket (+ optional lock file holding our pid), register/registered, control
 *   get_leader_info, ping/pong, acp payload routing to a scripted scenario, and fault injection
 *   (error frames, oversized length, truncated frame, garbage payload).
 * Does not own: being grok. Normal-path frames mirror transcripts/transcript-leader1.ndjson (grok
 *   1.0.41); its framing is decoded here independently of src/leader so a decoder bug is not symmetric.
 * Invariant: every frame in either direction is recorded in `log` in the transcript's `{dir, frame}`
 *   form ("out" = client → leader, "in" = leader → client), acp payloads parsed.
 */
import { createServer, type Server, type Socket } from "node:net";
import { writeFileSync, rmSync } from "node:fs";

/** One JSON-RPC message as the fake sees it. */
export type JsonRpc = {
  jsonrpc: "2.0";
  id?: string | number | null;
  method?: string;
  params?: any;
  result?: any;
  error?: any;
};
/** One recorded frame; acp frames carry the parsed payload in `message`. */
export interface LoggedFrame {
  dir: "in" | "out";
  clientId: number;
  frame: Record<string, any>;
  message?: JsonRpc;
}
/** Answers one client request (or notification) with the messages to send back, in order. */
export type FakeResponder = (message: JsonRpc, peer: FakeLeaderPeer) => JsonRpc[] | Promise<JsonRpc[]>;
/** Scripted replies per ACP method; methods not listed answer -32601 (requests) or nothing (notifications). */
export type FakeScenario = Record<string, FakeResponder>;

/** Options for startFakeLeader. */
export interface FakeLeaderOptions {
  socketPath: string;
  /** Fields merged over the transcript's `registered` frame (e.g. `leader_protocol_version: 2`). */
  registered?: Record<string, unknown>;
  /** Send `registered{ready:false}` and `leader_ready` this many ms later. */
  readyAfterMs?: number;
  /** Answer `register` with this error frame instead of `registered`. */
  registerError?: { code: number; message: string };
  /** Answer control commands; return undefined to stay silent. Default: get_leader_info Ok, others Err. */
  control?: (command: Record<string, any>) => { Ok: unknown } | { Err: unknown } | undefined;
  /** Do not answer pings. */
  silentPong?: boolean;
  /** Write `<socket without extension>.lock` holding this pid (default: no lock file). */
  lockPid?: number;
  /** Per-method replies merged over the default transcript-shaped scenario. */
  scenario?: FakeScenario;
}

/** One connected client as seen by the fake. */
export interface FakeLeaderPeer {
  readonly clientId: number;
  readonly socket: Socket;
  send(frame: Record<string, unknown>): void;
  sendAcp(message: JsonRpc): void;
  sendRaw(bytes: Uint8Array): void;
}

/** A running fake leader. */
export interface FakeLeader {
  readonly socketPath: string;
  readonly lockPath: string;
  readonly log: LoggedFrame[];
  readonly peers: FakeLeaderPeer[];
  /** Resolves with the n-th (0-based) peer once it has registered. */
  peer(index?: number): Promise<FakeLeaderPeer>;
  /** Sends a frame whose announced length exceeds 64 MiB (no body follows). */
  injectOversized(peer: FakeLeaderPeer): void;
  /** Sends the first half of a valid frame, then ends the socket. */
  injectTruncated(peer: FakeLeaderPeer): void;
  close(): Promise<void>;
}

/** Frames a JSON object the way grok does: u32 big-endian length + UTF-8 JSON. */
export function frameBytes(frame: Record<string, unknown>): Buffer {
  const body = Buffer.from(JSON.stringify(frame), "utf8");
  const header = Buffer.alloc(4);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

/** The `registered` frame grok 1.0.41 sent in transcript-leader1. */
export const TRANSCRIPT_REGISTERED = {
  type: "registered",
  client_id: 1,
  ready: true,
  leader_protocol_version: 1,
  leader_binary_version: "1.0.41",
  leader_capabilities: {
    control_v1: true,
    runtime_cpu_profile: true,
    profile_formats: [],
    workspace_exposure: true,
    relaunch_v1: true,
    cursor_worker: true,
  },
};

/** Starts a fake leader listening on `options.socketPath`. */
export async function startFakeLeader(options: FakeLeaderOptions): Promise<FakeLeader> {
  const log: LoggedFrame[] = [];
  const peers: FakeLeaderPeer[] = [];
  const waiters: Array<() => void> = [];
  const scenario: FakeScenario = { ...defaultScenario(), ...options.scenario };
  const lockPath = `${options.socketPath.replace(/\.sock$/, "")}.lock`;
  const sockets = new Set<Socket>();
  let nextClientId = 1;

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    const clientId = nextClientId++;
    const send = (frame: Record<string, unknown>, message?: JsonRpc) => {
      log.push({ dir: "in", clientId, frame, ...(message ? { message } : {}) });
      if (!socket.destroyed) socket.write(frameBytes(frame));
    };
    const peer: FakeLeaderPeer = {
      clientId,
      socket,
      send: (frame) => send(frame),
      sendAcp: (message) => send({ type: "acp", payload: JSON.stringify(message) }, message),
      sendRaw: (bytes) => void (!socket.destroyed && socket.write(bytes)),
    };
    let registered = false;
    let buffer = Buffer.alloc(0);
    let queue = Promise.resolve();
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (buffer.length >= 4 && buffer.length >= 4 + buffer.readUInt32BE(0)) {
        const length = buffer.readUInt32BE(0);
        const frame = JSON.parse(buffer.subarray(4, 4 + length).toString("utf8"));
        buffer = buffer.subarray(4 + length);
        const message = frame.type === "acp" ? (JSON.parse(frame.payload) as JsonRpc) : undefined;
        log.push({ dir: "out", clientId, frame, ...(message ? { message } : {}) });
        queue = queue.then(() => handle(frame, message)).catch(() => void socket.destroy());
      }
    });

    async function handle(frame: Record<string, any>, message: JsonRpc | undefined): Promise<void> {
      if (!registered) {
        if (frame.type !== "register") return send({ type: "error", code: 1, message: "Expected Register message" });
        if (options.registerError) {
          send({ type: "error", ...options.registerError });
          return void socket.end();
        }
        registered = true;
        const delayed = options.readyAfterMs !== undefined;
        send({
          ...TRANSCRIPT_REGISTERED,
          client_id: clientId,
          ...options.registered,
          ...(delayed ? { ready: false } : {}),
        });
        if (delayed) setTimeout(() => send({ type: "leader_ready" }), options.readyAfterMs);
        peers.push(peer);
        waiters.splice(0).forEach((wake) => wake());
        return;
      }
      switch (frame.type) {
        case "register":
          return send({ type: "error", code: 2, message: "Already registered" });
        case "ping":
          return options.silentPong ? undefined : send({ type: "pong" });
        case "disconnect":
          return void socket.end();
        case "control": {
          const result = (options.control ?? defaultControl(options.socketPath, lockPath))(frame.command);
          if (result !== undefined) send({ type: "control_result", request_id: frame.request_id, result });
          return;
        }
        case "acp": {
          const responder = scenario[message!.method ?? ""];
          if (responder) for (const reply of await responder(message!, peer)) peer.sendAcp(reply);
          else if (message!.id !== undefined && message!.method) {
            peer.sendAcp({ jsonrpc: "2.0", id: message!.id, error: { code: -32601, message: "Method not found" } });
          }
          return;
        }
      }
    }
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => resolve());
  });
  if (options.lockPid !== undefined) writeFileSync(lockPath, String(options.lockPid));

  return {
    socketPath: options.socketPath,
    lockPath,
    log,
    peers,
    peer: (index = 0) =>
      new Promise((resolve) => {
        const check = () => (peers[index] ? resolve(peers[index]!) : waiters.push(check));
        check();
      }),
    injectOversized: (peer) => {
      const header = Buffer.alloc(4);
      header.writeUInt32BE(64 * 1024 * 1024 + 1, 0);
      peer.sendRaw(header);
    },
    injectTruncated: (peer) => {
      const bytes = frameBytes({ type: "acp", payload: JSON.stringify({ jsonrpc: "2.0", method: "x" }) });
      peer.sendRaw(bytes.subarray(0, Math.floor(bytes.length / 2)));
      peer.socket.end();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(lockPath, { force: true });
    },
  };
}

function defaultControl(socketPath: string, lockPath: string) {
  return (command: Record<string, any>) =>
    command.type === "get_leader_info"
      ? {
          Ok: {
            type: "leader_info",
            pid: process.pid,
            socket_path: socketPath,
            lock_path: lockPath,
            ws_url_suffix: "",
            leader_protocol_version: 1,
            leader_binary_version: "1.0.41",
            profiling_supported: true,
            profiling_compiled_in: true,
            cpu_profile_active: false,
            cpu_profile_stopping: false,
            profile_started_at: null,
            profile_formats: [],
            cursor_worker: { state: "none", claims: 0, doors: [] },
          },
        }
      : { Err: `unsupported control command ${String(command.type)}` };
}

const note = (method: string, params: unknown): JsonRpc => ({ jsonrpc: "2.0", method, params });
const setup = (phase: string, sessionId: string | null) =>
  note("_x.ai/session/setup", { method: "session/new", phase, sessionId });
const commands = (sessionId: string) =>
  note("session/update", {
    sessionId,
    update: {
      sessionUpdate: "available_commands_update",
      availableCommands: [{ name: "compact", description: "Compress conversation history" }],
    },
  });
const xnote = (sessionId: string, update: Record<string, unknown>, meta?: Record<string, unknown>) =>
  note("_x.ai/session_notification", { sessionId, update, ...(meta ? { _meta: meta } : {}) });

/** The default scenario: replies shaped like grok 1.0.41 in transcript-leader1 / transcript-tui-attach. */
export function defaultScenario(reply = "pong from mock"): FakeScenario {
  let sessionCounter = 0;
  return {
    initialize: (m) => [
      {
        jsonrpc: "2.0",
        id: m.id,
        result: {
          protocolVersion: 1,
          agentCapabilities: {
            loadSession: true,
            promptCapabilities: { image: false, audio: false, embeddedContext: true },
            mcpCapabilities: { http: true, sse: true },
            sessionCapabilities: { list: {}, resume: {}, close: {} },
            auth: {},
          },
          authMethods: [
            { id: "xai.api_key", name: "xai.api_key", description: "XAI_API_KEY or api_key/env_key in config.toml" },
            { id: "grok.com", name: "Grok", description: "Sign in with Grok" },
          ],
          _meta: { grokShell: true, defaultAuthMethodId: "xai.api_key", agentVersion: "1.0.41" },
        },
      },
    ],
    authenticate: (m) => [
      note("_x.ai/mcp/servers_updated", { mcpServers: [] }),
      { jsonrpc: "2.0", id: m.id, result: {} },
    ],
    "session/new": (m) => {
      const sessionId = `01a22987-7204-7bc1-959d-a2c69f3c${String(++sessionCounter).padStart(4, "0")}`;
      return [
        ...["auth", "resolve_workspace", "folder_trust", "plugin_registry", "mcp_merge"].map((p) => setup(p, null)),
        {
          jsonrpc: "2.0",
          id: m.id,
          result: {
            sessionId,
            models: { currentModelId: "mock", availableModels: [{ modelId: "mock", name: "Mock" }] },
          },
        },
        ...["git_discovery", "finalize_response", "tool_overrides", "response_ready"].map((p) => setup(p, sessionId)),
      ];
    },
    "session/resume": (m) => [
      {
        jsonrpc: "2.0",
        id: m.id,
        result: { models: { currentModelId: "mock", availableModels: [{ modelId: "mock", name: "Mock" }] } },
      },
    ],
    "session/prompt": (m) => {
      const sessionId: string = m.params.sessionId;
      const promptId: string = m.params._meta?.promptId ?? `prompt-${String(m.id)}`;
      const text: string = m.params.prompt?.[0]?.text ?? "";
      const words = reply.split(" ").map((w, i, all) => (i < all.length - 1 ? `${w} ` : w));
      const changed = (activity: string) =>
        note("_x.ai/sessions/changed", { upserted: [{ sessionId, activity }], removed: [] });
      return [
        note("_x.ai/mcp_initialized", { sessionId, mcpToolCount: 0, elapsedMs: 0 }),
        commands(sessionId),
        commands(sessionId),
        changed("working"),
        note("_x.ai/queue/changed", {
          sessionId,
          entries: [{ id: promptId, version: 0, kind: "prompt", text, position: 0 }],
        }),
        note("_x.ai/queue/changed", {
          sessionId,
          entries: [],
          runningPromptId: promptId,
          runningText: text,
          runningKind: "prompt",
        }),
        xnote(sessionId, { sessionUpdate: "session_summary_generated", session_summary: text }),
        note("session/update", { sessionId, update: { sessionUpdate: "session_info_update", title: text } }),
        ...words.map((w, i) =>
          note("session/update", {
            sessionId,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: w } },
            _meta: { promptId, chunkId: i + 1 },
          }),
        ),
        commands(sessionId),
        xnote(sessionId, { sessionUpdate: "response_completed", usage: { input_tokens: 11, output_tokens: 3 } }),
        note("_x.ai/queue/changed", { sessionId, entries: [] }),
        xnote(sessionId, { sessionUpdate: "turn_completed", prompt_id: promptId, stop_reason: "end_turn" }),
        note("_x.ai/session/prompt_complete", { sessionId, promptId, stopReason: "end_turn", agentResult: null }),
        changed("idle"),
        {
          jsonrpc: "2.0",
          id: m.id,
          result: {
            stopReason: "end_turn",
            _meta: { sessionId, requestId: promptId, promptId, modelId: "mock-model" },
          },
        },
        xnote(sessionId, { sessionUpdate: "last_turn_summary", summary: reply, prompt_id: promptId }),
      ];
    },
  };
}
