/*
 * Herdr simulator: a real Unix-socket server that behaves like Herdr 0.8.2 (protocol 20) or 0.9.x
 * (protocol 22) for the methods grok-seat uses. Runs in-process (startHerdrSim) or as a CLI:
 *   node dist/test/fakes/herdr-sim.js --socket P [--version 0.9.0] [--detect grok,grok-build | --no-detect]
 * Owns: the wire contract of herdr-api.md §9: 0600 socket; one line in (≤ 1 MiB, 5 s) → one line out → close,
 *   except events.subscribe; id:"" invalid_request for bad JSON / unknown methods / missing required params;
 *   w1 / w1:t1 / w1:p1 ids (bijective base-32); omitted optionals; layout.apply spawning argv without a
 *   shell; pane_exited + pane_closed on exit; report_agent's silent drops and the agent / agent_session split.
 * Does not own: a terminal emulator. Panes are child_process.spawn with stdio PIPES, not a PTY (node-pty is
 *   not a dependency); so pane.read returns the raw stdout+stderr text, and a TUI that needs a tty cannot run here.
 * Invariant: process detection (top-level `agent`) follows only argv[0]'s basename (default grok, grok-build),
 *   so a differently named fake yields agent_session without `agent`, as real Herdr does.
 */
import { createServer, createConnection, type Server, type Socket } from "node:net";
import { spawn, type ChildProcess } from "node:child_process";
import { accessSync, chmodSync, constants, existsSync, unlinkSync } from "node:fs";
import { basename, delimiter, isAbsolute, join } from "node:path";
import { pathToFileURL } from "node:url";

/** Options of the simulator. */
export interface HerdrSimOptions {
  socketPath: string;
  /** Emulated release: "0.8.2" → protocol 20 (default), anything 0.9.x → protocol 22. */
  version?: string;
  /** argv[0] basenames Herdr's process detection recognises, mapped to agent names; {} disables detection. */
  detect?: Record<string, string>;
  /** Argv of the default shell of workspace.create panes. */
  shell?: string[];
}

const ALPHABET = "123456789ABCDEFGHJKMNPQRSTVWXYZ0";
const MAX_LINE = 1024 * 1024;
const READ_TIMEOUT_MS = 5000;
const RESERVED = new Set(["grok", "claude", "codex", "copilot", "devin", "droid", "qodercli", "qwen", "cursor"]);
const STATES = new Set(["idle", "working", "blocked", "unknown"]);
const LIFECYCLE = new Set([
  "workspace.created",
  "workspace.updated",
  "workspace.closed",
  "workspace.focused",
  "tab.created",
  "tab.closed",
  "tab.focused",
  "pane.created",
  "pane.closed",
  "pane.updated",
  "pane.focused",
  "pane.moved",
  "pane.exited",
  "pane.agent_detected",
  "layout.updated",
]);
const FILTERED = new Set(["pane.output_matched", "pane.agent_status_changed", "pane.scroll_changed"]);

/** Bijective base-32 numeral over Herdr's alphabet: 1→"1", 9→"9", 10→"A", 32→"0", 33→"11". */
export function herdrNumeral(n: number): string {
  let out = "";
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 32)) out = ALPHABET[(rest - 1) % 32] + out;
  return out;
}

class SimError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
class InvalidRequest extends Error {}

interface Workspace {
  id: string;
  number: number;
  label: string;
  tabs: string[];
  tabCounter: number;
  paneCounter: number;
}
interface Tab {
  id: string;
  workspaceId: string;
  number: number;
  label: string;
  panes: string[];
}
interface Pane {
  id: string;
  workspaceId: string;
  tabId: string;
  terminalId: string;
  label?: string;
  cwd: string;
  argv: string[];
  child: ChildProcess;
  output: string;
  revision: number;
  running: boolean;
  closing: boolean;
  authority?: { source: string; agent: string; state: string };
  sessionRef?: { source: string; agent: string; kind: "id" | "path"; value: string };
  seqBySource: Map<string, number>;
  wasWorking: boolean;
}
interface Subscriber {
  socket: Socket;
  subs: Array<Record<string, unknown>>;
}

