/*
 * fake-grok: a real ACP agent process that behaves like `grok agent --no-leader stdio` 1.0.41 on its normal path.
 * Owns: the wire shapes recorded in the shared transcripts (initialize, authenticate, session/new with its
 *   `_x.ai/session/setup` phases and `_x.ai/mcp_initialized`, the prompt's queue/update/complete sequence,
 *   request_permission with reverse id 0, cancel) and the fault injection described by scenario files.
 * Does not own: what a scenario does — that is data in test/fakes/scenarios/<name>.json.
 * Usage: node fake-grok.js [--no-auto-update] agent [--no-leader] [--plugin-dir D]… [-m M] stdio
 *   env FAKE_GROK_SCENARIO=<name in scenarios/ | path to a .json file>   (default: normal)
 *   env FAKE_GROK_PID_FILE=<path>     grandchild scenarios write the grandchild pid here
 *   env FAKE_GROK_RECORD_FILE=<path>  the fake writes {pid, argv, pluginDirs, model, scenario} here at startup
 *   env FAKE_GROK_PROMPT_LOG=<path>   the fake appends one line (the promptId) per session/prompt it receives
 *   env FAKE_GROK_CHUNK_LOG=<path>    the fake appends `<promptId>\t<epoch ms, fractional>` just before each text chunk
 *   env FAKE_GROK_PERMISSION_LOG=<path>  the fake appends `asked\t<toolCallId>\t<epoch ms>` just before each
 *                                     request_permission and `answered\t<toolCallId>\t<epoch ms>` when its answer arrives
 *   A prompt whose text contains `scenario:<name>` plays that scenario's `prompt` section for that turn;
 *   a scenario's `keywords` map (text substring → scenario name) does the same (normal maps TOOLTEST → permission).
 * Invariant: stdout carries only protocol lines (and the deliberately broken ones a scenario asks for);
 *   logs go to stderr, like grok.
 */
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";

type StopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

/** A tool call a scenario plays: tool_call, then (permission) tool_call_update + request, then the final update. */
interface ToolStep {
  toolCallId?: string;
  title?: string;
  kind?: acp.ToolKind;
  rawInput?: Record<string, unknown>;
  /** Final status when no permission is involved (default completed). */
  status?: "completed" | "failed";
}

/** One scripted step of a turn. Exactly one key is set. */
interface Step {
  text?: string;
  chunkDelayMs?: number;
  thought?: string;
  tool?: ToolStep;
  permission?: ToolStep;
  plan?: acp.PlanEntry[];
  sleepMs?: number;
  rawLine?: string;
  oversizedTextBytes?: number;
  exit?: number;
  hang?: boolean;
}

/** How the fake answers session/prompt. */
interface PromptScript {
  steps?: Step[];
  stopReason?: StopReason;
  /** Never answer the prompt. */
  hang?: boolean;
  /** With hang: resolve `cancelled` on session/cancel (default true). */
  honourCancel?: boolean;
  /** Answer with this JSON-RPC error after the queue notifications. */
  error?: { code: number; message: string; data?: unknown };
  /** Echo this promptId in the result `_meta` instead of the caller's (bad-echo). */
  echoPromptId?: string;
}

/** A scenario file. */
interface Scenario {
  name: string;
  description?: string;
  /**
   * byok: xai.api_key + grok.com, default xai.api_key; none: grok.com only, session/new fails -32000;
   * key-or-token: xai.api_key + cached_token + grok.com, no default; xai.api_key works only when this process
   * has XAI_API_KEY in its own environment, and cached_token is refused (no cached login).
   */
  auth?: "byok" | "none" | "key-or-token";
  ignoreSigterm?: boolean;
  grandchild?: { detached?: boolean; ignoreSigterm?: boolean; exitOnStdinEof?: boolean; maxLifetimeMs?: number };
  newSession?: {
    hang?: boolean;
    mcpInitializedDelayMs?: number;
    mcpToolCount?: number;
    mcpInitializedAfterFile?: string;
  };
  prompt?: PromptScript;
  keywords?: Record<string, string>;
}

