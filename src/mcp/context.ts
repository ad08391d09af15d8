/*
 * MCP server context: what every tool of `seat mcp` is handed — the limits the server was started with, the
 *   client's declared roots, and the register of work in flight that a shutdown must end first.
 * Owns: McpServerOptions, ToolContext, the roots a call may use (server --root ∪ client roots/list), and
 *   `track` (a tool's in-flight work, awaited on shutdown so no agent outlives the server).
 * Does not own: the checks themselves (boundaries.ts) or any tool (tools/).
 */
import type { NotifyTarget } from "../notify-config/index.js";
import { fileURLToPath } from "node:url";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { PermissionPolicy } from "../permissions/index.js";
import { SeatError } from "../errors.js";
import { realDirectory } from "./boundaries.js";
import { DEFAULT_MAX_RUNS, RunSlots } from "./run-slots.js";
import type { ToolRegistry } from "./tool-registry.js";

/** How `seat mcp` was started: the limits no caller can widen. */
export interface McpServerOptions {
  /** The server's permission policy; a call may only narrow it. */
  policy: PermissionPolicy;
  /** Directories (real paths) a call's cwd may lie under, besides the roots the client declares. */
  roots: readonly string[];
  /** Agents a call may drive; the first is the default. */
  agents: readonly string[];
  /** Explicit grok binary (`--grok`); default GROK_BIN, PATH, the npm package. */
  grokCliBinaryPath?: string;
  /** How long a held approval waits before it is denied (ms). */
  approvalTimeoutMs: number;
  /** Cancel a turn after this long (ms); undefined = off. */
  turnTimeoutMs?: number;
  /** Cancel a turn silent for this long (ms); undefined = off. */
  idleTimeoutMs?: number;
  /**
   * While a turn runs, send a progress notification at least this often (ms), so a client that resets its
   * tool-call timeout on progress keeps waiting through a long silent stretch; undefined = off.
   */
  heartbeatMs?: number;
  /** How many `run` calls may run at once (`--max-runs`); default DEFAULT_MAX_RUNS. */
  maxRuns?: number;
  /** The fleet's Redis URL (`--redis`): the fleet tools are served only with it. */
  redisUrl?: string;
  /** Notification targets every `run` turn tells (`seat mcp --notify`, else the config's default targets). */
  notify?: readonly NotifyTarget[];
  /** Visible seats: a private tmux server name (`--tmux-socket`) and grok's version floor (`--version-floor`). */
  visible?: { tmuxSocket?: string; versionFloor?: string };
}

/** What a tool's register function receives. */
export interface ToolContext {
  server: McpServer;
  /** Registers a tool: listed by the SDK, its calls checked against its schemas by us (tool-registry.ts). */
  registerTool: ToolRegistry["register"];
  options: McpServerOptions;
  /** The roots a call's cwd may lie under now: --root dirs, then the client's declared roots (real paths). */
  roots(): Promise<string[]>;
  /**
   * Registers work in flight (a turn); shutdown waits for every tracked promise before the process exits. After
   * shutdown began it rejects with MCP_CALL_CANCELLED: callers start work that checks `closing` itself, or none.
   */
  track<T>(work: Promise<T>): Promise<T>;
  /** Aborted when the server shuts down (host gone, signal): no new turn starts after it. */
  closing: AbortSignal;
  /** Registers a clean-up (a connection to close) that runs at shutdown, after every tracked work ended. */
  onShutdown(cleanup: () => Promise<void>): void;
  /** The server's `run` slots (`--max-runs`): a run call takes one before it starts anything. */
  runSlots: RunSlots;
}

/** The context the server builds; `drain()` waits for tracked work. */
export interface ServerContext extends ToolContext {
  /** Waits for every tracked work, then runs the clean-ups. */
  drain(): Promise<void>;
  shutdown(): void;
}

/** Builds the context for `server`: client roots are asked for on each call (they may change), never cached. */
export function createToolContext(server: McpServer, options: McpServerOptions, registry: ToolRegistry): ServerContext {
  const inFlight = new Set<Promise<unknown>>();
  const closing = new AbortController();
  const cleanups: Array<() => Promise<void>> = [];
  return {
    server,
    registerTool: registry.register,
    options,
    runSlots: new RunSlots(options.maxRuns ?? DEFAULT_MAX_RUNS),
    closing: closing.signal,
    async roots() {
      const roots = [...options.roots];
      const declared =
        server.server.getClientCapabilities()?.roots !== undefined ? await addClientRoots(server, roots) : 0;
      // A client that declared roots, none of them a usable directory, gets none: never the server's own instead.
      return roots.length > 0 || declared > 0 ? roots : fallbackRoots();
    },
    track(work) {
      // Work that starts after shutdown began would outlive the drain: it is refused (and its promise ignored).
      if (closing.signal.aborted) {
        work.catch(() => undefined);
        return Promise.reject(
          new SeatError("MCP_CALL_CANCELLED", "The server is shutting down (its host went away); nothing new starts."),
        );
      }
      inFlight.add(work);
      const done = () => inFlight.delete(work);
      work.then(done, done);
      return work;
    },
    onShutdown(cleanup) {
      cleanups.push(cleanup);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      await Promise.allSettled(cleanups.map((cleanup) => cleanup()));
    },
    shutdown() {
      closing.abort();
    },
  };
}

/**
 * Adds the client's declared file roots (real paths) to `roots` and answers how many roots the client declared
 * (a list that could not be had counts as one: the client meant to declare something).
 * A root that is no usable local directory (another host, an encoded "/", not a file: URI, gone) is skipped on its
 * own; the client's other roots still count.
 */
async function addClientRoots(server: McpServer, roots: string[]): Promise<number> {
  let listed: Awaited<ReturnType<typeof server.server.listRoots>>;
  try {
    listed = await server.server.listRoots(undefined, { timeout: 10_000 });
  } catch {
    // A client that advertised roots but cannot list them (the SDK also refuses a whole list holding one root that
    // is not a file: URI) adds none; the server's --root dirs still apply, its working directory does not.
    return 1;
  }
  for (const root of listed.roots) {
    const path = localPathOf(root.uri);
    const real = path === undefined ? undefined : realDirectory(path);
    if (real !== undefined && !roots.includes(real)) roots.push(real);
  }
  return listed.roots.length;
}

/** The local path a file: URI names, or undefined when it names none (fileURLToPath refuses it). */
function localPathOf(uri: string): string | undefined {
  if (!uri.startsWith("file://")) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

/** Neither --root nor client roots: the server's own working directory is the one root. */
function fallbackRoots(): string[] {
  const real = realDirectory(process.cwd());
  return real === undefined ? [] : [real];
}
