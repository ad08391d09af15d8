// Records the golden ACP transcripts the tests replay and compare against, from the real grok binary.
// Usage: npm run record-transcripts   (builds first; writes test/fixtures/transcripts/)
//
// Owns: driving the pinned grok (provisioned from npm by dist/src/grok) against the scripted loopback mock
//   model in a throwaway HOME/GROK_HOME, inside `unshare -rn` when the machine allows it; recording every
//   message in both directions as NDJSON ({"dir":"out"|"in","msg":…}; out = client → grok); normalising what
//   changes from run to run (ids, timestamps, temp paths, ports, pids, durations) so a re-recording diffs
//   cleanly.
// Does not own: what the tests assert about the transcripts (test/), the mock's behaviour (src/mock-model/).
// Invariant: reads nothing outside the repository and its own temp dirs; never touches the real ~/.grok.
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outDir = join(root, "test", "fixtures", "transcripts");
const dist = (p) => new URL(`../dist/src/${p}`, import.meta.url).href;
const { ensureGrokBinary, buildAgentArgv, buildAgentEnv, PINNED_GROK_VERSION } = await import(dist("grok/index.js"));
const { startMockModel, createSandbox, runInLoopbackNamespace } = await import(dist("testing.js"));
const { encodeFrame, FrameDecoder, acpFrame, buildRegisterFrame } = await import(dist("leader/index.js"));

// Hermetic network: re-run inside a fresh user+network namespace (loopback only) when possible.
if (process.env.GROK_SEAT_NETNS !== "1") {
  const status = runInLoopbackNamespace([process.execPath, fileURLToPath(import.meta.url), ...process.argv.slice(2)]);
  if (status !== undefined) process.exit(status);
  console.log("record-transcripts: `unshare -rn` is unavailable here; recording on loopback only");
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const QUIET_MS = 400;
const STEP_TIMEOUT_MS = 30_000;

// ---- normalisation ---------------------------------------------------------------------------------

/** Replaces what differs between runs with stable placeholders; `ctx` carries per-transcript id maps. */
function normaliser(sandbox, mock, extraPaths = []) {
  const paths = [
    ...extraPaths,
    [sandbox.project, "/home/dev/project"],
    [sandbox.grokHome, "/home/dev/.grok"],
    [sandbox.home, "/home/dev"],
    [sandbox.root, "/home/dev/sandbox"],
  ].sort((a, b) => b[0].length - a[0].length);
  const ids = new Map();
  const stable = (raw, make) => {
    if (!ids.has(raw)) ids.set(raw, make(ids.size + 1));
    return ids.get(raw);
  };
  const uuid = /\b[0-9a-f]{8}-[0-9a-f]{4}-([0-9a-f])[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
  const hex = /\b[0-9a-f]{16,64}\b/g;
  const iso = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?/g;
  const text = (s) => {
    for (const [from, to] of paths) {
      s = s.split(from).join(to).split(encodeURIComponent(from)).join(encodeURIComponent(to));
    }
    s = s
      .split(`127.0.0.1:${mock.port}`)
      .join("127.0.0.1:18080")
      .split(`localhost:${mock.port}`)
      .join("localhost:18080");
    s = s.replace(uuid, (m, v) =>
      stable(m.toLowerCase(), (n) => `00000000-0000-${v}000-8000-${String(n).padStart(12, "0")}`),
    );
    s = s.replace(hex, (m) => stable(m, (n) => String(n).padStart(m.length, "0")));
    return s.replace(iso, "2026-01-01T00:00:00.000Z");
  };
  const volatileNumber = /(?:^pid$|ms$|_at$|At$|[tT]ime$|timestamp|elapsed|duration|^created$)/i;
  const walk = (value, key) => {
    if (typeof value === "string") return key === "hostname" ? "example-host" : text(value);
    if (typeof value === "number") {
      if (key === "pid") return 4242;
      if (key !== undefined && volatileNumber.test(key)) return 0;
      if (value > 1e12 && value < 1e13) return 1767225600000; // epoch milliseconds
      return value;
    }
    if (Array.isArray(value)) return value.map((v) => walk(v, key));
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [text(k), walk(v, k)]));
    return value;
  };
  return (line) => walk(line);
}

