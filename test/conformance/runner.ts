/*
 * Conformance runner: plays one case file (steps + checks, as data) against any ACP agent command.
 * Owns: the case format, the step vocabulary (initialize, authenticate, new, prompt, awaitPrompt, waitFor,
 *   cancel, request, close) and the check vocabulary (see `Check`), and the failure report.
 * Does not own: the process and wire recording (agent-process.ts), or which agent runs (the caller's SpawnSpec).
 * Invariant: a case never throws; every problem becomes a failure line, and the agent's process group is
 *   killed before the result is returned. `$sessionId`, `$cwd` in step params are substituted.
 * Spec: docs of the fake in test/fakes/fake-grok.ts; shared reference grok-wire.md §5–§10.
 */
import * as acp from "@agentclientprotocol/sdk";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createAcpValidator } from "../support/acp-schema.js";
import {
  startAgent,
  type AgentUnderTest,
  type PermissionAnswer,
  type RecordedMessage,
  type SpawnSpec,
} from "./agent-process.js";

export type { SpawnSpec, RecordedMessage } from "./agent-process.js";

/** One expectation about a step's outcome or the messages seen so far. */
export type Check =
  | { check: "ok" }
  | { check: "error"; code?: number }
  | { check: "equals"; path: string; value: unknown }
  | { check: "present"; path: string }
  | { check: "textArrived" }
  | { check: "noTextArrived" }
  | { check: "updateArrived"; kind: string }
  | { check: "toolStatus"; status: "completed" | "failed" }
  | { check: "promptIdEchoed" }
  | { check: "updatesCarryPromptId" }
  | { check: "permissionAnswered"; id: number }
  | { check: "notificationArrived"; method: string; timeoutMs?: number }
  | { check: "exited"; code: number | null }
  | { check: "allValid" };

/** One scripted step. `expect` checks run right after the step. */
export interface Step {
  op: "initialize" | "authenticate" | "new" | "prompt" | "awaitPrompt" | "waitFor" | "cancel" | "request" | "close";
  text?: string;
  promptId?: string;
  /** prompt: false starts it without waiting (awaitPrompt collects it). */
  wait?: boolean;
  permission?: PermissionAnswer;
  methodId?: string;
  meta?: Record<string, unknown>;
  method?: string;
  params?: Record<string, unknown>;
  /** waitFor: a session/update kind or a notification method. */
  update?: string;
  timeoutMs?: number;
  expect?: Check[];
}

/** A conformance case file. */
export interface ConformanceCase {
  name: string;
  description?: string;
  /** Which agents the case is meant for ("fake", "grok"); default both. */
  targets?: string[];
  /** fake-grok scenario (FAKE_GROK_SCENARIO); real grok ignores it. */
  scenario?: string;
  /** Mock-model script (src/mock-model MockScript JSON) a real-grok run should load; `${cwd}` is substituted. */
  mockScript?: unknown;
  steps: Step[];
}

/** What a case run produced. */
export interface ConformanceResult {
  name: string;
  ok: boolean;
  failures: string[];
  messages: RecordedMessage[];
  stderrTail: string;
}

/** Options for runConformanceCase. */
export interface RunOptions {
  /** Per-request and per-wait limit. Default 20 s. */
  stepTimeoutMs?: number;
}

const here = dirname(fileURLToPath(import.meta.url));

/** Loads every case in cases/ (or `dir`), sorted by file name. */
export function loadConformanceCases(dir = join(here, "cases")): ConformanceCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(dir, f), "utf8")) as ConformanceCase);
}

interface RunState {
  init?: acp.InitializeResponse;
  sessionId?: string;
  pending?: { promptId: string; since: number; promise: Promise<Outcome> };
  lastPrompt?: { promptId: string; since: number };
}

interface Outcome {
  result?: unknown;
  error?: { code?: number; message: string };
}

/** Runs one case against the agent started from `spec`; resolves (never rejects) with failures listed. */
export async function runConformanceCase(
  c: ConformanceCase,
  spec: SpawnSpec,
  options: RunOptions = {},
): Promise<ConformanceResult> {
  const timeoutMs = options.stepTimeoutMs ?? 20_000;
  const env = { ...(spec.env ?? {}), ...(c.scenario ? { FAKE_GROK_SCENARIO: c.scenario } : {}) };
  const a = startAgent({ ...spec, env });
  const failures: string[] = [];
  const state: RunState = {};
  const cwd = spec.cwd ?? process.cwd();
  try {
    for (const [index, step] of c.steps.entries()) {
      const label = `step ${index + 1} (${step.op})`;
      const since = a.messages.length;
      const outcome = await withTimeout(runStep(a, step, state, cwd, timeoutMs), timeoutMs, label);
      for (const check of step.expect ?? []) {
        const problem = await evaluate(check, { a, outcome, state, since, step, timeoutMs });
        if (problem) failures.push(`${label} ${check.check}: ${problem}`);
      }
      if (outcome.error && !(step.expect ?? []).some((x) => x.check === "error")) {
        failures.push(
          `${label} failed: ${outcome.error.message}${outcome.error.code !== undefined ? ` (code ${outcome.error.code})` : ""}`,
        );
        break;
      }
    }
  } finally {
    await a.close();
  }
  return {
    name: c.name,
    ok: failures.length === 0,
    failures,
    messages: a.messages,
    stderrTail: a.stderr().slice(-2000),
  };
}