const here = dirname(fileURLToPath(import.meta.url));
const scenarioDir = join(here, "scenarios");

function loadScenario(ref: string): Scenario {
  const path = isAbsolute(ref) || ref.endsWith(".json") ? ref : join(scenarioDir, `${ref}.json`);
  if (!existsSync(path)) throw new Error(`fake-grok: no scenario file ${path}`);
  return JSON.parse(readFileSync(path, "utf8")) as Scenario;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const pluginDirs: string[] = [];
  let modelFlag: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    // Like grok, flags we don't know are ignored (only the ones with values matter for parsing).
    if (argv[i] === "--plugin-dir") pluginDirs.push(argv[++i] ?? "");
    else if (argv[i] === "-m" || argv[i] === "--model") modelFlag = argv[++i];
  }
  const scenario = loadScenario(process.env.FAKE_GROK_SCENARIO || "normal");
  process.stderr.write(`fake-grok 1.0.41 (fake) starting pid=${process.pid} scenario=${scenario.name}\n`);
  if (process.env.FAKE_GROK_RECORD_FILE) {
    writeFileSync(
      process.env.FAKE_GROK_RECORD_FILE,
      JSON.stringify({ pid: process.pid, argv, pluginDirs, model: modelFlag ?? null, scenario: scenario.name }),
    );
  }
  if (scenario.ignoreSigterm) process.on("SIGTERM", () => process.stderr.write("fake-grok: ignoring SIGTERM\n"));
  if (scenario.grandchild) await startGrandchild(scenario.grandchild);

  const models = ["grok-4.6", "grok-4.5", "mock"];
  const state = { model: modelFlag && models.includes(modelFlag) ? modelFlag : "mock", authenticated: false };
  const noAuth = scenario.auth === "none";
  const sessions = new Map<string, Session>();

  // Our own writable so a scenario's raw lines share one ordered path with the SDK's JSON lines.
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => process.stdout.write(chunk, (err) => (err ? reject(err) : resolve()))),
  });
  const stream = acp.ndJsonStream(output, Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const writeRaw = (line: string) => new Promise<void>((resolve) => process.stdout.write(`${line}\n`, () => resolve()));

  const app = acp
    .agent({ name: "fake-grok" })
    .onRequest(acp.methods.agent.initialize, ({ client }) => {
      // grok pushes its (empty) MCP server list shortly after answering initialize.
      setImmediate(() => void client.notify("_x.ai/mcp/servers_updated", { mcpServers: [] }));
      return initializeResult(noAuth, state.model, scenario.auth === "key-or-token");
    })
    .onRequest(acp.methods.agent.authenticate, ({ params }) => {
      if (scenario.auth === "key-or-token") {
        if (params.methodId === "cached_token") throw new acp.RequestError(-32000, "no cached login token");
        if (params.methodId === "xai.api_key" && !process.env.XAI_API_KEY)
          throw new acp.RequestError(-32000, "XAI_API_KEY is not set");
      }
      if (noAuth || params.methodId !== "xai.api_key")
        throw new acp.RequestError(-32602, `unsupported auth method: ${params.methodId}`);
      state.authenticated = true;
      return {};
    })
    .onRequest(acp.methods.agent.session.new, async ({ params, client }) => {
      const wanted = (params._meta as { sessionId?: unknown } | undefined)?.sessionId;
      if (wanted !== undefined && (typeof wanted !== "string" || !UUID_RE.test(wanted))) {
        throw new acp.RequestError(-32602, `Invalid UUID format for _meta.sessionId '${String(wanted)}'`);
      }
      const id = typeof wanted === "string" ? wanted : uuidV7();
      const setup = (phase: string, sid: string | null) =>
        client.notify("_x.ai/session/setup", { method: "session/new", phase, sessionId: sid });
      for (const phase of ["auth", "resolve_workspace", "folder_trust", "plugin_registry", "mcp_merge"])
        await setup(phase, null);
      await setup("persistence_init", id);
      if (noAuth) {
        setImmediate(() => void setup("spawn_session_actor", id));
        throw new acp.RequestError(-32000, "Authentication required", "no auth method id provided");
      }
      if (scenario.newSession?.hang) return new Promise<never>(() => {});
      await setup("spawn_session_actor", id);
      const yolo = (params._meta as { yoloMode?: unknown } | undefined)?.yoloMode === true;
      const session: Session = { id, cwd: params.cwd, yolo, events: 0, prompts: 0, running: undefined };
      sessions.set(id, session);
      // Like grok, the remaining phases and MCP readiness arrive after the response.
      setImmediate(async () => {
        for (const phase of ["git_discovery", "finalize_response", "tool_overrides", "response_ready"])
          await setup(phase, id);
        const announce = async () => {
          await client.notify("_x.ai/mcp_initialized", {
            sessionId: id,
            mcpToolCount: scenario.newSession?.mcpToolCount ?? 0,
            elapsedMs: scenario.newSession?.mcpInitializedDelayMs ?? 0,
          });
          await client.notify(acp.methods.client.session.update, {
            sessionId: id,
            update: { sessionUpdate: "available_commands_update", availableCommands: COMMANDS },
          });
        };
        const delay = scenario.newSession?.mcpInitializedDelayMs ?? 0;
        const gate = scenario.newSession?.mcpInitializedAfterFile;
        // A gated start: the session becomes ready only once the test creates the gate file.
        if (gate) {
          const poll = setInterval(() => {
            if (!existsSync(gate)) return;
            clearInterval(poll);
            void announce();
          }, 20);
        } else if (delay > 0) setTimeout(() => void announce(), delay);
        else await announce();
      });
      return {
        sessionId: id,
        models: modelState(state.model),
        configOptions: configOptions(state.model),
        _meta: sessionMeta(id, params.cwd, state.model),
      };
    })
    .onRequest(acp.methods.agent.session.load, ({ params }) => attach(params.sessionId, params.cwd))
    .onRequest(acp.methods.agent.session.resume, ({ params }) => attach(params.sessionId, params.cwd))
    .onRequest(acp.methods.agent.session.list, () => ({
      sessions: [...sessions.values()].map((s) => ({
        sessionId: s.id,
        cwd: s.cwd,
        title: null,
        updatedAt: new Date().toISOString(),
      })),
    }))
    .onRequest(acp.methods.agent.session.close, async ({ params, client }) => {
      sessions.get(params.sessionId)?.running?.abort.abort();
      sessions.delete(params.sessionId);
      await client.notify("_x.ai/sessions/changed", { upserted: [], removed: [params.sessionId] });
      return { _meta: { "x.ai/closeOutcome": "closed" } };
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params, client }) => {
      setImmediate(
        () =>
          void client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId },
          }),
      );
      return {};
    })
    .onRequest(
      "session/set_model",
      (p) => p as { sessionId: string; modelId: string },
      async ({ params, client }) => {
        if (!models.includes(params.modelId))
          throw new acp.RequestError(-32602, "This model isn't allowed by your allowed_models setting.");
        state.model = params.modelId;
        setImmediate(async () => {
          await client.notify("_x.ai/session_notification", {
            sessionId: params.sessionId,
            update: { sessionUpdate: "model_changed", model_id: params.modelId, reasoning_effort: null },
          });
          await client.notify(acp.methods.client.session.update, {
            sessionId: params.sessionId,
            update: { sessionUpdate: "config_option_update", configOptions: configOptions(state.model) },
          });
        });
        return { _meta: { model: { Ok: params.modelId } } };
      },
    )
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort.abort();
    })
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client, signal }) => {
      const session = sessions.get(params.sessionId);
      if (!session) throw new acp.RequestError(-32602, `Session not found: ${params.sessionId}`);
      const text = params.prompt.map((b) => (b.type === "text" ? b.text : "")).join("");
      const promptId = String((params._meta as { promptId?: unknown } | undefined)?.promptId ?? randomUUID());
      if (process.env.FAKE_GROK_PROMPT_LOG) appendFileSync(process.env.FAKE_GROK_PROMPT_LOG, `${promptId}\n`);
      const script = pickPromptScript(scenario, text);
      const abort = new AbortController();
      signal.addEventListener("abort", () => abort.abort(), { once: true });
      session.running = { promptId, abort };
      try {
        return await playTurn({ client, session, promptId, text, script, abort: abort.signal, writeRaw });
      } finally {
        if (session.running?.promptId === promptId) session.running = undefined;
      }
    });

  function attach(sessionId: string, cwd: string) {
    if (!sessions.has(sessionId))
      sessions.set(sessionId, { id: sessionId, cwd, yolo: false, events: 0, prompts: 0, running: undefined });
    return {
      models: modelState(state.model),
      configOptions: configOptions(state.model),
      _meta: { ...sessionMeta(sessionId, cwd, state.model), sessionId },
    };
  }

  const connection = app.connect(stream);
  await connection.closed;
  process.stderr.write("fake-grok: stdin closed, exiting\n");
  process.exit(0);
}