// ---- peers -----------------------------------------------------------------------------------------

/** A recording JSON-RPC peer over some byte transport; answers permission requests with allow_always. */
class Recorder {
  lines = [];
  #pending = new Map();
  #nextId;
  #send;
  #lastAt = Date.now();
  #waiters = [];

  constructor(send, firstId) {
    this.#send = send;
    this.#nextId = firstId;
  }

  /** Records one message as sent (as it appears in the transcript). */
  recordOut(msg) {
    this.lines.push({ dir: "out", msg });
  }

  /** Feeds one received JSON-RPC message. */
  received(msg, recorded = msg) {
    this.lines.push({ dir: "in", msg: recorded });
    this.#lastAt = Date.now();
    if ("id" in msg && !("method" in msg) && this.#pending.has(msg.id)) {
      this.#pending.get(msg.id)(msg);
      this.#pending.delete(msg.id);
    } else if ("id" in msg && msg.method === "session/request_permission") {
      const option =
        msg.params.options.find((o) => o.kind === "allow_always") ??
        msg.params.options.find((o) => o.kind.startsWith("allow"));
      this.write({
        jsonrpc: "2.0",
        id: msg.id,
        result: { outcome: { outcome: "selected", optionId: option.optionId } },
      });
    } else if ("id" in msg && "method" in msg) {
      this.write({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "not handled by the recorder" } });
    }
    this.#waiters = this.#waiters.filter((w) => !w(msg));
  }

  write(msg) {
    this.#send(msg);
  }

  /** Sends a request and resolves with its answer (result or error), never rejecting on a JSON-RPC error. */
  request(method, params) {
    const id = this.#nextId++;
    const answer = new Promise((resolve, reject) => {
      this.#pending.set(id, resolve);
      setTimeout(
        () => reject(new Error(`no answer to ${method} (id ${id}) in ${STEP_TIMEOUT_MS} ms`)),
        STEP_TIMEOUT_MS,
      ).unref();
    });
    this.write({ jsonrpc: "2.0", id, method, params });
    return answer;
  }

  notify(method, params) {
    this.write({ jsonrpc: "2.0", method, params });
  }

  /** Resolves when a received message satisfies `pred` (or one already did). */
  waitFor(pred, what) {
    if (this.lines.some((l) => l.dir === "in" && pred(l.msg))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), STEP_TIMEOUT_MS);
      this.#waiters.push((msg) => (pred(msg) ? (clearTimeout(timer), resolve(), true) : false));
    });
  }

  /** Resolves once nothing has arrived for QUIET_MS, so late notifications land before the next step. */
  async quiet() {
    while (Date.now() - this.#lastAt < QUIET_MS) await sleep(50);
  }
}

function lineReader(stream, onLine) {
  let buffered = "";
  stream.on("data", (chunk) => {
    buffered += chunk.toString("utf8");
    let nl;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, nl).trim();
      buffered = buffered.slice(nl + 1);
      if (line) onLine(line);
    }
  });
}

function startGrok(argv, sandbox) {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: sandbox.project,
    env: buildAgentEnv({ PATH: process.env.PATH ?? "/usr/bin:/bin" }, sandbox.env),
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise((r) => child.on("exit", r));
  return {
    child,
    stderr: () => stderr,
    async stop() {
      child.stdin.end();
      const graceful = await Promise.race([exited.then(() => true), sleep(3000).then(() => false)]);
      for (const signal of graceful ? ["SIGKILL"] : ["SIGTERM", "SIGKILL"]) {
        try {
          process.kill(-child.pid, signal);
        } catch {
          /* the group is gone */
        }
        if (signal === "SIGTERM") await Promise.race([exited, sleep(2000)]);
      }
      await exited;
    },
  };
}

