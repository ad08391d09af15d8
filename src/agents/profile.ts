/*
 * Agent profile: the declarative description of one ACP agent grok-seat can drive.
 * Owns: the AgentProfile shape (launch, env allow-list, auth choice, post-session/new setup, quirks,
 *   tool naming, schema projection, MCP readiness; the offline wiring to the mock model is mock-model/agent-wiring.ts).
 * Does not own: acting on a profile (runtime/) or the profiles themselves (one file per agent beside this).
 * Invariant: a profile is data plus pure functions; nothing here spawns, reads the network or writes files.
 */
import type { AuthChoice, AdvertisedAuthMethod } from "./auth.js";

/** The names of the built-in agents; `grok` is the default and the reference. */
export const AGENT_NAMES = ["grok", "codex", "claude", "opencode", "gemini"] as const;

/** One built-in agent name. */
export type AgentName = (typeof AGENT_NAMES)[number];

/** How a host tool's root schema is listed for this agent (see tools/projection.ts). */
export type ProjectionMode = "object-with-unions" | "wrap-unions";

/** How rules text reaches an agent (see AgentProfile.rulesDelivery). */
export type RulesDelivery = "grok-meta" | "claude-append" | "acp-system-prompt" | "rules-file" | "none";

/** What one session asks of the agent's launch: a model, and where its rules file was written. */
export interface SessionLaunchRequest {
  model?: string;
  /** Absolute path of the rules file (rulesDelivery "rules-file"), when there are rules. */
  rulesFile?: string;
  /** The private temp dir holding the rules file (and any session-scoped config beside it). */
  rulesDir?: string;
}

/** A session's additions to the agent's launch; `files` (name → content) are written into the rules dir. */
export interface SessionLaunch {
  args?: string[];
  env?: Record<string, string>;
  files?: Record<string, string>;
}

/** Where launchArgv looks for a pinned install and which Node runs a script agent. */
export interface LaunchContext {
  /** GROK_SEAT_AGENTS_DIR, else `$XDG_CACHE_HOME/grok-seat/agents` (agents/install.ts). */
  installRoot: string;
  /** The environment whose PATH is searched for an agent that is not in the install root. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Use an agent found on PATH even when its version is not the pinned one we test. */
  allowUntestedVersion?: boolean;
}

/** The pinned npm package an agent is installed from. */
export interface PinnedPackage {
  /** Folder under the install root (`<root>/<dir>`). */
  dir: string;
  package: string;
  version: string;
  /** The package's executable, looked for on PATH when the agent is not in the install root. */
  bin?: string;
}

/** One ACP agent, described declaratively. */
export interface AgentProfile {
  readonly name: string;
  /** Human title for `seat agents`. */
  readonly title: string;
  /** The pinned npm package, when grok-seat installs it (`seat agents install`). */
  readonly pinned?: PinnedPackage;
  /** The argv that starts the agent speaking ACP on stdio; throws AGENT_NOT_INSTALLED when it is missing. */
  launchArgv(ctx: LaunchContext): string[];
  /** Exact variable names copied from the source env when present. */
  readonly envAllow: readonly string[];
  /** Variable-name prefixes copied from the source env. */
  readonly envPrefixes: readonly string[];
  /** Always set on the agent (telemetry off, permission mode…), overriding the source. */
  readonly envForced: Readonly<Record<string, string>>;
  /** The variables that carry this agent's own credentials, named when it is not authenticated. */
  readonly keyVars?: readonly string[];
  /** Which advertised auth method to use; `null` means call no `authenticate` (the agent's config decides). */
  chooseAuth(
    advertised: readonly AdvertisedAuthMethod[],
    defaultAuthMethodId: unknown,
    env: NodeJS.ProcessEnv,
  ): AuthChoice;
  /** `session/set_mode` right after session/new, so the agent asks for permission instead of deciding alone. */
  readonly setModeAfterNew?: string;
  /** True only for grok: wait for `_x.ai/mcp_initialized` before the first turn. */
  readonly waitsForMcpInitialized: boolean;
  /** How host tool schemas are projected for this agent's model API. */
  readonly projection: ProjectionMode;
  /** The name the model sees for host tool `tool` of server `server`. */
  modelToolName(server: string, tool: string): string;
  /** How requested skills reach the agent: grok plugin dirs, or their SKILL.md text in the rules. */
  readonly skills: "plugin-dir" | "rules";
  /**
   * How rules text reaches the agent: grok's `_meta.rules`, Claude's `_meta.systemPrompt.append`, ACP's
   * `systemPrompt: {mode: "append"}` on session/new (Codex), a rules file the agent's own config loads
   * (`rulesFileName`, wired by `sessionLaunch`), or not at all.
   */
  readonly rulesDelivery: RulesDelivery;
  /** For rulesDelivery "rules-file": the file name the rules are written to in a private temp dir. */
  readonly rulesFileName?: string;
  /**
   * Extra argv and env for one session: the requested model and the rules file, in the agent's native way.
   * Undefined when the agent takes neither (a requested model is then refused with AGENT_MODEL_UNSUPPORTED).
   */
  sessionLaunch?(request: SessionLaunchRequest): SessionLaunch;
  /**
   * Why grok-seat never attaches (session/resume, session/load) a session of this agent although it advertises
   * it: the agent would lose the session. A named session then continues only while one `openSession` handle is
   * open; every later open (`seat run -s`, the MCP `run` tool with a session) is refused with SESSION_NOT_RESUMABLE
   * before the agent starts, as for an agent that advertises neither.
   */
  readonly attachRefused?: string;
  /** Known quirks, one sentence each (shown by `seat agents`, docs/agents.md). */
  readonly quirks: readonly string[];
}

/** The auth choice of an agent whose own config provides credentials: never call `authenticate`. */
export function noAuthenticate(why: string): AuthChoice {
  return { methodId: null, why };
}
