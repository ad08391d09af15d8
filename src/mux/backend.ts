/*
 * Multiplexer backend: the one small interface every terminal-pane backend implements.
 * Owns: LaunchSpec, PaneDescriptor, Backend, and helpers shared by the backend files (stderr tail, abortable sleep).
 * Does not own: any particular multiplexer (tmux.ts, herdr.ts) or choosing one (detect.ts).
 * Invariant: a backend executes `argv` directly with the given env (never types text into a shell or a pane),
 *   and leaves the child's stderr on the terminal, because the grok TUI draws on stderr.
 */

/** What to run in a new visible pane. */
export interface LaunchSpec {
  /** The program and its arguments, executed directly (no shell). */
  argv: string[];
  /** Absolute working directory of the program. */
  cwd: string;
  /** Environment of the program; see each backend for what it adds (tmux: nothing; Herdr: its HERDR_* vars). */
  env: Record<string, string>;
  /** Human label for the pane or session; backends sanitize it. */
  label?: string;
  /** Terminal width in columns (default 160). */
  cols?: number;
  /** Terminal height in rows (default 45). */
  rows?: number;
}

/** Where a launched program lives, enough to observe, capture, attach to and close it later. */
export interface PaneDescriptor {
  backend: "tmux" | "herdr";
  /** tmux `%N` or Herdr `w1:p2`. */
  paneId: string;
  /** tmux session name (Herdr: unused). */
  sessionName?: string;
  /** tmux `-L` socket name or Herdr socket path. */
  server?: string;
  /** Pid of the argv program itself (not a wrapper shell). */
  pid: number;
  /** tty path (tmux) or Herdr terminal_id. */
  terminal?: string;
  workspaceId?: string;
  tabId?: string;
}

/** Options for waiting on a pane's program to exit. */
export interface WaitOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * A terminal multiplexer that can host a visible program. Methods are safe to call concurrently
 * for different panes; `close` on an already-closed pane resolves.
 */
export interface Backend {
  readonly name: "tmux" | "herdr";
  /** Start `spec.argv` in a new pane and return where it runs, with the program's own pid. */
  launch(spec: LaunchSpec): Promise<PaneDescriptor>;
  /** True while the pane exists and its program has not exited. */
  isAlive(pane: PaneDescriptor): Promise<boolean>;
  /** Resolve "exited" once the program is observed to have exited, or "timeout"; rejects if `signal` aborts. */
  waitForExit(pane: PaneDescriptor, options: WaitOptions): Promise<"exited" | "timeout">;
  /** The pane's visible text (no escape sequences). */
  capture(pane: PaneDescriptor): Promise<string>;
  /** An argv a human can run to look at the pane. */
  attachCommand(pane: PaneDescriptor): string[];
  /** Close the pane and end its program; idempotent. */
  close(pane: PaneDescriptor): Promise<void>;
}

/** The last `maxChars` characters of a process's stderr, trimmed, for error context. */
export function tailOf(text: string, maxChars = 2000): string {
  const trimmed = text.trim();
  return trimmed.length <= maxChars ? trimmed : `…${trimmed.slice(-maxChars)}`;
}

/** Sleep `ms` milliseconds; rejects with the signal's reason when it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Poll `isGone` every `intervalMs` until it returns true ("exited") or `timeoutMs` passes ("timeout").
 * Shared by backends whose exit observation is a liveness probe.
 */
export async function pollForExit(
  isGone: () => Promise<boolean>,
  { timeoutMs, signal }: WaitOptions,
  intervalMs = 100,
): Promise<"exited" | "timeout"> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted) throw signal.reason;
    if (await isGone()) return "exited";
    const left = deadline - Date.now();
    if (left <= 0) return "timeout";
    await sleep(Math.min(intervalMs, left), signal);
  }
}

/** True when a process with this pid exists on this host (a zombie counts as existing). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