/** Runs `body` against `grok agent --no-leader stdio` and returns the recorded lines. */
async function recordStdio(binary, sandbox, body) {
  const grok = startGrok(buildAgentArgv({ binary }), sandbox);
  const peer = new Recorder((msg) => {
    peer.recordOut(msg);
    grok.child.stdin.write(`${JSON.stringify(msg)}\n`);
  }, 1);
  lineReader(grok.child.stdout, (line) => peer.received(JSON.parse(line)));
  try {
    await body(peer);
    await peer.quiet();
  } catch (error) {
    throw new Error(`${error.message}\n--- grok stderr ---\n${grok.stderr()}`);
  } finally {
    await grok.stop();
  }
  return peer.lines;
}

/** Runs `body` against a standalone `grok agent leader` over its socket, recording frames as the leader files do. */
async function recordLeader(binary, sandbox, body) {
  const socketPath = join(sandbox.grokHome, "leader.sock");
  const grok = startGrok(
    [binary, "agent", "--always-approve", "leader", "--no-exit-on-disconnect", "--no-auto-update"],
    sandbox,
  );
  const deadline = Date.now() + STEP_TIMEOUT_MS;
  let socket;
  while (!socket) {
    socket = await new Promise((resolve) => {
      const s = createConnection(socketPath);
      s.once("connect", () => resolve(s));
      s.once("error", () => resolve(undefined));
    });
    if (!socket) {
      if (Date.now() > deadline) throw new Error(`the leader never served ${socketPath}\n${grok.stderr()}`);
      await sleep(100);
    }
  }
  const peer = new Recorder((msg) => {
    peer.recordOut({ __leader_frame: "acp", payload: msg });
    socket.write(encodeFrame(acpFrame(msg)));
  }, 100);
  const decoder = new FrameDecoder();
  const frameWaiters = [];
  socket.on("data", (chunk) => {
    for (const frame of decoder.push(chunk)) {
      if (frame.type === "acp") {
        const msg = JSON.parse(frame.payload);
        peer.received(msg, { __leader_frame: "acp", payload: msg });
      } else {
        peer.lines.push({ dir: "in", msg: { __leader_frame: frame } });
        for (const w of frameWaiters.splice(0)) w(frame);
      }
    }
  });
  const nextFrame = (type) =>
    new Promise((resolve) => {
      const check = (frame) => (frame.type === type ? resolve(frame) : frameWaiters.push(check));
      frameWaiters.push(check);
    });
  // Out-going raw frames go into the same ordered list as ACP messages.
  const raw = (frame) => {
    peer.lines.push({ dir: "out", msg: { __leader_frame: frame } });
    socket.write(encodeFrame(frame));
  };
  try {
    const registered = nextFrame("registered");
    raw(buildRegisterFrame("grok-seat-recorder", null));
    await registered;
    await body(peer, { raw, nextFrame });
    await peer.quiet();
    raw({ type: "disconnect" });
    await sleep(200);
  } catch (error) {
    throw new Error(`${error.message}\n--- grok stderr ---\n${grok.stderr()}`);
  } finally {
    socket.destroy();
    await grok.stop();
  }
  return peer.lines;
}

// ---- scenarios -------------------------------------------------------------------------------------

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
};
const turnSummary = (m) =>
  m.method === "_x.ai/session_notification" && m.params?.update?.sessionUpdate === "last_turn_summary";

const SCRIPT = {
  rules: [
    {
      match: "TOOLTEST",
      replies: [
        {
          toolCalls: [
            { name: "write", arguments: { file_path: "{{project}}/hello.txt", content: "hi from mock tool\n" } },
          ],
        },
        { text: "wrote hello.txt for you" },
      ],
    },
  ],
};

