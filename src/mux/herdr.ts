/*
 * Herdr backend: visible panes in a Herdr server, launched with the initial-command layout API.
 * Owns: the launch recipe (workspace.create → layout.apply{tab_id, root.command} → pane.process_info),
 *   liveness, exit observation (events with a pane.get poll as the fallback), capture and close.
 * Does not own: the socket protocol (herdr-client.ts) or the agent-field verdict (herdr-agent.ts).
 * Invariant: argv is spawned by Herdr directly (no shell, nothing typed into a pane); the descriptor's pid
 *   is pane.process_info.shell_pid, which is the argv program itself for a command pane.
 *   Environment: Herdr layers server env < spec.env < its own HERDR_ and TERM vars; that is Herdr's
 *   contract (the grok Herdr hook needs HERDR_*), so unlike tmux the env is not exactly spec.env.
 *   The env (secrets included) travels only inside the layout.apply request on Herdr's socket, which
 *   Herdr does not echo; it never reaches an argv, an error or a log line of ours.
 * Spec: shared reference herdr-api.md §5.
 */
import { SeatError } from "../errors.js";
import { registerSecrets } from "../internal/redact.js";
import { type Backend, type LaunchSpec, type PaneDescriptor, type WaitOptions, pollForExit, sleep } from "./backend.js";
import { HerdrClient, isHerdrError, type HerdrEventStream } from "./herdr-client.js";
import type { HerdrLayoutNode } from "./herdr-wire.js";

/** Options for a HerdrBackend. */
export interface HerdrBackendOptions {
  /** The Herdr server socket (see resolveHerdrSocketPath). */
  socketPath: string;
  /** Per-request timeout in ms. */
  timeoutMs?: number;
}

/** A Backend that hosts panes in a Herdr server (protocol 20 / 22). */
export class HerdrBackend implements Backend {
  readonly name = "herdr" as const;
  readonly client: HerdrClient;

  constructor(options: HerdrBackendOptions) {
    this.client = new HerdrClient(
      options.socketPath,
      options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs },
    );
  }

  /** Create a workspace, replace its shell tab with a tab running argv, and read the argv program's pid. */
  async launch(spec: LaunchSpec): Promise<PaneDescriptor> {
    if (spec.argv.length === 0)
      throw new SeatError("MUX_COMMAND_FAILED", "Cannot launch an empty argv in Herdr.", {
        context: { argv: spec.argv },
      });
    registerSecrets(spec.env); // the env travels only inside the layout.apply request on Herdr's private socket
    const label = spec.label ?? "seat";
    const created = await this.client.createWorkspace({ cwd: spec.cwd, label, focus: false });
    const root: HerdrLayoutNode = { type: "pane", label, cwd: spec.cwd, command: spec.argv, env: spec.env };
    let layout;
    try {
      layout = await this.client.applyLayout({ tab_id: created.tab.tab_id, tab_label: label, focus: false, root });
    } catch (error) {
      await this.client.closePane(created.root_pane.pane_id).catch(() => undefined);
      throw error;
    }
    if (layout.root.type !== "pane" || !layout.root.pane_id) {
      throw new SeatError("HERDR_PROTOCOL_ERROR", "Herdr's layout.apply answer has no root pane id.", {
        context: { socketPath: this.client.socketPath, layout },
      });
    }
    const paneId = layout.root.pane_id;
    const base: PaneDescriptor = {
      backend: "herdr",
      paneId,
      server: this.client.socketPath,
      pid: 0,
      workspaceId: layout.workspace_id,
      tabId: layout.tab_id,
    };
    try {
      const pid = await this.readPid(paneId);
      const pane = await this.client.getPane(paneId);
      return { ...base, pid, terminal: pane.terminal_id };
    } catch (error) {
      await this.client.closePane(paneId).catch(() => undefined);
      throw error;
    }
  }

  /** True while `pane.get` finds the pane with its original terminal and process_info still shows the pid. */
  async isAlive(pane: PaneDescriptor): Promise<boolean> {
    try {
      const info = await this.client.getPane(pane.paneId);
      if (pane.terminal !== undefined && info.terminal_id !== pane.terminal) return false;
      const processInfo = await this.client.getProcessInfo(pane.paneId);
      return processInfo.shell_pid === pane.pid;
    } catch (error) {
      if (isHerdrError(error, "pane_not_found")) return false;
      throw error;
    }
  }

  /** Wait for `pane_exited` / `pane_closed` of this pane, polling `pane.get` alongside in case events are missed. */
  async waitForExit(pane: PaneDescriptor, options: WaitOptions): Promise<"exited" | "timeout"> {
    let stream: HerdrEventStream | undefined;
    try {
      stream = await this.client.subscribe([
        { type: "pane.exited", pane_id: pane.paneId },
        { type: "pane.closed", pane_id: pane.paneId },
      ]);
    } catch {
      stream = undefined; // events are an optimisation; polling alone is correct
    }
    const local = new AbortController();
    const onAbort = (): void => local.abort(options.signal?.reason);
    if (options.signal?.aborted)
      onAbort(); // it may have aborted while we subscribed
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const polled = pollForExit(
        async () => !(await this.isAlive(pane)),
        { timeoutMs: options.timeoutMs, signal: local.signal },
        500,
      );
      polled.catch(() => undefined); // the loser of the race is aborted in finally; its rejection is expected
      const evented = stream ? waitForPaneEvent(stream, pane.paneId) : new Promise<never>(() => undefined);
      return await Promise.race([polled, evented]);
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
      stream?.close();
      if (!local.signal.aborted) local.abort();
    }
  }

  /** The pane's visible text from `pane.read`. */
  async capture(pane: PaneDescriptor): Promise<string> {
    return (await this.client.readPane(pane.paneId, { source: "visible" })).text;
  }

  /** `herdr` attaches to the server's session; Herdr shows the workspace we created. */
  attachCommand(pane: PaneDescriptor): string[] {
    return ["env", `HERDR_SOCKET_PATH=${pane.server ?? this.client.socketPath}`, "herdr"];
  }

  /** `pane.close`; a pane that is already gone resolves. */
  async close(pane: PaneDescriptor): Promise<void> {
    try {
      await this.client.closePane(pane.paneId);
    } catch (error) {
      if (!isHerdrError(error, "pane_not_found")) throw error;
    }
  }

  private async readPid(paneId: string): Promise<number> {
    // The PTY child is forked during layout.apply; allow a few reads for the server to publish it.
    for (let attempt = 0; attempt < 20; attempt++) {
      const info = await this.client.getProcessInfo(paneId);
      if (typeof info.shell_pid === "number" && info.shell_pid > 0) return info.shell_pid;
      await sleep(50);
    }
    throw new SeatError("HERDR_PROTOCOL_ERROR", `Herdr never reported a shell_pid for pane ${paneId}.`, {
      context: { socketPath: this.client.socketPath, paneId },
    });
  }
}

async function waitForPaneEvent(stream: HerdrEventStream, paneId: string): Promise<"exited"> {
  for await (const event of stream) {
    const data = event.data as { pane_id?: unknown; pane?: { pane_id?: unknown } };
    const id = data.pane_id ?? data.pane?.pane_id;
    if ((event.event === "pane_exited" || event.event === "pane_closed") && id === paneId) return "exited";
  }
  return new Promise<never>(() => undefined); // stream ended: leave it to the poll
}
