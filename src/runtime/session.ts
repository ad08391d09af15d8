/*
 * Headless session: one `grok agent --no-leader stdio` process driven over ACP, reused for many turns.
 * Owns: createSession (binary → skills → tool bridge → spawn → handshake → MCP readiness), prompt/cancel,
 *   permission answering, and dispose (cancel, then the whole process tree, bridge and staged skills).
 * Does not own: the turn engine and update mapping (acp/), policy (permissions/), the bridge (tools/).
 * Invariant: resolve-never-reject — createSession never throws (a failure yields a dead session carrying a
 *   diagnostic), prompt() never rejects whatever it is given, cancel() and dispose() never reject; dispose() is
 *   idempotent, finishes even when a callback never returns, and leaves no descendant process alive.
 *   Our own diagnostics go through the same callback queue as the turn's events, with bounded patience.
 *   The auth method is chosen from the environment grok is spawned with, never from ours.
 *   With `approvals`, a request the gate would deny for want of an approver is held (approvals/) until an
 *   answer, its deadline (APPROVAL_TIMEOUT) or the end of its turn; it is never allowed by any of the latter.
 * Spec: seed 002 "Session lifecycle", "Diagnostics and empty-output invariant"; docs/contract.md.
 */
import { randomUUID } from "node:crypto";
import { resolve as resolvePath } from "node:path";
import type { McpServer, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { SeatError, messageOf, type ErrorCode } from "../errors.js";
import { markSecretNames, maskSecretValues, registerSecrets } from "../internal/redact.js";
import {
  CallbackQueue,
  checkPromptInput,
  connectAcp,
  createDiagnostic,
  SessionCore,
  type AcpPeer,
  type Diagnostic,
  type PromptOptions,
  type TurnResult,
} from "../acp/index.js";
import {
  buildAgentArgv,
  buildAgentEnv,
  laneMarker,
  normalizeModelSelection,
  resolveGrokBinary,
  spawnAgent,
  type AgentProcess,
} from "../grok/index.js";
// The host-tools bridge and skill staging load only for a session that uses them: a plain
// `seat run` needs neither, and they are most of what the session would otherwise load before grok starts.
import { toAcpMcpServers } from "./mcp-servers.js";
import type { ToolBridge } from "../tools/index.js";
import { categorize, chooseResponse, type ApprovalRequest } from "../permissions/index.js";
import type { StagedSkills } from "../skills/index.js";
import { withTimeout } from "../internal/timeout.js";
// queue.ts alone: the approvals front door also carries the remote side (identity/), which a session never uses.
import { ApprovalQueue } from "../approvals/index.js";
import { grokLogPath, startTurnHealth } from "../health/index.js";
import { handshake, type HandshakeResult } from "./handshake.js";
import { refuseUnsafeAttach } from "./attach.js";
import { unknownModelError } from "./model-check.js";
import { agentLaunch, resolveAgentProfile, withSessionLaunch } from "./agent-launch.js";
import { SideCallMeter } from "./side-calls.js";
import {
  createStateTracker,
  isFinalState,
  stateAfterTurn,
  type AttentionSnapshot,
  type StateTracker,
} from "../attention/index.js";
import type { PromptInput, SessionOptions } from "./options.js";
import { budgetRefusal } from "./budget-gate.js";

/** An ids-only audit record (no paths, schemas, prose or credentials). */
export type AuditEvent = Record<string, string | number | boolean>;

/** The state of a headless session. */
export type SessionState = "ready" | "dead" | "disposed";

/** A headless Grok seat. */
export interface HeadlessSession {
  /** ACP session id (undefined when the session never came up). */
  readonly id: string | undefined;
  readonly state: SessionState;
  /** The model passed with `-m`, or undefined for grok's default. */
  readonly model: string | undefined;
  /** `grok/<model>` or `grok/default`; never `undefined/undefined`. */
  readonly laneMarker: string;
  /** Diagnostics raised outside turns (creation, bridge, MCP readiness, dispose). */
  readonly diagnostics: readonly Diagnostic[];
  /** Ids-only audit records (bridge failures, permission decisions). */
  readonly audit: readonly AuditEvent[];
  /** What grok reported at initialize (version, auth method used), when it got that far. */
  readonly agent: { version?: string; authMethodId?: string; pid?: number } | undefined;
  /** Sends one prompt; resolves how the turn ended and never rejects. */
  prompt(input: PromptInput, options?: PromptOptions): Promise<TurnResult>;
  /** Cancels the running turn, if any. */
  cancel(): Promise<void>;
  /** Ends the session: best-effort cancel, then the process tree. Idempotent. */
  dispose(): Promise<{ survivors: number[] }>;
  /**
   * Where the session is now (starting, idle, working, waiting on an approval, …) and since when; every change
   * is also a `{type:"state"}` event (onEvent, onState).
   */
  attention(): AttentionSnapshot;
}

const CLIENT_VERSION = "0.1.0";

/** How long a diagnostic of our own (outside a turn's deadline) may wait on the embedder's callbacks. */
const REPORT_PATIENCE_MS = 5_000;

/** How long dispose waits for grok to answer the cancel of a running turn before it kills the tree. */
const DISPOSE_CANCEL_GRACE_MS = 1_000;

class Session implements HeadlessSession {
  state: SessionState = "ready";
  id: string | undefined;
  agent: HeadlessSession["agent"];
  readonly diagnostics: Diagnostic[] = [];
  readonly audit: AuditEvent[] = [];
  core: SessionCore | undefined;
  peer: AcpPeer | undefined;
  process: AgentProcess | undefined;
  bridge: ToolBridge | undefined;
  /** `mcp` permissions answered allow-once and not yet used by a bridge call; allow-always makes it standing. */
  private mcpGrants = 0;
  private mcpStanding = false;

  /**
   * The bridge's own check on every host-tool call: the policy's `mcp` action when a gate has one; otherwise
   * (require-approval, a hook, the default) only a call grok asked permission for and that was allowed.
   */
  authorizeBridgeCall = (): boolean => {
    const action = this.options.permissions?.policyAction?.("mcp");
    if (action === "block") return false;
    if (action === "allow" || this.mcpStanding) return true;
    if (this.mcpGrants > 0) {
      this.mcpGrants -= 1;
      return true;
    }
    return false;
  };

  private noteMcpAnswer(request: RequestPermissionRequest, response: RequestPermissionResponse): void {
    if (response.outcome.outcome !== "selected" || categorize(request) !== "mcp") return;
    const optionId = response.outcome.optionId;
    const kind = request.options?.find((o) => o.optionId === optionId)?.kind;
    if (kind === "allow_always") this.mcpStanding = true;
    else if (kind === "allow_once") this.mcpGrants += 1;
  }
  skills: StagedSkills | undefined;
  /** Removes the files written for a non-grok agent's launch (rules file, session config). */
  launchCleanup: (() => void) | undefined;
  /** grok's side calls (turn summary, titles): the metering point on its model route, or the estimate. */
  sideCalls: SideCallMeter | undefined;
  /** grok's unified.jsonl, followed during each turn (health/). */
  grokLog: string | undefined;
  private disposing: Promise<{ survivors: number[] }> | undefined;
  /** What initialize advertised for prompt content (image, audio, embeddedContext). */
  promptCapabilities: Record<string, unknown> = {};
  /** One queue for every callback of this session: turn events and our own diagnostics alike. */
  readonly queue: CallbackQueue;

  /** The session's attention state; its changes go through the callback queue, in order with the turn's events. */
  readonly tracker: StateTracker;

  /** Permission asks of this session now waiting on an approver. */
  private waitingAsks = 0;

  /** Held approvals (options.approvals), when on. */
  readonly approvals: ApprovalQueue | undefined;

  constructor(
    readonly options: SessionOptions,
    readonly model: string | undefined,
  ) {
    this.queue = new CallbackQueue(options.callbacks ?? {}, options.diagnosticsAsText !== false, (d) =>
      this.diagnostics.push(d),
    );
    this.tracker = createStateTracker((event) => this.queue.push(event));
    const held = options.approvals;
    if (held) {
      const config = held === true ? {} : held;
      this.approvals = new ApprovalQueue({
        owner: () => ({
          kind: config.owner?.kind ?? "session",
          id: config.owner?.id ?? this.id ?? "",
          ...(config.owner?.name !== undefined ? { name: config.owner.name } : {}),
        }),
        ...(config.timeoutMs !== undefined ? { timeoutMs: config.timeoutMs } : {}),
        emit: (event) => this.core?.emit(event),
        onHold: () => this.core?.holdIdle() ?? (() => undefined),
      });
    }
  }

  /** The agent's short name as a person types it (`grok`, `codex`, `custom` for a command), for labelling what it printed. */
  agentName(): string {
    try {
      return resolveAgentProfile(this.options)?.name ?? "grok";
    } catch {
      return String(this.options.agent);
    }
  }

  /** Who a start failure is about: "Grok", or the other agent's own title (never "Grok" for Codex). */
  agentTitle(): string {
    try {
      return resolveAgentProfile(this.options)?.title ?? "Grok";
    } catch {
      return this.options.agentCommand !== undefined ? "The agent" : `Agent ${String(this.options.agent)}`;
    }
  }

  attention(): AttentionSnapshot {
    return this.tracker.snapshot();
  }

  /** The state after a turn: set just before its `done` event, so `done` stays the turn's last event. */
  afterTurn = (end: { stopReason?: string; diagnostic?: { code: string } }): void => {
    // An approval still pending when its turn ends can no longer be answered: it is denied (APPROVAL_EXPIRED)
    // here, before the turn's `done`, so `done` stays the turn's last event.
    this.approvals?.expireAll();
    const after = stateAfterTurn(end);
    this.tracker.set(after.state, after.reason ? { reason: after.reason } : {});
  };

  get laneMarker(): string {
    return laneMarker(this.model);
  }

  /** Records a diagnostic and delivers it through the callback queue; a stuck callback is abandoned. */
  async report(code: ErrorCode, message: string, how: { asCreate?: boolean; asText?: boolean } = {}): Promise<void> {
    const diagnostic = how.asCreate ? createDiagnostic(code, message, this.agentTitle()) : { code, message };
    this.diagnostics.push(diagnostic);
    this.queue.push({ type: "diagnostic", diagnostic, ...(how.asText === false ? { asText: false } : {}) });
    await this.queue.settle(Date.now() + REPORT_PATIENCE_MS);
  }

  async prompt(input: PromptInput, options: PromptOptions = {}): Promise<TurnResult> {
    const refused = checkPromptInput(input, options);
    const askedId = refused ? undefined : options?.promptId;
    const promptId = askedId ?? `seat-${randomUUID()}`;
    if (refused) {
      await this.report(refused.code, refused.message);
      return { promptId, text: "", diagnostic: refused, echoed: false };
    }
    options ??= {};
    if (this.state !== "ready" || !this.core) {
      const diagnostic = {
        code: "ACP_SESSION_DEAD" as const,
        message: `The Grok session is ${this.state}; create a new session.`,
      };
      await this.report(diagnostic.code, diagnostic.message);
      return { promptId, text: "", diagnostic, echoed: false };
    }
    const unsupported = unsupportedContent(input, this.promptCapabilities);
    if (unsupported) {
      const diagnostic = {
        code: "ACP_CONTENT_UNSUPPORTED" as const,
        message: `This grok does not accept ${unsupported} content in prompts (initialize promptCapabilities.${unsupported} is not true); nothing was sent.`,
      };
      await this.report(diagnostic.code, diagnostic.message);
      return { promptId, text: "", diagnostic, echoed: false };
    }
    const budget = options.budget ?? this.options.budget;
    const costOf = options.costOf ?? this.options.costOf;
    if (budget !== undefined) {
      const refusal = budgetRefusal(budget, this.options, typeof costOf === "function");
      if (refusal) {
        await this.report(refusal.code, refusal.message);
        return { promptId, text: "", diagnostic: refusal, echoed: false };
      }
    }
    const core = this.core;
    this.tracker.set("working");
    const health =
      this.grokLog && this.id
        ? startTurnHealth({
            logPath: this.grokLog,
            sessionId: this.id,
            pid: this.agent?.pid,
            promptId,
            failFastAfterRetries: this.options.failFastAfterRetries,
            emit: (e) => core.emit(e),
            signal: options.signal,
          })
        : undefined;
    // A call the metering point refuses once the budget is spent ends the turn over budget, not as grok's failed call.
    this.sideCalls?.beginTurn(promptId, budget, costOf, (crossed) => core.endOverBudget(promptId, crossed));
    const turn = await core.prompt(input, {
      promptId,
      turnTimeoutMs: options.turnTimeoutMs ?? this.options.turnTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? this.options.idleTimeoutMs,
      ...(health ? { signal: health.signal } : options.signal ? { signal: options.signal } : {}),
      ...(budget ? { budget } : {}),
      ...(costOf ? { costOf } : {}),
    });
    await health?.stop();
    const result = this.sideCalls ? await this.sideCalls.finishTurn(turn, budget) : turn;
    // grok's own calls after the turn's text (its summary) can take it over budget: said after `done`, like a ledger failure.
    if (result.diagnostic && result.diagnostic !== turn.diagnostic)
      await this.report(result.diagnostic.code, result.diagnostic.message);
    // An approval still pending when its turn ended can no longer be answered: it is denied (APPROVAL_EXPIRED).
    this.approvals?.expireAll();
    // A turn that ended without reaching finish() (refused before sending) still leaves `working`.
    if (this.tracker.snapshot().state === "working" || this.tracker.snapshot().state === "waiting")
      this.afterTurn(result);
    const timedOut = ["ACP_TURN_TIMEOUT", "ACP_IDLE_TIMEOUT", "MODEL_UNREACHABLE"].includes(
      result.diagnostic?.code ?? "",
    );
    // A timeout that grok acknowledged (it answered the cancel) leaves the session usable; one it never
    // answered means the agent is stuck, so the session is disposed. A lost connection is fatal too.
    if (
      (timedOut && result.stopReason === undefined) ||
      (result.diagnostic?.code === "ACP_PROMPT_FAILED" && this.peer?.signal.aborted)
    ) {
      await this.dispose();
    }
    return result;
  }

  async cancel(): Promise<void> {
    await this.core?.cancel().catch(() => undefined);
  }

  dispose(): Promise<{ survivors: number[] }> {
    this.disposing ??= this.teardown();
    return this.disposing;
  }

  private async teardown(): Promise<{ survivors: number[] }> {
    const wasReady = this.state === "ready";
    this.state = this.state === "dead" ? "dead" : "disposed";
    // A session that ends between turns is done; one that ends under a running turn (or before it was up) was
    // interrupted; a turn's own failed/cancelled stays the last word.
    const was = this.tracker.snapshot().state;
    if (was === "idle") this.tracker.set("done");
    else if (!isFinalState(was)) this.tracker.set("interrupted");
    // A running turn is cancelled (it resolves ACP_SESSION_DISPOSED) and stuck callbacks stop holding us.
    this.queue.interrupt();
    this.approvals?.close();
    if (wasReady) await this.core?.close(DISPOSE_CANCEL_GRACE_MS).catch(() => undefined);
    this.peer?.close();
    let result: { survivors: number[] } = { survivors: [] };
    try {
      result = (await this.process?.terminate({ graceMs: this.options.killGraceMs ?? 2_000 })) ?? result;
    } catch (error) {
      await this.report("GROK_DISPOSE_SURVIVORS", `Killing grok's process tree failed: ${messageOf(error)}.`);
    }
    await this.bridge?.close().catch(() => undefined);
    await this.sideCalls?.close().catch(() => undefined);
    try {
      this.skills?.cleanup();
      this.launchCleanup?.();
    } catch {
      // Best effort: the staged plugin dir and the launch files are temp dirs.
    }
    if (result.survivors.length > 0) {
      await this.report("GROK_DISPOSE_SURVIVORS", `Processes survived dispose: ${result.survivors.join(", ")}.`);
    }
    // The last state change (done, interrupted) is delivered before dispose resolves, within the callback grace.
    await this.queue.settle(Date.now());
    return result;
  }

  answerPermission = async (request: RequestPermissionRequest): Promise<RequestPermissionResponse> => {
    const toolCallId = request.toolCall.toolCallId;
    try {
      if (this.options.permissions) {
        // Only a call the policy sends to an approver waits on someone; a policy answer is immediate.
        const asks = this.options.permissions.policyAction?.(categorize(request)) === "require-approval";
        // Counted: with two asks held at once, the first answer must not end the waiting of the second.
        if (asks && this.waitingAsks++ === 0) this.tracker.set("waiting", { waitingOn: "approval" });
        let held = false;
        const queue = this.approvals;
        const local = typeof this.options.approvals === "object" ? this.options.approvals.local : undefined;
        const context = queue
          ? {
              approver: (q: ApprovalRequest) => {
                held = true;
                return queue.approver(local)(q);
              },
              timeoutMs: queue.timeoutMs,
            }
          : undefined;
        let decided: Awaited<ReturnType<NonNullable<SessionOptions["permissions"]>["decide"]>>;
        try {
          decided = await this.options.permissions.decide(request, context);
        } finally {
          if (asks && --this.waitingAsks === 0 && this.tracker.snapshot().state === "waiting")
            this.tracker.set("working");
        }
        const { response, audit } = decided;
        this.noteMcpAnswer(request, response);
        this.audit.push({ event: "permission", toolCallId, category: audit.category, decision: audit.decision });
        if (audit.reason === "approver-failed") {
          void this.report(
            "PERMISSION_APPROVER_FAILED",
            `The permission approver threw or answered something other than allow/always/deny; the ${audit.category} call was denied.`,
          );
        }
        this.core?.emit({
          type: "permission",
          toolCallId,
          category: audit.category,
          decision: audit.decision,
          ...(audit.optionId ? { optionId: audit.optionId } : {}),
        });
        if (audit.reason === "no-approver") this.core?.noteTurnDiagnostic(noApproverDiagnostic(audit.category, "gate"));
        if (held && audit.reason === "approver-timeout") {
          this.core?.noteTurnDiagnostic({
            code: "APPROVAL_TIMEOUT",
            message: `A ${audit.category} tool call waited ${Math.round(queue!.timeoutMs / 1000)} s for approval and nobody answered, so it was denied. Answer sooner (seat approvals, seat approve ID) or raise the deadline (--approval-timeout SECS).`,
          });
        }
        return response;
      }
      if (this.options.onPermissionRequest) {
        const response = await this.options.onPermissionRequest(request);
        this.noteMcpAnswer(request, response);
        const optionId = response.outcome.outcome === "selected" ? response.outcome.optionId : undefined;
        const kind = request.options.find((o) => o.optionId === optionId)?.kind ?? "cancelled";
        this.core?.emit({
          type: "permission",
          toolCallId,
          category: "hook",
          decision: kind.startsWith("allow") ? "allow" : "deny",
          ...(optionId ? { optionId } : {}),
        });
        return response;
      }
    } catch (error) {
      void this.report(
        "PERMISSION_APPROVER_FAILED",
        `The permission hook failed (${messageOf(error)}); the request was refused.`,
      );
    }
    // The safe default: the agent's own reject option, or `cancelled` when it offered none.
    const denied = chooseResponse("deny", request.options);
    if (!this.options.permissions && !this.options.onPermissionRequest)
      this.core?.noteTurnDiagnostic(noApproverDiagnostic(categorize(request), "none"));
    this.core?.emit({
      type: "permission",
      toolCallId,
      category: "default",
      decision: denied.decision,
      ...(denied.optionId ? { optionId: denied.optionId } : {}),
    });
    return denied.response;
  };
}

/**
 * The diagnostic of a call denied because nobody could be asked: it names the category and the policy knob
 * (`allow` in the gate's policy, `--allow` on the CLI) or the approver that would have been asked.
 */
function noApproverDiagnostic(category: string, had: "gate" | "none"): Diagnostic {
  const knob = `allow it in the policy (createPermissionGate({ policy: parsePolicyFlags({ allow: ["${category}"] }) }); CLI: --allow ${category}) or give the gate an approver`;
  const why =
    had === "gate"
      ? `the policy requires approval for "${category}" and the gate has no approver`
      : "the session has no permission gate (no `permissions`, no `onPermissionRequest`)";
  return {
    code: "PERMISSION_NO_APPROVER",
    message: `A ${category} tool call was denied because nobody could be asked: ${why}. To let it run, ${knob}.`,
  };
}

/** The first content kind in `input` the agent did not advertise (image, audio), if any. */
function unsupportedContent(input: PromptInput, capabilities: Record<string, unknown>): "image" | "audio" | undefined {
  if (typeof input === "string") return undefined;
  for (const block of input) {
    if ((block.type === "image" || block.type === "audio") && capabilities[block.type] !== true) return block.type;
  }
  return undefined;
}

/**
 * The agent's stderr tail as a diagnostic shows it: labelled with the agent's name, every known secret value
 * masked, and the names masked said (a person reading it knows what was hidden and why).
 */
function stderrTailSection(agent: string, tail: string): string {
  const { text, masked } = maskSecretValues(tail);
  return `${agent} stderr (tail${masked.length > 0 ? `; masked: ${masked.join(", ")}` : ""}):\n${text}`;
}

/**
 * Creates a headless seat. Never throws: when anything fails the returned session has state "dead" and
 * carries the diagnostic (also delivered to the callbacks).
 */
export async function createSession(options: SessionOptions = {}): Promise<HeadlessSession> {
  const given: unknown = options ?? {};
  const usable = typeof given === "object" && !Array.isArray(given);
  const opts = (usable ? given : {}) as SessionOptions;
  const session = new Session(opts, normalizeModelSelection(opts.model));
  try {
    if (!usable)
      throw new SeatError(
        "SESSION_OPTIONS_INVALID",
        `createSession takes an options object, not ${Array.isArray(given) ? "an array" : typeof given}.`,
      );
    await start(session, opts, session.model);
  } catch (error) {
    const seatError =
      error instanceof SeatError ? error : new SeatError("ACP_HANDSHAKE_FAILED", messageOf(error), { cause: error });
    // An agent that died during the handshake wrote why on stderr: read the tail once that pipe has closed (its
    // exit can be seen first), waiting a moment at most for one still running.
    await session.process?.stderrSettled(500);
    const tail = session.process?.stderrTail(2_000).trim();
    session.tracker.set("failed", { reason: seatError.code });
    await session.dispose();
    session.state = "dead";
    const message = tail ? `${seatError.message}\n${stderrTailSection(session.agentName(), tail)}` : seatError.message;
    await session.report(seatError.code, message, { asCreate: true });
  }
  if (session.state === "ready") session.tracker.set("idle");
  return session;
}

async function start(session: Session, options: SessionOptions, model: string | undefined): Promise<void> {
  const env = options.env ?? process.env;
  markSecretNames(options.secretEnvNames);
  registerSecrets(env);
  const cwd = resolvePath(options.cwd ?? process.cwd());
  // Another agent (agents/) is launched from its profile; grok (no profile) keeps today's path unchanged.
  const profile = resolveAgentProfile(options);
  refuseUnsafeAttach(profile, options.resume);
  const launch = profile ? agentLaunch(profile, options, env) : undefined;
  const binary = profile
    ? undefined
    : await resolveGrokBinary({
        ...(options.grokCliBinaryPath ? { explicitPath: options.grokCliBinaryPath } : {}),
        env,
      });
  const tools = options.tools ?? [];

  const mcpServers: McpServer[] = toAcpMcpServers(options.mcpServers ?? []);
  const rules: string[] = options.rules ? [options.rules] : [];
  if (tools.length > 0) {
    const { bridgeFailureAudit, bridgeFailureReason, createToolBridge, toolOmittedAudit } = await import(
      "../tools/index.js"
    );
    try {
      const bridge = await createToolBridge({
        tools,
        ...(options.toolServerName ? { serverName: options.toolServerName } : {}),
        ...(options.toolBridge?.serverEntry !== undefined ? { serverEntry: options.toolBridge.serverEntry } : {}),
        ...(profile ? { projection: profile.projection, modelToolName: profile.modelToolName } : {}),
        // The model sees a bounded one-line message; the host gets the whole error here (never as onText).
        onExecuteError: (toolName, error) =>
          void session.report("TOOL_EXECUTE_FAILED", `Host tool "${toolName}" threw: ${messageOf(error)}`, {
            asText: false,
          }),
        authorize: session.authorizeBridgeCall,
      });
      // A tool with a bad name or schema is left out on its own; the others are served.
      for (const omitted of bridge.omittedTools) {
        session.audit.push({ ...toolOmittedAudit(omitted, tools.length) });
        await session.report(omitted.error.code, omitted.error.message);
      }
      if (bridge.toolNames.length > 0) {
        session.bridge = bridge;
        mcpServers.push(bridge.mcpServer);
        rules.push(bridge.rulesText);
      } else {
        await bridge.close();
      }
    } catch (error) {
      const reason = bridgeFailureReason(error) ?? "bridge-start-failed";
      session.audit.push({ ...bridgeFailureAudit(reason, tools.length) });
      // The fixed code keeps the audit free of prose; the operator still needs the real cause (a bad
      // schema, a bad server name), so a cause of our own is reported first as its own diagnostic.
      if (error instanceof SeatError && error.code !== "TOOL_BRIDGE_FAILED")
        await session.report(error.code, error.message);
      await session.report("TOOL_BRIDGE_FAILED", `GROK_SEAT_TOOL_BRIDGE_FAILED: ${reason}`);
    }
  }
  const pluginDirs = [...(options.pluginDirs ?? [])];
  const requestedSkills = (options.additionalSkillPaths?.length ?? 0) > 0 || options.includeBundledSkill === true;
  const rulesProfile = profile !== undefined && profile.skills === "rules";
  if (rulesProfile ? requestedSkills : requestedSkills || (options.includeBundledSkill !== false && tools.length > 0)) {
    const skills = await import("../skills/index.js");
    if (rulesProfile) {
      // No plugin dirs outside grok: the requested skills' SKILL.md text goes into the rules instead.
      session.skills = skills.stageSkills({
        additionalSkillPaths: options.additionalSkillPaths ?? [],
        includeBundled: options.includeBundledSkill === true,
      });
      rules.push(skills.skillsRulesBody(session.skills));
    } else {
      session.skills = skills.stageSkills({
        additionalSkillPaths: options.additionalSkillPaths ?? [],
        includeBundled: options.includeBundledSkill !== false,
      });
      pluginDirs.push(session.skills.dir);
      rules.push(skills.rulesText(session.skills.skillNames, session.bridge?.toolNames.length ?? 0));
    }
  }

  // A non-grok agent gets the model and the rules its native way (argv, env, a rules file; agent-launch.ts).
  const sessionLaunch =
    launch && profile
      ? withSessionLaunch(profile, launch, {
          ...(model ? { model } : {}),
          ...(options.rules || rules.length ? { rules: rules.join("\n\n") } : {}),
        })
      : undefined;
  session.launchCleanup = sessionLaunch?.cleanup;
  const argv = sessionLaunch
    ? sessionLaunch.argv
    : buildAgentArgv({ binary: binary!.path, ...(model ? { model } : {}), pluginDirs });
  // The auth choice reads this same environment: what grok actually gets, not what we run with.
  let agentEnv = sessionLaunch ? sessionLaunch.env : buildAgentEnv(env, options.agentEnv ?? {});
  if (!profile) {
    // grok's own side calls (turn summary, titles) are in no report: meter them on its model route.
    const started = options.meterModelRoute === false ? undefined : await SideCallMeter.start(agentEnv, model);
    session.sideCalls = started?.meter ?? SideCallMeter.estimating();
    agentEnv = started?.env ?? agentEnv;
  }
  session.grokLog = launch ? undefined : grokLogPath(agentEnv);
  session.process = await spawnAgent({ argv, env: agentEnv, cwd });
  const agentProcess = session.process;
  const core = (session.core = new SessionCore(
    (session.peer = await connectAcp(agentProcess.stream, {
      onSessionUpdate: (n) => core.handleUpdate(n),
      onExtNotification: (method, params) => core.handleExt(method, params),
      onPermissionRequest: (request) => session.answerPermission(request),
    })),
    options.callbacks ?? {},
    { queue: session.queue, onTurnEnd: session.afterTurn },
  ));
  const exitedEarly = agentProcess.exited.then((exit) => {
    throw new SeatError(
      "GROK_EXITED",
      `grok exited during the handshake (code ${exit.code ?? "none"}, signal ${exit.signal ?? "none"}).`,
      { context: { ...exit } },
    );
  });
  exitedEarly.catch(() => undefined);
  const timeoutMs = options.handshakeTimeoutMs ?? 60_000;
  const result: HandshakeResult = await withTimeout(
    Promise.race([
      handshake(session.peer, {
        cwd,
        mcpServers,
        pluginDirs,
        rules: rules.join("\n\n") || undefined,
        systemPrompt: options.systemPrompt,
        env: agentEnv,
        clientVersion: CLIENT_VERSION,
        ...(options.resume ? { attach: options.resume } : {}),
        ...(profile ? { profile } : {}),
      }),
      exitedEarly,
    ]),
    timeoutMs,
    () =>
      new SeatError("ACP_HANDSHAKE_FAILED", `grok did not finish the ACP handshake within ${timeoutMs} ms.`, {
        retryable: true,
      }),
  );
  // An unknown `-m` makes grok fall back and retry until the idle timeout: refuse it now.
  const refusedModel = profile ? undefined : unknownModelError(model, result.session);
  if (refusedModel) throw refusedModel;
  core.bind(result.session.sessionId);
  session.promptCapabilities = { ...(result.initialize.agentCapabilities?.promptCapabilities ?? {}) };
  session.id = result.session.sessionId;
  session.agent = {
    authMethodId: result.authMethodId,
    pid: agentProcess.pid,
    ...(result.agentVersion ? { version: result.agentVersion } : {}),
  };
  // Only grok reports MCP readiness (`_x.ai/mcp_initialized`); other agents load MCP servers in session/new.
  if (mcpServers.length > 0 && !profile) {
    const ready = await core.waitForMcpInitialized(options.mcpReadyTimeoutMs ?? 20_000);
    if (!ready)
      await session.report(
        "ACP_MCP_NOT_READY",
        "grok did not report its MCP servers initialized in time; tools may be missing in the first turn.",
      );
  }
}