/** The scenarios: file name → how to set up and what to say. */
const scenarios = [
  {
    file: "transcript-init.ndjson",
    about: "stdio, no credential configured: initialize, then session/new refused for missing authentication",
    noCredentials: true,
    run: (binary, sandbox) =>
      recordStdio(binary, sandbox, async (peer) => {
        await peer.request("initialize", INIT);
        await peer.quiet();
        await peer.request("session/new", { cwd: sandbox.project, mcpServers: [] });
      }),
  },
  {
    file: "transcript-prompt.ndjson",
    about:
      "stdio: initialize, authenticate, session/new with yoloMode, one prompt caller-prompt-0001 and its whole turn",
    run: (binary, sandbox) =>
      recordStdio(binary, sandbox, async (peer) => {
        await peer.request("initialize", INIT);
        await peer.quiet();
        await peer.request("authenticate", { methodId: "xai.api_key" });
        await peer.quiet();
        const created = await peer.request("session/new", {
          cwd: sandbox.project,
          mcpServers: [],
          _meta: { yoloMode: true },
        });
        await peer.quiet();
        const sessionId = created.result.sessionId;
        await peer.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "say pong" }],
          _meta: { promptId: "caller-prompt-0001" },
        });
        await peer.waitFor(turnSummary, "last_turn_summary");
      }),
  },
  {
    file: "transcript-tool.ndjson",
    about:
      "stdio: a TOOLTEST prompt, a streamed write call, permission request id 0 allowed, completion; then set_mode, set_model, session/list, _x.ai/session/info vs x.ai/session/info, cancel, close",
    run: (binary, sandbox) =>
      recordStdio(binary, sandbox, async (peer) => {
        await peer.request("initialize", INIT);
        await peer.quiet();
        await peer.request("authenticate", { methodId: "xai.api_key" });
        await peer.quiet();
        const created = await peer.request("session/new", { cwd: sandbox.project, mcpServers: [] });
        await peer.quiet();
        const sessionId = created.result.sessionId;
        await peer.request("session/prompt", {
          sessionId,
          prompt: [{ type: "text", text: "TOOLTEST write a file" }],
          _meta: { promptId: "tool-1" },
        });
        await peer.waitFor(turnSummary, "last_turn_summary");
        await peer.quiet();
        for (const [method, params] of [
          ["session/set_mode", { sessionId, modeId: "plan" }],
          ["session/set_model", { sessionId, modelId: "grok-4.5" }],
          ["session/list", {}],
          ["_x.ai/session/info", { sessionId }],
          ["x.ai/session/info", { sessionId }],
        ]) {
          await peer.request(method, params);
          await peer.quiet();
        }
        peer.notify("session/cancel", { sessionId });
        await peer.request("session/close", { sessionId });
      }),
  },
  {
    file: "transcript-meta.ndjson",
    about:
      "stdio: session/new with _meta sessionId, pluginDirs, rules, yoloMode, modelId; set_config_option; _x.ai/skills/list without cwd; _x.ai/commands/list; a non-UUID _meta.sessionId",
    plugin: true,
    run: (binary, sandbox, pluginDir) =>
      recordStdio(binary, sandbox, async (peer) => {
        await peer.request("initialize", INIT);
        await peer.quiet();
        await peer.request("authenticate", { methodId: "xai.api_key" });
        await peer.quiet();
        const sessionId = "0199bbbb-0000-7000-8000-000000000001";
        await peer.request("session/new", {
          cwd: sandbox.project,
          mcpServers: [],
          _meta: {
            sessionId,
            pluginDirs: [pluginDir],
            rules: "Always answer tersely.",
            yoloMode: true,
            modelId: "mock",
          },
        });
        await peer.quiet();
        for (const [method, params] of [
          ["session/set_config_option", { sessionId, configId: "model", value: "grok-4.5" }],
          ["_x.ai/skills/list", { sessionId }],
          ["_x.ai/commands/list", { sessionId }],
          ["session/new", { cwd: sandbox.project, mcpServers: [], _meta: { sessionId: "not-a-uuid" } }],
        ]) {
          await peer.request(method, params);
          await peer.quiet();
        }
      }),
  },
  {
    file: "transcript-leader1.ndjson",
    about:
      "leader frames against a standalone `grok agent --always-approve leader`: register, initialize, authenticate, session/new, ping, control get_leader_info, prompt ctl-prompt-1, disconnect",
    run: (binary, sandbox) =>
      recordLeader(binary, sandbox, async (peer, { raw, nextFrame }) => {
        await peer.request("initialize", INIT);
        await peer.quiet();
        await peer.request("authenticate", { methodId: "xai.api_key" });
        await peer.quiet();
        const created = await peer.request("session/new", { cwd: sandbox.project, mcpServers: [] });
        await peer.quiet();
        const pong = nextFrame("pong");
        raw({ type: "ping" });
        await pong;
        const info = nextFrame("control_result");
        raw({ type: "control", request_id: "c1", command: { type: "get_leader_info" } });
        await info;
        await peer.request("session/prompt", {
          sessionId: created.result.sessionId,
          prompt: [{ type: "text", text: "say pong" }],
          _meta: { promptId: "ctl-prompt-1" },
        });
        await peer.waitFor(turnSummary, "last_turn_summary");
      }),
  },
];

