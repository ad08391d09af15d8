/*
 * Fake grok TUI for seat integration tests: `node seat-fake-tui.js --leader --leader-socket S --session-id U`.
 * Behaves like the TUI's process layout (grok-wire §14): writes $GROK_HOME/active_sessions.json naming
 * itself, and spawns a leader child (a fake-leader on S with its pid in S.lock) that outlives it.
 * `--version` prints `grok <GS_FAKE_VERSION|1.0.41> (…)`. `--gs-config <json>` (before grok's flags) shapes the leader:
 * registered, agentVersion, mcpServers, tools, configOptions, noEcho, leaderCwd, leaderExe, symlinkSocket, turn, auth, silentPong.
 * `turn` scripts session/prompt like grok's leader (bench/seat-crash.ts): each received prompt id is appended to
 * $GROK_HOME/fake-leader-prompts.log, runningPromptId comes after `queueDelayMs`, the result after `resultDelayMs`
 * more, and the turn goes on (persisted to $GROK_HOME/sessions/<cwd>/<session>/updates.jsonl) when the client is gone.
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startFakeLeader, type FakeLeaderPeer, type JsonRpc } from "../../fakes/fake-leader.js";

interface FakeConfig {
  registered?: Record<string, unknown>;
  agentVersion?: string;
  mcpServers?: unknown[];
  tools?: unknown[];
  configOptions?: Array<Record<string, any>>;
  noEcho?: boolean;
  leaderCwd?: string;
  leaderExe?: string;
  symlinkSocket?: boolean;
  turn?: { queueDelayMs?: number; resultDelayMs?: number };
  /** Answer `authenticate` only after `delayMs` (never with `never`), appending a grok-shaped line for the leader pid to $GROK_HOME/logs/unified.jsonl every `logEveryMs`. */
  auth?: { delayMs?: number; logEveryMs?: number; never?: boolean };
  /** The leader does not answer pings. */
  silentPong?: boolean;
}