interface Session {
  id: string;
  cwd: string;
  yolo: boolean;
  events: number;
  prompts: number;
  running: { promptId: string; abort: AbortController } | undefined;
}

interface TurnContext {
  client: acp.AgentContext;
  session: Session;
  promptId: string;
  text: string;
  script: PromptScript;
  abort: AbortSignal;
  writeRaw: (line: string) => Promise<void>;
}

class Cancelled extends Error {}

function pickPromptScript(scenario: Scenario, text: string): PromptScript {
  const token = /scenario:([a-z0-9-]+)/.exec(text)?.[1];
  if (token) return loadScenario(token).prompt ?? {};
  for (const [needle, name] of Object.entries(scenario.keywords ?? {})) {
    if (text.includes(needle)) return loadScenario(name).prompt ?? {};
  }
  return scenario.prompt ?? { steps: [{ text: "pong from fake" }] };
}

async function playTurn(t: TurnContext): Promise<acp.PromptResponse> {
  const { client, session, promptId, script } = t;
  const sid = session.id;
  const turnStartMs = Date.now();
  const stats = { outputTokens: 0, chunkId: 0 };
  const xnote = (update: Record<string, unknown>) =>
    client.notify("_x.ai/session_notification", { sessionId: sid, update });
  const sessionsChanged = (activity: string) =>
    client.notify("_x.ai/sessions/changed", {
      upserted: [
        {
          sessionId: sid,
          title: null,
          cwd: session.cwd,
          isWorktree: false,
          modelId: "mock",
          yolo: session.yolo,
          activity,
          resident: true,
          lastChangeUnixMs: Date.now(),
          origin: { kind: "local" },
        },
      ],
      removed: [],
    });
  const update = (u: acp.SessionUpdate, updateType: string, extra: Record<string, unknown> = {}) =>
    client.notify(acp.methods.client.session.update, {
      sessionId: sid,
      update: u,
      _meta: {
        totalTokens: 11 + stats.outputTokens,
        eventId: `${sid}-${++session.events}`,
        agentTimestampMs: Date.now(),
        promptId,
        streamStartMs: turnStartMs,
        turnStartMs,
        updateType,
        ...extra,
      },
    });

  await sessionsChanged("working");
  await client.notify("_x.ai/queue/changed", {
    sessionId: sid,
    entries: [{ id: promptId, version: 0, kind: "prompt", text: t.text, position: 0 }],
  });
  await client.notify("_x.ai/queue/changed", {
    sessionId: sid,
    entries: [],
    runningPromptId: promptId,
    runningText: t.text,
    runningKind: "prompt",
  });
  if (session.prompts++ === 0) {
    await xnote({ sessionUpdate: "session_summary_generated", session_summary: t.text });
    await client.notify(acp.methods.client.session.update, {
      sessionId: sid,
      update: { sessionUpdate: "session_info_update", title: t.text },
    });
  }
  if (script.error) throw new acp.RequestError(script.error.code, script.error.message, script.error.data);

  let stopReason: StopReason = script.stopReason ?? "end_turn";
  try {
    if (script.hang) {
      if (script.honourCancel === false) await new Promise<never>(() => {});
      await sleep(2 ** 31 - 1, t.abort);
    }
    for (const step of script.steps ?? []) {
      if (t.abort.aborted) throw new Cancelled();
      if (step.text !== undefined) {
        for (const word of step.text.match(/\S+\s*|\s+/g) ?? []) {
          if (step.chunkDelayMs) await sleep(step.chunkDelayMs, t.abort);
          stats.outputTokens++;
          if (process.env.FAKE_GROK_CHUNK_LOG)
            appendFileSync(
              process.env.FAKE_GROK_CHUNK_LOG,
              `${promptId}\t${performance.timeOrigin + performance.now()}\n`,
            );
          await update(
            { sessionUpdate: "agent_message_chunk", content: { type: "text", text: word } },
            "AgentMessageChunk",
            { chunkId: ++stats.chunkId },
          );
        }
      } else if (step.thought !== undefined) {
        await update(
          { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: step.thought } },
          "AgentThoughtChunk",
          { chunkId: ++stats.chunkId },
        );
      } else if (step.plan) {
        await update({ sessionUpdate: "plan", entries: step.plan }, "Plan");
      } else if (step.tool) {
        const tool = toolOf(step.tool);
        await update(
          {
            sessionUpdate: "tool_call",
            toolCallId: tool.toolCallId,
            title: tool.title,
            kind: tool.kind,
            status: "pending",
            rawInput: tool.rawInput,
          },
          "ToolCall",
        );
        await update(
          {
            sessionUpdate: "tool_call_update",
            toolCallId: tool.toolCallId,
            status: step.tool.status ?? "completed",
            rawOutput: { ok: true },
          },
          "ToolCallUpdate",
        );
      } else if (step.permission) {
        const granted = await askPermission(t, toolOf(step.permission), update, xnote);
        if (granted === "cancelled") throw new Cancelled();
      } else if (step.sleepMs !== undefined) {
        await sleep(step.sleepMs, t.abort);
      } else if (step.rawLine !== undefined) {
        await t.writeRaw(step.rawLine);
      } else if (step.oversizedTextBytes !== undefined) {
        const sessionUpdate = {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: "x".repeat(step.oversizedTextBytes) },
        };
        await t.writeRaw(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "session/update",
            params: { sessionId: sid, update: sessionUpdate, _meta: { promptId } },
          }),
        );
      } else if (step.exit !== undefined) {
        process.stderr.write(`fake-grok: scenario exits with code ${step.exit}\n`);
        process.exit(step.exit);
      } else if (step.hang) {
        await new Promise<never>(() => {});
      }
    }
  } catch (err) {
    if (!(err instanceof Cancelled)) throw err;
    stopReason = "cancelled";
  }
  if (t.abort.aborted) stopReason = "cancelled";

  const usage = usageOf(stats.outputTokens);
  await xnote({
    sessionUpdate: "response_completed",
    usage: {
      input_tokens: 11,
      output_tokens: stats.outputTokens,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
      reasoning_tokens: 0,
    },
  });
  await client.notify("_x.ai/queue/changed", { sessionId: sid, entries: [] });
  await xnote({
    sessionUpdate: "turn_completed",
    prompt_id: promptId,
    stop_reason: stopReason,
    usage,
    elapsed_ms: Date.now() - turnStartMs,
  });
  await client.notify("_x.ai/session/prompt_complete", { sessionId: sid, promptId, stopReason, agentResult: null });
  await sessionsChanged("idle");
  setImmediate(
    () => void xnote({ sessionUpdate: "last_turn_summary", summary: "fake turn summary", prompt_id: promptId }),
  );
  const echoed = script.echoPromptId ?? promptId;
  return {
    stopReason,
    _meta: {
      sessionId: sid,
      requestId: echoed,
      promptId: echoed,
      totalTokens: usage.totalTokens,
      modelId: "mock-model",
      inputTokens: 11,
      outputTokens: stats.outputTokens,
      cachedReadTokens: 0,
      reasoningTokens: 0,
      usage,
    },
  };
}