async function withTimeout(p: Promise<Outcome>, ms: number, label: string): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>(
    (resolve) => (timer = setTimeout(() => resolve({ error: { message: `${label} timed out after ${ms} ms` } }), ms)),
  );
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function settle(p: Promise<unknown>): Promise<Outcome> {
  return p.then(
    (result) => ({ result }),
    (err: unknown) => ({
      error: {
        code: typeof (err as { code?: unknown })?.code === "number" ? (err as { code: number }).code : undefined,
        message: err instanceof Error ? err.message : String(err),
      },
    }),
  );
}

function substitute(value: unknown, state: RunState, cwd: string): unknown {
  if (typeof value === "string") return value === "$sessionId" ? state.sessionId : value.replaceAll("$cwd", cwd);
  if (Array.isArray(value)) return value.map((v) => substitute(v, state, cwd));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, state, cwd)]));
  return value;
}

async function runStep(
  a: AgentUnderTest,
  step: Step,
  state: RunState,
  cwd: string,
  timeoutMs: number,
): Promise<Outcome> {
  const agent = a.agent;
  switch (step.op) {
    case "initialize": {
      const o = await settle(
        agent.request(acp.methods.agent.initialize, {
          protocolVersion: 1,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: "grok-seat-conformance", version: "0.1.0" },
        }),
      );
      if (o.result) state.init = o.result as acp.InitializeResponse;
      return o;
    }
    case "authenticate": {
      const methodId =
        step.methodId ??
        (state.init?._meta as { defaultAuthMethodId?: string | null } | undefined)?.defaultAuthMethodId ??
        state.init?.authMethods?.[0]?.id;
      if (!methodId) return { error: { message: "no auth method to pick" } };
      return settle(agent.request(acp.methods.agent.authenticate, { methodId }));
    }
    case "new": {
      const o = await settle(
        agent.request(acp.methods.agent.session.new, {
          cwd,
          mcpServers: [],
          ...(step.meta ? { _meta: substitute(step.meta, state, cwd) as Record<string, unknown> } : {}),
        }),
      );
      if (o.result) state.sessionId = (o.result as acp.NewSessionResponse).sessionId;
      return o;
    }
    case "prompt": {
      if (!state.sessionId) return { error: { message: "prompt before a session exists" } };
      a.setPermissionAnswer(step.permission ?? "allow");
      const promptId = step.promptId ?? `conf-${Date.now()}`;
      const since = a.messages.length;
      const promise = settle(
        agent.request(acp.methods.agent.session.prompt, {
          sessionId: state.sessionId,
          prompt: [{ type: "text", text: step.text ?? "say pong" }],
          _meta: { promptId },
        }),
      );
      state.lastPrompt = { promptId, since };
      if (step.wait === false) {
        state.pending = { promptId, since, promise };
        return { result: null };
      }
      return promise;
    }
    case "awaitPrompt": {
      if (!state.pending) return { error: { message: "awaitPrompt without a pending prompt" } };
      const o = await state.pending.promise;
      state.pending = undefined;
      return o;
    }
    case "waitFor": {
      const what = step.update ?? step.method ?? "?";
      try {
        await a.waitFor(
          (m) => m.direction === "agent" && (updateKind(m) === what || m.msg.method === what),
          step.timeoutMs ?? timeoutMs,
          what,
        );
        return { result: null };
      } catch (err) {
        return { error: { message: (err as Error).message } };
      }
    }
    case "cancel":
      if (!state.sessionId) return { error: { message: "cancel before a session exists" } };
      await agent.notify(acp.methods.agent.session.cancel, { sessionId: state.sessionId });
      return { result: null };
    case "request":
      return settle(agent.request(step.method ?? "", substitute(step.params ?? {}, state, cwd)));
    case "close":
      return settle(agent.request(acp.methods.agent.session.close, { sessionId: state.sessionId ?? "" }));
  }
}

function updateKind(m: RecordedMessage): string | undefined {
  if (m.msg.method !== "session/update") return undefined;
  return (m.msg.params as { update?: { sessionUpdate?: string } } | undefined)?.update?.sessionUpdate ?? undefined;
}

function pathGet(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.split(".").filter(Boolean)) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

interface CheckContext {
  a: AgentUnderTest;
  outcome: Outcome;
  state: RunState;
  since: number;
  step: Step;
  timeoutMs: number;
}