/** The simulator: a Herdr-shaped server with real child processes. */
export class HerdrSim {
  readonly socketPath: string;
  private readonly version: string;
  private readonly detect: Record<string, string>;
  private readonly shell: string[];
  private server?: Server;
  private workspaceCounter = 0;
  private terminalCounter = 0;
  private readonly workspaces = new Map<string, Workspace>();
  private readonly tabs = new Map<string, Tab>();
  private readonly panes = new Map<string, Pane>();
  private readonly children = new Set<ChildProcess>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly connections = new Set<Socket>();

  constructor(options: HerdrSimOptions) {
    this.socketPath = options.socketPath;
    this.version = options.version ?? "0.8.2";
    this.detect = options.detect ?? { grok: "grok", "grok-build": "grok" };
    this.shell = options.shell ?? [process.env.SHELL || "/bin/sh"];
  }

  /** Listen on the socket (mode 0600); refuses a socket another server answers on. */
  async start(): Promise<void> {
    if (existsSync(this.socketPath)) {
      const busy = await new Promise<boolean>((resolve) => {
        const probe = createConnection(this.socketPath, () => {
          probe.destroy();
          resolve(true);
        });
        probe.on("error", () => resolve(false));
      });
      if (busy) throw new Error(`herdr is already running (socket busy at ${this.socketPath})`);
      unlinkSync(this.socketPath);
    }
    const server = createServer((socket) => this.onConnection(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.socketPath, () => resolve());
    });
    chmodSync(this.socketPath, 0o600);
  }

  /** Stop listening, end subscriptions and kill every pane process; resolves once they have exited. */
  async stop(): Promise<void> {
    for (const sub of this.subscribers) sub.socket.destroy();
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
    const exits = [...this.children].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    );
    await Promise.all(exits);
    this.panes.clear();
    try {
      unlinkSync(this.socketPath);
    } catch {
      /* already gone */
    }
  }

  /** Number of live pane processes (for teardown assertions). */
  get liveProcessCount(): number {
    return [...this.children].filter((child) => child.exitCode === null && child.signalCode === null).length;
  }

  // ---- connection handling: one line in, one line out, close --------------------------------------

  private onConnection(socket: Socket): void {
    this.connections.add(socket);
    socket.on("close", () => this.connections.delete(socket));
    socket.on("error", () => undefined);
    let buffer = Buffer.alloc(0);
    let done = false;
    const timer = setTimeout(() => {
      done = true;
      socket.destroy();
    }, READ_TIMEOUT_MS);
    socket.on("data", (chunk: Buffer) => {
      if (done) return;
      buffer = Buffer.concat([buffer, chunk]);
      const newline = buffer.indexOf(0x0a);
      if (newline === -1 && buffer.length <= MAX_LINE) return;
      done = true;
      clearTimeout(timer);
      if (newline === -1 || newline > MAX_LINE)
        return this.reply(socket, {
          id: "",
          error: { code: "invalid_request", message: "invalid request: line exceeds 1 MiB" },
        });
      this.handleLine(socket, buffer.subarray(0, newline).toString("utf8"));
    });
  }

  private reply(socket: Socket, envelope: object): void {
    socket.end(`${JSON.stringify(envelope)}\n`);
  }

  private handleLine(socket: Socket, line: string): void {
    let request: { id?: unknown; method?: unknown; params?: unknown };
    try {
      request = JSON.parse(line);
      if (
        typeof request !== "object" ||
        request === null ||
        typeof request.id !== "string" ||
        typeof request.method !== "string"
      )
        throw new InvalidRequest("expected {id, method, params}");
      if (typeof request.params !== "object" || request.params === null || Array.isArray(request.params))
        throw new InvalidRequest("missing field `params`");
    } catch (error) {
      return this.reply(socket, {
        id: "",
        error: { code: "invalid_request", message: `invalid request: ${(error as Error).message}` },
      });
    }
    const id = request.id as string;
    const params = request.params as Record<string, unknown>;
    try {
      if (request.method === "events.subscribe") return this.subscribe(socket, id, params);
      const result = this.dispatch(request.method as string, params);
      this.reply(socket, { id, result });
      if (request.method === "server.stop") socket.once("finish", () => void this.stop());
    } catch (error) {
      if (error instanceof InvalidRequest)
        return this.reply(socket, {
          id: "",
          error: { code: "invalid_request", message: `invalid request: ${error.message}` },
        });
      if (error instanceof SimError)
        return this.reply(socket, { id, error: { code: error.code, message: error.message } });
      this.reply(socket, { id, error: { code: "internal_error", message: String(error) } });
    }
  }

  private dispatch(method: string, p: Record<string, unknown>): object {
    switch (method) {
      case "ping":
        return this.version.startsWith("0.8")
          ? {
              type: "pong",
              version: this.version,
              protocol: 20,
              capabilities: { live_handoff: true, detached_server_daemon: false },
            }
          : {
              type: "pong",
              version: this.version,
              protocol: 22,
              capabilities: {
                live_handoff: true,
                detached_server_daemon: true,
                endpoint_protocol_generation: 1,
                surface_interest: true,
                health_check: true,
              },
            };
      case "server.stop":
        return { type: "ok" };
      case "workspace.create":
        return this.createWorkspace(p);
      case "layout.apply":
        return this.applyLayout(p);
      case "pane.get":
        return { type: "pane_info", pane: this.paneInfo(this.pane(p)) };
      case "pane.list":
        return {
          type: "pane_list",
          panes: [...this.panes.values()].filter((x) => !x.closing).map((x) => this.paneInfo(x)),
        };
      case "pane.process_info":
        return { type: "pane_process_info", process_info: this.processInfo(this.pane(p)) };
      case "pane.read":
        return this.read(this.pane(p), p);
      case "pane.report_agent":
        return this.reportAgent(this.pane(p), p, true);
      case "pane.report_agent_session":
        return this.reportAgent(this.pane(p), p, false);
      case "pane.release_agent":
        return this.releaseAgent(this.pane(p), p);
      case "pane.close":
        this.closePane(this.pane(p));
        return { type: "ok" };
      default:
        throw new InvalidRequest(`unknown variant \`${method}\``);
    }
  }

  // ---- workspaces, layouts, panes ------------------------------------------------------------------

  private createWorkspace(p: Record<string, unknown>): object {
    this.workspaceCounter += 1;
    const ws: Workspace = {
      id: `w${herdrNumeral(this.workspaceCounter)}`,
      number: this.workspaceCounter,
      label: optString(p, "label") ?? `workspace ${this.workspaceCounter}`,
      tabs: [],
      tabCounter: 0,
      paneCounter: 0,
    };
    this.workspaces.set(ws.id, ws);
    const tab = this.createTab(ws, "shell");
    const pane = this.spawnPane(ws, tab, {
      cwd: optString(p, "cwd") ?? process.cwd(),
      argv: this.shell,
      env: optEnv(p),
    });
    this.emit("workspace.created", { workspace: this.workspaceInfo(ws) });
    this.emit("tab.created", { tab: this.tabInfo(tab) });
    this.emit("pane.created", { pane: this.paneInfo(pane) });
    return {
      type: "workspace_created",
      workspace: this.workspaceInfo(ws),
      tab: this.tabInfo(tab),
      root_pane: this.paneInfo(pane),
    };
  }

  private applyLayout(p: Record<string, unknown>): object {
    const workspaceId = optString(p, "workspace_id");
    const replaceTabId = optString(p, "tab_id");
    if (workspaceId && replaceTabId) throw new SimError("invalid_target", "pass workspace_id or tab_id, not both");
    if (typeof p.root !== "object" || p.root === null) throw new InvalidRequest("missing field `root`");
    const old = replaceTabId ? this.tabs.get(replaceTabId) : undefined;
    if (replaceTabId && !old) throw new SimError("tab_not_found", `tab ${replaceTabId} not found`);
    const ws = this.workspaces.get(old?.workspaceId ?? workspaceId ?? [...this.workspaces.keys()].at(-1) ?? "");
    if (!ws) throw new SimError("workspace_not_found", `workspace ${workspaceId ?? "(active)"} not found`);
    validateLayout(p.root as Record<string, unknown>);
    const tab = this.createTab(ws, optString(p, "tab_label") ?? "layout");
    const created: Pane[] = [];
    const build = (node: Record<string, unknown>): object => {
      if (node.type === "split")
        return {
          type: "split",
          direction: node.direction,
          ratio: node.ratio ?? 0.5,
          first: build(node.first as Record<string, unknown>),
          second: build(node.second as Record<string, unknown>),
        };
      const command = node.command as string[] | undefined;
      const pane = this.spawnPane(ws, tab, {
        cwd: typeof node.cwd === "string" ? node.cwd : process.cwd(),
        argv: command ?? this.shell,
        env: optEnv(node),
        ...(typeof node.label === "string" ? { label: node.label } : {}),
      });
      created.push(pane);
      return {
        type: "pane",
        pane_id: pane.id,
        ...(pane.label ? { label: pane.label } : {}),
        cwd: pane.cwd,
        ...(command ? { command } : {}),
      };
    };
    const root = build(p.root as Record<string, unknown>);
    if (old) this.closeTab(old);
    this.emit("tab.created", { tab: this.tabInfo(tab) });
    for (const pane of created) this.emit("pane.created", { pane: this.paneInfo(pane) });
    this.emit("layout.updated", { workspace_id: ws.id, tab_id: tab.id });
    return {
      type: "layout_apply",
      layout: { workspace_id: ws.id, tab_id: tab.id, zoomed: false, focused_pane_id: created[0]!.id, root },
    };
  }

  private createTab(ws: Workspace, label: string): Tab {
    ws.tabCounter += 1;
    const tab: Tab = {
      id: `${ws.id}:t${herdrNumeral(ws.tabCounter)}`,
      workspaceId: ws.id,
      number: ws.tabCounter,
      label,
      panes: [],
    };
    this.tabs.set(tab.id, tab);
    ws.tabs.push(tab.id);
    return tab;
  }

  private spawnPane(
    ws: Workspace,
    tab: Tab,
    spec: { cwd: string; argv: string[]; env: Record<string, string>; label?: string },
  ): Pane {
    ws.paneCounter += 1;
    this.terminalCounter += 1;
    const id = `${ws.id}:p${herdrNumeral(ws.paneCounter)}`;
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      ...spec.env,
      HERDR_ENV: "1",
      HERDR_SOCKET_PATH: this.socketPath,
      HERDR_BIN_PATH: "herdr",
      HERDR_WORKSPACE_ID: ws.id,
      HERDR_TAB_ID: tab.id,
      HERDR_PANE_ID: id,
      TERM: "xterm-256color",
      COLORTERM: "truecolor",
    };
    delete env.CODEX_THREAD_ID;
    // argv[0] is looked up on the SERVER's PATH and executed directly (no shell), as portable-pty does.
    const program = lookPath(spec.argv[0]!);
    if (!program) throw new SimError("pane_spawn_failed", `failed to spawn ${spec.argv[0]}: not found on PATH`);
    // A real pane's program leads its own session on its pty (grok's leader then has sid = the TUI's pid): setsid.
    const child = spawn(program, spec.argv.slice(1), {
      argv0: spec.argv[0]!,
      cwd: spec.cwd,
      env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const pane: Pane = {
      id,
      workspaceId: ws.id,
      tabId: tab.id,
      terminalId: `term_${(Date.now() * 1000).toString(16)}${this.terminalCounter.toString(16)}`,
      cwd: spec.cwd,
      argv: spec.argv,
      child,
      output: "",
      revision: 1,
      running: true,
      closing: false,
      seqBySource: new Map(),
      wasWorking: false,
      ...(spec.label ? { label: spec.label } : {}),
    };
    this.children.add(child);
    const append = (chunk: Buffer): void => {
      pane.output = (pane.output + chunk.toString("utf8")).slice(-MAX_LINE);
    };
    child.stdout!.on("data", append);
    child.stderr!.on("data", append);
    child.stdin!.on("error", () => undefined);
    child.on("error", (error) => {
      append(Buffer.from(`${error.message}\n`));
    });
    child.on("exit", (code, signal) => this.onExit(pane, code, signal));
    this.panes.set(id, pane);
    tab.panes.push(id);
    return pane;
  }

  private onExit(pane: Pane, code: number | null, signal: NodeJS.Signals | null): void {
    pane.running = false;
    this.children.delete(pane.child);
    if (pane.closing || !this.panes.has(pane.id)) return;
    this.emit("pane.exited", {
      pane_id: pane.id,
      workspace_id: pane.workspaceId,
      tab_id: pane.tabId,
      ...(code !== null ? { exit_code: code } : {}),
      ...(signal ? { signal } : {}),
    });
    this.closePane(pane);
  }

  private closePane(pane: Pane): void {
    if (pane.closing) return;
    pane.closing = true;
    if (pane.running) pane.child.kill("SIGHUP");
    this.panes.delete(pane.id);
    this.emit("pane.closed", { pane_id: pane.id, workspace_id: pane.workspaceId, tab_id: pane.tabId });
    const tab = this.tabs.get(pane.tabId);
    if (!tab) return;
    tab.panes = tab.panes.filter((id) => id !== pane.id);
    if (tab.panes.length === 0) this.closeTab(tab);
  }

  private closeTab(tab: Tab): void {
    for (const id of [...tab.panes]) {
      const pane = this.panes.get(id);
      if (pane) this.closePane(pane);
    }
    if (!this.tabs.delete(tab.id)) return;
    this.emit("tab.closed", { tab_id: tab.id, workspace_id: tab.workspaceId });
    const ws = this.workspaces.get(tab.workspaceId);
    if (!ws) return;
    ws.tabs = ws.tabs.filter((id) => id !== tab.id);
    if (ws.tabs.length === 0) {
      this.workspaces.delete(ws.id);
      this.emit("workspace.closed", { workspace_id: ws.id });
    }
  }

  private pane(p: Record<string, unknown>): Pane {
    if (typeof p.pane_id !== "string") throw new InvalidRequest("missing field `pane_id`");
    const pane = this.panes.get(p.pane_id);
    if (!pane) throw new SimError("pane_not_found", `pane ${p.pane_id} not found`);
    return pane;
  }

  // ---- agent reporting (herdr-api.md §6) -------------------------------------------------------------

  private reportAgent(pane: Pane, p: Record<string, unknown>, withState: boolean): object {
    const source = reqString(p, "source");
    const agent = reqString(p, "agent");
    const state = withState ? reqString(p, "state") : undefined;
    if (state !== undefined && !STATES.has(state)) throw new InvalidRequest(`unknown variant \`${state}\``);
    const seq = typeof p.seq === "number" ? p.seq : undefined;
    const last = pane.seqBySource.get(source);
    // Silent drops: stale or equal seq, or an unsequenced report after a sequenced one. Still {"type":"ok"}.
    if (last !== undefined && (seq === undefined || seq <= last)) return { type: "ok" };
    if (seq !== undefined) pane.seqBySource.set(source, seq);
    const before = this.status(pane);
    const official = source === `herdr:${agent}`;
    const reserved = source.startsWith("herdr:") && RESERVED.has(source.slice("herdr:".length));
    const ref = sessionRef(p);
    if (official && ref) pane.sessionRef = { source, agent, ...ref };
    if (withState && !reserved) {
      // A hook source gains authority; a reserved native source (herdr:grok, …) only stores its session ref.
      if (state === "working") pane.wasWorking = true;
      pane.authority = { source, agent, state: state! };
    }
    pane.revision += 1;
    const after = this.status(pane);
    if (after !== before)
      this.emit("pane.agent_status_changed", {
        pane_id: pane.id,
        workspace_id: pane.workspaceId,
        agent_status: after,
        ...(this.agentOf(pane) ? { agent: this.agentOf(pane) } : {}),
      });
    return { type: "ok" };
  }

  private releaseAgent(pane: Pane, p: Record<string, unknown>): object {
    const source = reqString(p, "source");
    if (pane.authority?.source === source) {
      delete pane.authority;
      pane.revision += 1;
    }
    return { type: "ok" };
  }

  private agentOf(pane: Pane): string | undefined {
    if (pane.authority) return pane.authority.agent;
    return pane.running ? this.detect[basename(pane.argv[0]!)] : undefined;
  }

  private status(pane: Pane): string {
    if (pane.authority) return pane.authority.state === "idle" && pane.wasWorking ? "done" : pane.authority.state;
    return this.agentOf(pane) ? "idle" : "unknown";
  }

  // ---- views (optional fields omitted, never null) ------------------------------------------------------

  private paneInfo(pane: Pane): Record<string, unknown> {
    const agent = this.agentOf(pane);
    return {
      pane_id: pane.id,
      terminal_id: pane.terminalId,
      workspace_id: pane.workspaceId,
      tab_id: pane.tabId,
      focused: false,
      cwd: pane.cwd,
      ...(pane.label ? { label: pane.label } : {}),
      ...(agent ? { agent } : {}),
      agent_status: this.status(pane),
      ...(pane.sessionRef ? { agent_session: { ...pane.sessionRef } } : {}),
      revision: pane.revision,
    };
  }

  private processInfo(pane: Pane): object {
    const pid = pane.child.pid;
    return {
      pane_id: pane.id,
      ...(pid && pane.running
        ? {
            shell_pid: pid,
            foreground_processes: [{ pid, name: basename(pane.argv[0]!), argv0: pane.argv[0], argv: pane.argv }],
          }
        : {}),
    };
  }

  private read(pane: Pane, p: Record<string, unknown>): object {
    const source = optString(p, "source") ?? "visible";
    const lines = pane.output
      .replace(/\r\n/g, "\n")
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
      .split("\n");
    const limit = typeof p.lines === "number" ? p.lines : source === "visible" ? 45 : 1000;
    const kept = lines.slice(-limit);
    return {
      type: "pane_read",
      read: {
        pane_id: pane.id,
        workspace_id: pane.workspaceId,
        tab_id: pane.tabId,
        source,
        format: optString(p, "format") ?? "text",
        text: kept.join("\n"),
        revision: 0,
        truncated: kept.length < lines.length,
      },
    };
  }

  private workspaceInfo(ws: Workspace): object {
    const paneCount = ws.tabs.reduce((n, id) => n + (this.tabs.get(id)?.panes.length ?? 0), 0);
    return {
      workspace_id: ws.id,
      number: ws.number,
      label: ws.label,
      focused: false,
      pane_count: paneCount,
      tab_count: ws.tabs.length,
      active_tab_id: ws.tabs.at(-1) ?? "",
      agent_status: "unknown",
    };
  }

  private tabInfo(tab: Tab): object {
    return {
      tab_id: tab.id,
      workspace_id: tab.workspaceId,
      number: tab.number,
      label: tab.label,
      focused: false,
      pane_count: tab.panes.length,
      agent_status: "unknown",
    };
  }

  // ---- events ---------------------------------------------------------------------------------------------

  private subscribe(socket: Socket, id: string, p: Record<string, unknown>): void {
    const subs = p.subscriptions;
    if (!Array.isArray(subs))
      return this.reply(socket, {
        id: "",
        error: { code: "invalid_request", message: "invalid request: missing field `subscriptions`" },
      });
    for (const sub of subs) {
      const type = (sub as Record<string, unknown>)?.type;
      if (typeof type !== "string" || (!LIFECYCLE.has(type) && !FILTERED.has(type))) {
        return this.reply(socket, {
          id: "",
          error: { code: "invalid_request", message: `invalid request: unknown variant \`${String(type)}\`` },
        });
      }
    }
    const subscriber: Subscriber = { socket, subs: subs as Array<Record<string, unknown>> };
    this.subscribers.add(subscriber);
    socket.on("close", () => this.subscribers.delete(subscriber));
    socket.write(`${JSON.stringify({ id, result: { type: "subscription_started" } })}\n`);
  }

  private emit(type: string, data: Record<string, unknown>): void {
    const filtered = FILTERED.has(type);
    const paneId = (data.pane_id ?? (data.pane as Record<string, unknown> | undefined)?.pane_id) as string | undefined;
    const line = filtered
      ? { event: type, data }
      : { event: type.replace(".", "_"), data: { type: type.replace(".", "_"), ...data } };
    for (const subscriber of this.subscribers) {
      const wanted = subscriber.subs.some(
        (sub) =>
          sub.type === type &&
          (sub.pane_id === undefined || sub.pane_id === paneId) &&
          (sub.agent_status === undefined || sub.agent_status === data.agent_status),
      );
      if (wanted && !subscriber.socket.destroyed) subscriber.socket.write(`${JSON.stringify(line)}\n`);
    }
  }
}