type UpdateFn = (u: acp.SessionUpdate, updateType: string, extra?: Record<string, unknown>) => Promise<void>;

/** Plays grok's permission choreography; resolves whether the tool ran, or "cancelled". */
async function askPermission(
  t: TurnContext,
  tool: Required<Omit<ToolStep, "status">>,
  update: UpdateFn,
  xnote: (u: Record<string, unknown>) => Promise<void>,
): Promise<boolean | "cancelled"> {
  const toolMeta = {
    "x.ai/tool": { version: 1, name: "write", kind: "write", namespace: "opencode", label: "Write", read_only: false },
  };
  await update(
    {
      sessionUpdate: "tool_call",
      toolCallId: tool.toolCallId,
      title: "write",
      rawInput: tool.rawInput,
      _meta: toolMeta,
    },
    "ToolCall",
  );
  await xnote({ sessionUpdate: "pending_interaction", tool_call_id: tool.toolCallId, kind: "permission" });
  const rawInput = { variant: "Write", ...tool.rawInput };
  await update(
    {
      sessionUpdate: "tool_call_update",
      toolCallId: tool.toolCallId,
      kind: tool.kind,
      title: tool.title,
      rawInput,
      _meta: toolMeta,
    },
    "ToolCallUpdate",
  );
  const logPermission = (what: string) => {
    if (process.env.FAKE_GROK_PERMISSION_LOG)
      appendFileSync(
        process.env.FAKE_GROK_PERMISSION_LOG,
        `${what}\t${tool.toolCallId}\t${performance.timeOrigin + performance.now()}\n`,
      );
  };
  logPermission("asked");
  const request = t.client.request(acp.methods.client.session.requestPermission, {
    sessionId: t.session.id,
    toolCall: { toolCallId: tool.toolCallId, kind: tool.kind, title: tool.title, rawInput, _meta: toolMeta },
    options: PERMISSION_OPTIONS,
  });
  const aborted = new Promise<"aborted">((resolve) =>
    t.abort.addEventListener("abort", () => resolve("aborted"), { once: true }),
  );
  const answer = await Promise.race([request, aborted]);
  if (answer !== "aborted") logPermission("answered");
  await xnote({ sessionUpdate: "interaction_resolved", tool_call_id: tool.toolCallId });
  if (answer === "aborted" || answer.outcome.outcome === "cancelled") {
    await update(
      {
        sessionUpdate: "tool_call_update",
        toolCallId: tool.toolCallId,
        status: "failed",
        rawOutput: { error: "cancelled" },
      },
      "ToolCallUpdate",
    );
    return "cancelled";
  }
  const chosenId = answer.outcome.optionId;
  const chosen = PERMISSION_OPTIONS.find((o) => o.optionId === chosenId);
  const granted = chosen?.kind === "allow_once" || chosen?.kind === "allow_always";
  await update(
    granted
      ? {
          sessionUpdate: "tool_call_update",
          toolCallId: tool.toolCallId,
          status: "completed",
          rawOutput: { type: "SearchReplace", optionId: chosenId },
        }
      : {
          sessionUpdate: "tool_call_update",
          toolCallId: tool.toolCallId,
          status: "failed",
          rawOutput: { error: "rejected", optionId: chosenId },
        },
    "ToolCallUpdate",
  );
  return granted;
}