/** A slow `authenticate` like a busy grok's: working (it logs) before it answers, or silent and never answering. */
function slowAuthenticate(m: JsonRpc, peer: FakeLeaderPeer, auth: NonNullable<FakeConfig["auth"]>): JsonRpc[] {
  const logDir = join(process.env.GROK_HOME!, "logs");
  mkdirSync(logDir, { recursive: true });
  const started = Date.now();
  const ticker = auth.logEveryMs
    ? setInterval(
        () =>
          appendFileSync(
            join(logDir, "unified.jsonl"),
            `${JSON.stringify({ ts: new Date().toISOString(), src: "shell", pid: process.pid, ver: "1.0.41", lvl: "info", msg: "session.setup.phase", ctx: { phase: "mcp_merge", elapsed_ms: Date.now() - started } })}\n`,
          ),
        auth.logEveryMs,
      )
    : null;
  if (auth.never) return [];
  setTimeout(() => {
    if (ticker) clearInterval(ticker);
    peer.sendAcp({ jsonrpc: "2.0", id: m.id!, result: {} });
  }, auth.delayMs ?? 0);
  return [];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A scripted grok turn: recorded, acknowledged, persisted and answered on its own clock, client or not. */
function scriptedTurn(m: JsonRpc, peer: FakeLeaderPeer, turn: NonNullable<FakeConfig["turn"]>): JsonRpc[] {
  const sessionId: string = m.params.sessionId;
  const promptId: string = m.params._meta?.promptId ?? `prompt-${String(m.id)}`;
  const grokHome = process.env.GROK_HOME!;
  appendFileSync(join(grokHome, "fake-leader-prompts.log"), `${promptId}\n`);
  const dir = join(grokHome, "sessions", encodeURIComponent(process.cwd()), sessionId);
  mkdirSync(dir, { recursive: true });
  const emit = (method: string, params: Record<string, unknown>, persist: boolean) => {
    if (persist) appendFileSync(join(dir, "updates.jsonl"), `${JSON.stringify({ method, params })}\n`);
    peer.sendAcp({ jsonrpc: "2.0", method, params });
  };
  void (async () => {
    await sleep(turn.queueDelayMs ?? 0);
    emit(
      "_x.ai/queue/changed",
      { sessionId, entries: [], runningPromptId: promptId, runningText: "brief", runningKind: "prompt" },
      false,
    );
    emit(
      "session/update",
      {
        sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" } },
        _meta: { promptId },
      },
      true,
    );
    await sleep(turn.resultDelayMs ?? 0);
    emit(
      "_x.ai/session_notification",
      { sessionId, update: { sessionUpdate: "turn_completed", prompt_id: promptId, stop_reason: "end_turn" } },
      true,
    );
    emit("_x.ai/queue/changed", { sessionId, entries: [] }, false);
    peer.sendAcp({ jsonrpc: "2.0", id: m.id!, result: { stopReason: "end_turn", _meta: { sessionId, promptId } } });
  })();
  return [];
}

const argv = process.argv.slice(2);
const value = (flag: string) => {
  const i = argv.indexOf(flag);
  return i === -1 ? undefined : argv[i + 1];
};
// The config rides on argv (the seat passes the TUI an explicit allow-listed env) and on to the leader child via env.
const config: FakeConfig = JSON.parse(value("--gs-config") ?? process.env.GS_FAKE_CONFIG ?? "{}");

if (argv.includes("--version")) {
  process.stdout.write(`grok ${process.env.GS_FAKE_VERSION ?? "1.0.41"} (4220f3b224a6)\n`);
} else if (argv[0] === "--fake-leader") {
  const socketPath = argv[1]!;
  const listenPath = config.symlinkSocket ? `${socketPath}.real` : socketPath;
  const options = structuredClone(
    config.configOptions ?? [
      {
        id: "model",
        category: "model",
        type: "select",
        currentValue: "mock",
        options: [{ value: "mock" }, { value: "grok-4.5" }],
      },
      {
        id: "reasoning_effort",
        category: "thought_level",
        type: "select",
        currentValue: "high",
        options: [{ value: "high" }, { value: "low" }],
      },
    ],
  );
  const leader = await startFakeLeader({
    socketPath: listenPath,
    registered: config.registered ?? {},
    ...(config.silentPong ? { silentPong: true } : {}),
    scenario: {
      initialize: (m) => [
        {
          jsonrpc: "2.0",
          id: m.id,
          result: {
            protocolVersion: 1,
            agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
            authMethods: [{ id: "xai.api_key", name: "xai.api_key" }],
            _meta: {
              defaultAuthMethodId: "xai.api_key",
              agentVersion: config.agentVersion ?? "1.0.41",
              mcpServers: config.mcpServers ?? [],
            },
          },
        },
      ],
      "session/resume": (m) => [
        {
          jsonrpc: "2.0",
          id: m.id,
          result: {
            models: { currentModelId: "mock", availableModels: [{ modelId: "mock" }] },
            configOptions: options,
            _meta: { sessionId: m.params.sessionId },
          },
        },
      ],
      "_x.ai/commands/list": (m) => [
        { jsonrpc: "2.0", id: m.id, result: { commands: [], tools: config.tools ?? ["read_file", "write"] } },
      ],
      "session/set_config_option": (m): JsonRpc[] => {
        const option = options.find((o) => o.id === m.params.configId);
        if (option && !config.noEcho) option.currentValue = m.params.value;
        return [{ jsonrpc: "2.0", id: m.id, result: { configOptions: options } }];
      },
      ...(config.auth
        ? { authenticate: (m: JsonRpc, peer: FakeLeaderPeer) => slowAuthenticate(m, peer, config.auth!) }
        : {}),
      ...(config.turn
        ? { "session/prompt": (m: JsonRpc, peer: FakeLeaderPeer) => scriptedTurn(m, peer, config.turn!) }
        : {}),
    },
  });
  // grok's lock sits beside the socket path it was given and holds the leader pid.
  writeFileSync(`${socketPath}.lock`, String(process.pid));
  if (config.symlinkSocket) symlinkSync(listenPath, socketPath);
  const stop = () => void leader.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGHUP", () => {}); // the leader outlives the TUI's terminal
} else {
  const socketPath = value("--leader-socket")!;
  const sessionId = value("--session-id")!;
  const exe = config.leaderExe ?? process.execPath;
  // Like grok's TUI, the leader stays in the TUI's session (its sid is the TUI's pid) and ignores SIGHUP.
  const child = spawn(exe, [fileURLToPath(import.meta.url), "--fake-leader", socketPath], {
    cwd: config.leaderCwd ?? process.cwd(),
    detached: false,
    stdio: "ignore",
    env: { ...process.env, GS_FAKE_CONFIG: JSON.stringify(config) },
  });
  child.unref();
  const grokHome = process.env.GROK_HOME!;
  const entry = [{ session_id: sessionId, pid: process.pid, cwd: process.cwd(), opened_at: new Date().toISOString() }];
  writeFileSync(join(grokHome, "active_sessions.json.tmp"), JSON.stringify(entry, null, 2));
  renameSync(join(grokHome, "active_sessions.json.tmp"), join(grokHome, "active_sessions.json"));
  process.stdout.write("fake grok TUI ready\n");
  process.on("SIGHUP", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
  setInterval(() => {}, 1 << 30);
}
