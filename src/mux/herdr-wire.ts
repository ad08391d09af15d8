/*
 * Herdr wire shapes: the typed objects of Herdr's socket API (protocol 20 / 0.8.2, protocol 22 / 0.9.x)
 * and where its socket lives.
 * Owns: PaneInfo, ProcessInfo, layout nodes, event envelopes, socket path resolution.
 * Does not own: talking to the socket (herdr-client.ts) or judging agent fields (herdr-agent.ts).
 * Invariant: optional fields are omitted on the wire, never null; types mark them optional.
 * Spec: shared reference herdr-api.md §2–§7.
 */
import { join } from "node:path";

/** Agent status as Herdr reports it (`done` is derived by Herdr, never accepted as input). */
export type HerdrAgentStatus = "idle" | "working" | "blocked" | "done" | "unknown";

/** The stored session reference of a pane (`agent_session`). */
export interface HerdrAgentSession {
  source: string;
  agent: string;
  kind: "id" | "path";
  value: string;
}

/** A pane as `pane.get`, `pane.list` and lifecycle events describe it. PaneInfo carries no pid. */
export interface HerdrPaneInfo {
  pane_id: string;
  terminal_id: string;
  workspace_id: string;
  tab_id: string;
  focused: boolean;
  cwd?: string;
  foreground_cwd?: string;
  label?: string;
  agent?: string;
  title?: string;
  terminal_title?: string;
  display_agent?: string;
  agent_status: HerdrAgentStatus;
  agent_session?: HerdrAgentSession;
  revision: number;
  [extra: string]: unknown;
}

/** A workspace as `workspace.create` returns it. */
export interface HerdrWorkspaceInfo {
  workspace_id: string;
  number: number;
  label: string;
  focused: boolean;
  pane_count: number;
  tab_count: number;
  active_tab_id: string;
  agent_status: HerdrAgentStatus;
  [extra: string]: unknown;
}

/** A tab as `workspace.create` / `tab.create` return it. */
export interface HerdrTabInfo {
  tab_id: string;
  workspace_id: string;
  number: number;
  label: string;
  focused: boolean;
  pane_count: number;
  agent_status: HerdrAgentStatus;
  [extra: string]: unknown;
}

/** `pane.process_info` payload; `shell_pid` is the PTY child (the argv program of a command pane). */
export interface HerdrProcessInfo {
  pane_id: string;
  shell_pid?: number;
  foreground_process_group_id?: number;
  foreground_processes?: Array<{
    pid: number;
    name: string;
    argv0?: string;
    argv?: string[];
    cmdline?: string;
    cwd?: string;
  }>;
}

/** A node of a `layout.apply` request: a pane (optionally with a command argv) or a split. */
export type HerdrLayoutNode =
  | { type: "pane"; label?: string; cwd?: string; command?: string[]; env?: Record<string, string>; pane_id?: string }
  | { type: "split"; direction: "right" | "down"; ratio?: number; first: HerdrLayoutNode; second: HerdrLayoutNode };

/** `layout.apply` result: the new tab's tree with pane ids and no pid. */
export interface HerdrLayout {
  workspace_id: string;
  tab_id: string;
  zoomed?: boolean;
  focused_pane_id?: string;
  root: HerdrLayoutNode;
}

/** `ping` result. */
export interface HerdrPong {
  type: "pong";
  version: string;
  protocol: number;
  capabilities: Record<string, unknown>;
}

/** `pane.read` payload. */
export interface HerdrPaneRead {
  pane_id: string;
  workspace_id: string;
  tab_id: string;
  source: string;
  format: string;
  text: string;
  revision: number;
  truncated: boolean;
}

/** One event on a subscription: lifecycle events are snake_case with `data.type`; filtered kinds are dotted. */
export interface HerdrEvent {
  event: string;
  data: Record<string, unknown>;
}

/** One `events.subscribe` entry, e.g. `{type:"pane.exited", pane_id:"w1:p2"}`. */
export interface HerdrSubscription {
  type: string;
  pane_id?: string;
  [filter: string]: unknown;
}

/** Inputs to socket path resolution; defaults come from the process. */
export interface HerdrSocketPathInput {
  /** CLI-style `--session <name>`. */
  session?: string;
  env?: NodeJS.ProcessEnv;
}

/**
 * Resolve Herdr's server socket as herdr does: `--session` → HERDR_SOCKET_PATH → HERDR_SESSION
 * → `<config>/herdr.sock`, where `<config>` is `$XDG_CONFIG_HOME/herdr` or `$HOME/.config/herdr`.
 */
export function resolveHerdrSocketPath(input: HerdrSocketPathInput = {}): string {
  const env = input.env ?? process.env;
  const config = env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, "herdr") : join(env.HOME ?? "", ".config", "herdr");
  const sessionSocket = (name: string): string =>
    name === "default" ? join(config, "herdr.sock") : join(config, "sessions", name, "herdr.sock");
  if (input.session) return sessionSocket(input.session);
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH;
  if (env.HERDR_SESSION) return sessionSocket(env.HERDR_SESSION);
  return join(config, "herdr.sock");
}