/** Start a simulator on `options.socketPath`; call `stop()` in teardown. */
export async function startHerdrSim(options: HerdrSimOptions): Promise<HerdrSim> {
  const sim = new HerdrSim(options);
  await sim.start();
  return sim;
}

function optString(p: Record<string, unknown>, key: string): string | undefined {
  return typeof p[key] === "string" ? (p[key] as string) : undefined;
}

function reqString(p: Record<string, unknown>, key: string): string {
  if (typeof p[key] !== "string") throw new InvalidRequest(`missing field \`${key}\``);
  return p[key] as string;
}

function optEnv(node: Record<string, unknown>): Record<string, string> {
  const env = (node.env ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(env)) {
    if (key === "" || key.includes("=") || key.includes("\0") || typeof value !== "string")
      throw new SimError("invalid_env", `invalid environment key ${JSON.stringify(key)}`);
  }
  return env as Record<string, string>;
}

function sessionRef(p: Record<string, unknown>): { kind: "id" | "path"; value: string } | undefined {
  const valid = (v: unknown): v is string =>
    typeof v === "string" && v !== "" && Buffer.byteLength(v) <= 512 && !/[\x00-\x1f\x7f]/.test(v);
  if (valid(p.agent_session_id)) return { kind: "id", value: p.agent_session_id };
  if (valid(p.agent_session_path) && isAbsolute(p.agent_session_path))
    return { kind: "path", value: p.agent_session_path };
  return undefined;
}