/** Returns a problem description, or undefined when the check holds. */
async function evaluate(check: Check, cx: CheckContext): Promise<string | undefined> {
  const { a, outcome, state } = cx;
  const turnSince = state.lastPrompt?.since ?? cx.since;
  const turnMessages = () =>
    a.messages
      .slice(turnSince)
      .filter(
        (m) =>
          m.direction === "agent" &&
          (m.msg.params as { sessionId?: unknown } | undefined)?.sessionId === state.sessionId,
      );
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);
  switch (check.check) {
    case "ok":
      return outcome.error ? `expected a result, got error ${show(outcome.error)}` : undefined;
    case "error":
      if (!outcome.error) return `expected an error, got result ${show(outcome.result)}`;
      return check.code !== undefined && outcome.error.code !== check.code
        ? `expected error code ${check.code}, got ${show(outcome.error)}`
        : undefined;
    case "equals": {
      const got = pathGet(outcome.result, check.path);
      return JSON.stringify(got) === JSON.stringify(check.value)
        ? undefined
        : `${check.path} is ${show(got)}, expected ${show(check.value)}`;
    }
    case "present":
      return pathGet(outcome.result, check.path) === undefined
        ? `${check.path} is missing in ${show(outcome.result)}`
        : undefined;
    case "textArrived":
    case "noTextArrived": {
      const text = turnMessages()
        .filter((m) => updateKind(m) === "agent_message_chunk")
        .map((m) => String(pathGet(m.msg, "params.update.content.text") ?? ""))
        .join("");
      if (check.check === "textArrived")
        return text.trim() ? undefined : "no agent_message_chunk with text arrived during the turn";
      return text ? `expected no text, got ${show(text)}` : undefined;
    }
    case "updateArrived":
      return turnMessages().some((m) => updateKind(m) === check.kind)
        ? undefined
        : `no session/update ${check.kind} arrived during the turn`;
    case "toolStatus":
      return turnMessages().some(
        (m) => updateKind(m) === "tool_call_update" && pathGet(m.msg, "params.update.status") === check.status,
      )
        ? undefined
        : `no tool_call_update with status ${check.status}`;
    case "promptIdEchoed": {
      const got = pathGet(outcome.result, "_meta.promptId");
      return got === state.lastPrompt?.promptId
        ? undefined
        : `result _meta.promptId is ${show(got)}, expected ${show(state.lastPrompt?.promptId)}`;
    }
    case "updatesCarryPromptId": {
      const chunks = turnMessages().filter((m) => updateKind(m) === "agent_message_chunk");
      const bad = chunks.filter((m) => pathGet(m.msg, "params._meta.promptId") !== state.lastPrompt?.promptId);
      if (chunks.length === 0) return "no agent_message_chunk to inspect";
      return bad.length
        ? `${bad.length} of ${chunks.length} chunks lack params._meta.promptId ${show(state.lastPrompt?.promptId)}`
        : undefined;
    }
    case "permissionAnswered": {
      const asked = a.messages.find(
        (m) => m.direction === "agent" && m.msg.method === "session/request_permission" && m.msg.id === check.id,
      );
      if (!asked)
        return `no session/request_permission with id ${check.id} arrived (ids seen: ${show(a.messages.filter((m) => m.msg.method === "session/request_permission").map((m) => m.msg.id))})`;
      const answered = a.messages.some(
        (m) => m.direction === "client" && m.msg.id === check.id && m.msg.method === undefined && "result" in m.msg,
      );
      return answered ? undefined : `permission request ${check.id} was never answered`;
    }
    case "notificationArrived":
      try {
        await a.waitFor(
          (m) => m.direction === "agent" && m.msg.method === check.method,
          check.timeoutMs ?? cx.timeoutMs,
          check.method,
        );
        return undefined;
      } catch (err) {
        return (err as Error).message;
      }
    case "exited": {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<"late">((r) => (timer = setTimeout(() => r("late"), cx.timeoutMs)));
      const exit = await Promise.race([a.exited, late]);
      clearTimeout(timer);
      if (exit === "late") return `the agent had not exited after ${cx.timeoutMs} ms`;
      return exit.code === check.code
        ? undefined
        : `exit code ${show(exit.code)} (signal ${show(exit.signal)}), expected ${show(check.code)}`;
    }
    case "allValid": {
      const validator = createAcpValidator();
      const bad = a.messages.map((m) => ({ m, v: validator.validate(m.msg, m.direction) })).filter((x) => !x.v.ok);
      return bad.length
        ? bad
            .slice(0, 3)
            .map((x) => `${x.m.direction} ${show(x.m.msg.method ?? x.m.msg.id)}: ${x.v.errors.slice(0, 2).join("; ")}`)
            .join(" | ")
        : undefined;
    }
  }
}