// ---- main ------------------------------------------------------------------------------------------

const binary = (await ensureGrokBinary()).path;
console.log(
  `record-transcripts: grok ${PINNED_GROK_VERSION} at ${binary.startsWith(root) ? binary.slice(root.length + 1) : "(outside the repository)"}`,
);
const only = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const recorded = {};
for (const scenario of scenarios) {
  if (only.length > 0 && !only.some((o) => scenario.file.includes(o))) continue;
  const mock = await startMockModel({ script: {} });
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl, prefix: "gs-record-" });
  const pluginDir = join(sandbox.root, "plugins", "demo-plugin");
  try {
    mock.setScript(JSON.parse(JSON.stringify(SCRIPT).split("{{project}}").join(sandbox.project)));
    if (scenario.noCredentials)
      writeFileSync(
        join(sandbox.grokHome, "config.toml"),
        "[cli]\nauto_update = false\n[features]\ntelemetry = false\nremote_fetch = false\n",
      );
    if (scenario.plugin) {
      mkdirSync(join(pluginDir, "skills", "hello-skill"), { recursive: true });
      writeFileSync(
        join(pluginDir, "plugin.json"),
        JSON.stringify({ name: "demo-plugin", version: "0.0.1", description: "Recorder demo plugin" }, null, 2),
      );
      writeFileSync(
        join(pluginDir, "skills", "hello-skill", "SKILL.md"),
        "---\nname: hello-skill\ndescription: Says hello.\n---\nSay hello.\n",
      );
    }
    const lines = await scenario.run(binary, sandbox, pluginDir);
    const normalise = normaliser(sandbox, mock, [[pluginDir, "/home/dev/plugins/demo-plugin"]]);
    const out = lines.map((l) => normalise(l));
    recorded[scenario.file] = out;
    writeFileSync(join(outDir, scenario.file), `${out.map((l) => JSON.stringify(l)).join("\n")}\n`);
    console.log(`record-transcripts: ${scenario.file}: ${out.length} messages`);
  } finally {
    await mock.close();
    sandbox.cleanup();
  }
}

// Single responses the fake's tests compare shapes with, cut from the prompt and init transcripts.
const answerTo = (file, method) => {
  const lines = recorded[file];
  if (!lines) return undefined;
  const request = lines.find((l) => l.dir === "out" && l.msg.method === method);
  return lines.find((l) => l.dir === "in" && l.msg.id === request.msg.id && !("method" in l.msg))?.msg;
};
for (const [name, file, method] of [
  ["initialize-response-1.0.41-byok.json", "transcript-prompt.ndjson", "initialize"],
  ["initialize-response-1.0.41-noauth.json", "transcript-init.ndjson", "initialize"],
  ["session-new-response-1.0.41.json", "transcript-prompt.ndjson", "session/new"],
  ["session-prompt-response-1.0.41.json", "transcript-prompt.ndjson", "session/prompt"],
]) {
  const answer = answerTo(file, method);
  if (answer) writeFileSync(join(outDir, name), `${JSON.stringify(answer, null, 2)}\n`);
}
console.log(`record-transcripts: wrote ${outDir.slice(root.length + 1)}`);