function validateLayout(root: Record<string, unknown>): void {
  let panes = 0;
  const walk = (node: Record<string, unknown>, depth: number): void => {
    if (depth > 16) throw new SimError("invalid_layout", "layout deeper than 16");
    if (node?.type === "split") {
      if (node.direction !== "right" && node.direction !== "down")
        throw new SimError("invalid_layout", "split direction must be right or down");
      walk(node.first as Record<string, unknown>, depth + 1);
      walk(node.second as Record<string, unknown>, depth + 1);
    } else if (node?.type === "pane") {
      panes += 1;
      if (
        node.command !== undefined &&
        (!Array.isArray(node.command) || node.command.length === 0 || node.command.some((x) => typeof x !== "string"))
      )
        throw new SimError("invalid_layout", "command must be a non-empty argv");
      optEnv(node);
    } else throw new InvalidRequest("layout node type must be pane or split");
  };
  walk(root, 1);
  if (panes > 24) throw new SimError("invalid_layout", "more than 24 panes");
}

function lookPath(name: string): string | undefined {
  const candidates = name.includes("/")
    ? [name]
    : (process.env.PATH ?? "")
        .split(delimiter)
        .filter(Boolean)
        .map((dir) => join(dir, name));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* next */
    }
  }
  return undefined;
}

async function main(argv: string[]): Promise<void> {
  const value = (flag: string): string | undefined => {
    const i = argv.indexOf(flag);
    return i === -1 ? undefined : argv[i + 1];
  };
  const socketPath = value("--socket");
  if (!socketPath) {
    process.stderr.write("usage: herdr-sim --socket PATH [--version 0.8.2|0.9.0] [--detect a,b | --no-detect]\n");
    process.exit(2);
  }
  const names = argv.includes("--no-detect") ? [] : (value("--detect") ?? "grok,grok-build").split(",").filter(Boolean);
  const sim = await startHerdrSim({
    socketPath,
    version: value("--version") ?? "0.8.2",
    detect: Object.fromEntries(names.map((n) => [n, n === "grok-build" ? "grok" : n])),
  });
  process.stderr.write(`herdr-sim listening on ${socketPath}\n`);
  const shutdown = (): void => {
    void sim.stop().then(() => process.exit(0));
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) void main(process.argv.slice(2));