function toolOf(step: ToolStep): Required<Omit<ToolStep, "status">> {
  return {
    toolCallId: step.toolCallId ?? "call_fake_1",
    title: step.title ?? "write",
    kind: step.kind ?? "edit",
    rawInput: step.rawInput ?? {},
  };
}

/** Starts the grandchild and waits until it says its signal handlers are set, so a test's signal finds them. */
async function startGrandchild(spec: NonNullable<Scenario["grandchild"]>): Promise<void> {
  const args = [fileURLToPath(import.meta.url), "--fake-grandchild"];
  if (spec.ignoreSigterm) args.push("--ignore-sigterm");
  if (spec.exitOnStdinEof) args.push("--exit-on-eof");
  const env = { ...process.env, FAKE_GROK_GRANDCHILD_MAX_MS: String(spec.maxLifetimeMs ?? 600_000) };
  const child = spawn(process.execPath, args, {
    stdio: [spec.exitOnStdinEof ? "pipe" : "ignore", "pipe", "inherit"],
    detached: spec.detached === true,
    env,
  });
  child.unref();
  await new Promise<void>((resolve) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", () => resolve());
  });
  child.stdout?.destroy();
  process.stderr.write(`fake-grok: grandchild pid=${child.pid} detached=${spec.detached === true}\n`);
  if (process.env.FAKE_GROK_PID_FILE && child.pid !== undefined)
    writeFileSync(process.env.FAKE_GROK_PID_FILE, String(child.pid));
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Cancelled());
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), reject(new Cancelled())), { once: true });
  });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUIDv7-shaped id: 48-bit ms timestamp, version 7, variant 10. */
