/*
 * Session options: everything an embedder can ask of a headless seat, in one documented type.
 * Owns: the option names and their defaults.
 * Does not own: acting on them (session.ts).
 */
import type { TurnBudget } from "../metering/index.js";
import type { Usage } from "../acp/index.js";
import type { ContentBlock, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import type { SeatCallbacks } from "../acp/index.js";
import type { HostTool } from "../tools/index.js";
import type { OperatorMcpServer } from "./mcp-servers.js";
import type { Approver, DecideContext } from "../permissions/index.js";

/** A permission hook: answers one `session/request_permission` with one of the offered options. */
export type PermissionHook = (request: RequestPermissionRequest) => Promise<RequestPermissionResponse>;

/** A permission gate (see permissions/): decides and reports an audit record. */
export interface PermissionDecider {
  /** `context`: the held-approval queue the session offers when the gate has no approver of its own. */
  decide(
    request: RequestPermissionRequest,
    context?: DecideContext,
  ): Promise<{
    response: RequestPermissionResponse;
    audit: { category: string; decision: string; optionId?: string; reason?: string };
  }>;
  /**
   * The policy's action for a category without asking anyone; the host-tools bridge checks "mcp" on every call,
   * and a request whose category answers "require-approval" puts the session in the `waiting` state.
   */
  policyAction?(
    category: "read" | "edit" | "execute" | "network" | "mcp" | "other",
  ): "allow" | "require-approval" | "block";
}

/** Options of createSession. */
export interface SessionOptions {
  /** Which ACP agent to drive: "grok" (default), "codex", "claude", "opencode" or "gemini" (agents/). */
  agent?: string;
  /** Any other ACP agent: its command line (parsed without a shell) or argv. Takes precedence over `agent`. */
  agentCommand?: string | readonly string[];
  /** Where pinned agents are installed (`seat agents install`). Default: GROK_SEAT_AGENTS_DIR, else `$XDG_CACHE_HOME/grok-seat/agents` (`~/.cache/grok-seat/agents`). */
  agentsDir?: string;
  /** Use an agent found on PATH even when its version is not the one grok-seat tests (its pinned version). */
  allowUntestedAgentVersion?: boolean;
  /** Working directory of the session (absolute). Default: process.cwd(). */
  cwd?: string;
  /** `grok-cli/<id>`, `grok/<id>` or a bare id; `grok/default` or none omits `-m`. */
  model?: string;
  /** Explicit grok binary (`grokCliBinaryPath`). */
  grokCliBinaryPath?: string;
  /** Environment to take the allow-listed variables from. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Extra variables set verbatim on the agent (e.g. a sandbox HOME/GROK_HOME). */
  agentEnv?: Record<string, string>;
  /** Variable names (of env or agentEnv) to treat as secret like XAI_API_KEY: masked in every error, diagnostic and output. */
  secretEnvNames?: readonly string[];
  /** Operator MCP servers forwarded on session/new. */
  mcpServers?: OperatorMcpServer[];
  /** Host tools, served through a loopback bridge + stdio MCP server. */
  tools?: HostTool[];
  /** Name of the host-tools MCP server (tools appear as `<name>__<tool>`). Default "host-tools". */
  toolServerName?: string;
  /**
   * Host-tools bridge overrides. `serverEntry`: the MCP server script grok runs (default: the compiled
   * mcp-server.js beside this library); a missing file fails the bridge as `mcp-schema-server-missing`.
   */
  toolBridge?: { serverEntry?: string };
  /** Skill roots (each with SKILL.md) staged into a session plugin dir with the bundled skill. */
  additionalSkillPaths?: string[];
  /** Stage the bundled grok-seat skill. Default true when tools or skills are given. */
  includeBundledSkill?: boolean;
  /** Extra plugin dirs passed as-is (`--plugin-dir` and `_meta.pluginDirs`). */
  pluginDirs?: string[];
  /** Replaces grok's system prompt (`_meta.systemPromptOverride`). */
  systemPrompt?: string;
  /** Appended to the system prompt as rules (`_meta.rules`). */
  rules?: string;
  callbacks?: SeatCallbacks;
  /** Permission gate; takes precedence over `onPermissionRequest`. */
  permissions?: PermissionDecider;
  /** Permission hook; with neither, every request is answered with the reject option and reported. */
  onPermissionRequest?: PermissionHook;
  /**
   * Hold a request the gate's policy sends for approval, when the gate has no approver of its own, as a pending
   * approval (approvals/: listApprovals, answerApproval, `seat approvals`) until it is answered or its deadline
   * passes (denied, APPROVAL_TIMEOUT). Off by default for the library: without it such a request is denied at
   * once with PERMISSION_NO_APPROVER. `seat run` turns it on. `local`: an approver raced against the queue
   * (the terminal's prompt); the first answer wins.
   */
  approvals?:
    | boolean
    | {
        timeoutMs?: number;
        owner?: { kind: "session" | "named-session" | "job"; id?: string; name?: string };
        local?: Approver;
      };
  /** Cancel a turn running longer than this (ms). Off by default. */
  turnTimeoutMs?: number;
  /** Cancel a turn silent for this long (ms). Off by default. */
  idleTimeoutMs?: number;
  /** How long to wait for `_x.ai/mcp_initialized` when MCP servers were given. Default 20000. */
  mcpReadyTimeoutMs?: number;
  /** How long to wait for initialize/authenticate/session/new in total. Default 60000. */
  handshakeTimeoutMs?: number;
  /** Grace between SIGTERM and SIGKILL on dispose. Default 2000. */
  killGraceMs?: number;
  /**
   * End a turn with MODEL_UNREACHABLE once grok has retried one model request this many times (read from
   * grok's own log, see docs/health.md). Off by default; retries are reported as `retry` events either way.
   */
  failFastAfterRetries?: number;
  /**
   * grok only: put the seat's metering point on grok's model route (the xAI API route) so the calls grok makes
   * without reporting them (turn summary, titles) are metered and kept within the turn's budget; elsewhere they
   * are estimated. Default true; false leaves grok's route alone and estimates. See docs/spend.md.
   */
  meterModelRoute?: boolean;
  /**
   * Continue this existing agent session (session/resume, else session/load) instead of session/new; a
   * session that cannot be attached makes the session dead with SESSION_NOT_RESUMABLE. Used by sessions/.
   */
  resume?: { sessionId: string };
  /**
   * The budget of every turn of this session (a prompt's own `budget` replaces it): the turn is cancelled with
   * BUDGET_EXCEEDED once the usage reported per model call goes over it. See docs/spend.md.
   */
  budget?: TurnBudget;
  /** Run a budget even on an agent that does not report what it limits (otherwise BUDGET_UNMETERED, nothing sent). */
  allowUnmetered?: boolean;
  /**
   * The USD cost of one model call's usage when the agent reports none (e.g. `costFromPrices` of a price file);
   * with it a cost budget is checkable from tokens. A prompt's own `costOf` replaces it.
   */
  costOf?: (usage: Usage) => number | undefined;
  /** Also deliver diagnostic text to onText (seed 002). Default true. */
  diagnosticsAsText?: boolean;
}

/** What prompt() accepts. */
export type PromptInput = string | ContentBlock[];