function uuidV7(): string {
  const hex = Date.now().toString(16).padStart(12, "0") + randomUUID().replace(/-/g, "").slice(12);
  const chars = hex.split("");
  chars[12] = "7";
  chars[16] = ((parseInt(chars[16] ?? "0", 16) & 0x3) | 0x8).toString(16);
  const h = chars.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function usageOf(outputTokens: number) {
  const counts = {
    inputTokens: 11,
    outputTokens,
    totalTokens: 11 + outputTokens,
    cachedReadTokens: 0,
    cacheCreationTokens: 0,
    reasoningTokens: 0,
    modelCalls: 1,
    apiDurationMs: 1,
  };
  return { ...counts, modelUsage: { "mock-model": { ...counts } }, numTurns: 1 };
}

const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow-edits-session", name: "Yes, allow all edits during this session", kind: "allow_always" },
  { optionId: "allow-once", name: "Yes", kind: "allow_once" },
  { optionId: "reject-once", name: "No, and tell Grok what to do differently", kind: "reject_once" },
];

const COMMANDS = [
  {
    name: "compact",
    description: "Compress conversation history to save context window",
    input: { hint: "optional context about what to preserve" },
  },
  {
    name: "always-approve",
    description: "Toggle always-approve mode (skip all permission prompts)",
    input: { hint: "on|off" },
  },
  { name: "context", description: "Show context window usage and session stats", input: null },
];

const EFFORTS = [
  {
    id: "high",
    value: "high",
    label: "High Effort",
    description: "Highest implementation quality with extensive reasoning",
    default: true,
  },
  {
    id: "medium",
    value: "medium",
    label: "Medium Effort",
    description: "Balanced effort with standard implementation and testing",
    default: false,
  },
  { id: "low", value: "low", label: "Low Effort", description: "Quick, fast implementations", default: false },
];

const AVAILABLE_MODELS = [
  {
    modelId: "grok-4.6",
    name: "Grok 4.6",
    description: "SpaceXAI's latest frontier model",
    _meta: {
      totalContextTokens: 500000,
      agentType: "grok-build-plan",
      supportsReasoningEffort: true,
      reasoningEffort: "high",
      reasoningEfforts: EFFORTS,
    },
  },
  {
    modelId: "grok-4.5",
    name: "Grok 4.5",
    _meta: {
      totalContextTokens: 500000,
      agentType: "grok-build-plan",
      supportsReasoningEffort: true,
      reasoningEffort: "high",
      reasoningEfforts: EFFORTS,
    },
  },
  { modelId: "mock", name: "Mock Model", _meta: { totalContextTokens: 128000, agentType: "grok-build-plan" } },
];

function modelState(current: string) {
  return { currentModelId: current, availableModels: AVAILABLE_MODELS };
}

function configOptions(current: string): acp.SessionConfigOption[] {
  return [
    {
      id: "model",
      name: "Model",
      category: "model",
      type: "select",
      currentValue: current,
      options: AVAILABLE_MODELS.map((m) => ({ value: m.modelId, name: m.name })),
    },
  ];
}

function sessionMeta(sessionId: string, cwd: string, current: string) {
  return {
    currentWorkingDirectory: cwd,
    codebaseIndexed: [],
    isGitRepo: false,
    gitRoot: null,
    showNonGitWarning: true,
    feedbackEnabled: true,
    "x.ai/sessionConfig": {
      options: AVAILABLE_MODELS.map((m) => ({
        id: m.modelId,
        category: "model",
        label: m.name,
        selected: m.modelId === current,
      })),
    },
    "x.ai/sessionDetail": { sessionId, kind: "build", cwd, currentModelId: current },
    "x.ai/memoryMode": "legacy",
  };
}

function initializeResult(noAuth: boolean, current: string, keyOrToken = false): acp.InitializeResponse {
  const authMethods = [
    ...(noAuth
      ? []
      : [{ id: "xai.api_key", name: "xai.api_key", description: "XAI_API_KEY or api_key/env_key in config.toml" }]),
    ...(keyOrToken ? [{ id: "cached_token", name: "cached_token", description: "cached grok login" }] : []),
    { id: "grok.com", name: "Grok", description: "Sign in with Grok" },
  ];
  return {
    protocolVersion: 1,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, resume: {}, close: {} },
      auth: {},
      _meta: {
        "x.ai/fs_notify": true,
        "x.ai/hooks": {
          blockingEvents: ["pre_tool_use", "stop", "subagent_stop"],
          decisions: ["deny", "block"],
          stopSignals: ["continue", "stopReason", "additionalContext"],
        },
        "x.ai/capabilities": {
          toolOverrides: {
            x_keyword_search: true,
            x_semantic_search: true,
            x_user_search: false,
            x_thread_fetch: false,
          },
        },
      },
    },
    authMethods,
    _meta: {
      grokShell: true,
      defaultAuthMethodId: noAuth || keyOrToken ? null : "xai.api_key",
      "x.ai/mcp/sdk": true,
      "x.ai/pluginDirs": true,
      currentWorkingDirectory: process.cwd(),
      agentVersion: "1.0.41",
      agentId: "00000000-0000-5000-8000-0000000000fa",
      agentInstanceId: randomUUID(),
      hostname: "fake-host",
      modelState: modelState(current),
      mcpServers: [],
      mcpApps: false,
      metadata: process.env.GROK_AGENT_METADATA ? (JSON.parse(process.env.GROK_AGENT_METADATA) as unknown) : null,
      availableCommands: COMMANDS,
      cancelRewind: true,
      sessionRecap: true,
      feedbackTraceOffer: false,
      voiceMode: true,
    },
  };
}

// Entry point last, so every module-level constant above is initialized before a handler runs.
if (process.argv[2] === "--fake-grandchild") {
  // Grandchild mode: a long-lived descendant for kill-tree tests, bounded by a maximum lifetime.
  if (process.argv.includes("--ignore-sigterm")) process.on("SIGTERM", () => {});
  setTimeout(() => process.exit(0), Number(process.env.FAKE_GROK_GRANDCHILD_MAX_MS ?? 600_000)).unref();
  setInterval(() => {}, 60_000);
  if (process.argv.includes("--exit-on-eof")) process.stdin.on("end", () => process.exit(0)).resume();
  process.stdout.write("ready\n"); // its handlers are set: the parent names it only now
} else {
  await main();
}
