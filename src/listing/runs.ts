/*
 * Plain runs: this user's live `seat run` processes without a session name, found by their control sockets
 *   (the ones `seat approvals` reaches: <seat home>/sessions/ctl-*.sock, or s in a private gs-ctl-* directory
 *   under TMPDIR), each asked for its state — rows of kind `run` for `seat ps` and the board.
 * Owns: telling a plain run's socket from a named session's (the typed state answer's `kind`, control/state.ts),
 *   proving the pid that answers holds the socket, pruning the socket file a dead run left behind, and cancelling
 *   a plain run's turn by the id `seat ps` lists (cancelRun).
 * Does not own: where sockets live or the server behind them (control/socket.ts), finding candidates
 *   (supervision/remote.ts), named sessions (listing.ts reads their leases).
 * Invariant: a run is listed only when its holder answers and is not proven someone else (mismatch); a socket
 *   file is removed only when connecting to it is refused, nothing listens at its path, and it is older than
 *   STALE_AFTER_MS (a run binds and listens in one step, so a live socket never looks like that) — a dead
 *   run is pruned, never shown as live.
 */
import { lstatSync } from "node:fs";
import { candidateSockets } from "../supervision/index.js";
import { SeatError } from "../errors.js";
import {
  removeDeadControlSocket,
  requestCancel,
  requestControl,
  parseControlState,
  type ControlState,
} from "../control/index.js";
import { socketListenerInodes, type IdentitySource } from "../identity/index.js";
import type { LiveItem } from "./listing.js";
import { ATTENTION_STATES } from "../attention/index.js";

/** A socket file refused and unheld for at least this long is a dead run's (ms). */
export const STALE_AFTER_MS = 2_000;

/** The states a live run may claim: every attention state but `lost` (processes taken), which a run that answers is not. */
const STATES = new Set<string>(ATTENTION_STATES.filter((s) => s !== "lost"));

/** Options of listRuns. */
export interface ListRunsOptions {
  env?: NodeJS.ProcessEnv;
  source: IdentitySource;
  /** Sockets already accounted for (named sessions' recorded control sockets): not asked again. */
  skip?: ReadonlySet<string>;
  /** How long a run may take to say its state (ms). */
  stateTimeoutMs: number;
}

/** The live plain runs of this user on this machine (other than this process), pruning dead runs' sockets. */
export async function listRuns(options: ListRunsOptions): Promise<LiveItem[]> {
  const sockets = candidateSockets(options.env).filter((s) => !options.skip?.has(s));
  const items = await Promise.all(sockets.map((socket) => askRun(socket, options)));
  return items.filter((i): i is LiveItem => i !== null);
}

/**
 * Cancels the turn of the plain run `id` lists as (`seat cancel ID`), through its control socket, once the pid that
 * answers is proven to hold that socket. RUN_NOT_FOUND when no live plain run has that id (or it ended meanwhile);
 * RUN_ID_AMBIGUOUS when two runs answer with it (nothing sent); RUN_IDLE when its turn is not running (working or
 * waiting); IDENTITY_MISMATCH / IDENTITY_UNKNOWN (nothing sent) when its holder is not proven.
 */
export async function cancelRun(
  id: string,
  options: Omit<ListRunsOptions, "skip">,
): Promise<{ pid: number; socket: string }> {
  const answers = await Promise.all(
    candidateSockets(options.env).map(async (socket) => {
      const told = await runStateAt(socket, options.stateTimeoutMs).catch(() => null);
      return told !== null && told.id === id ? { socket, told } : null;
    }),
  );
  const matches = answers.filter((m): m is NonNullable<typeof m> => m !== null);
  if (matches.length > 1)
    throw new SeatError(
      "RUN_ID_AMBIGUOUS",
      `${matches.length} live runs answer with id ${id} (pids ${matches.map((m) => m.told.pid).join(", ")}); nothing was sent. Cancel one by ending its process.`,
      { context: { id, pids: matches.map((m) => m.told.pid) } },
    );
  const match = matches[0];
  if (match === undefined) throw runNotFound(id);
  const { socket, told } = match;
  if (told.state !== "working" && told.state !== "waiting")
    throw new SeatError(
      "RUN_IDLE",
      `Run ${id} (pid ${told.pid}) has no running turn (it is ${told.state}); nothing was sent.`,
      {
        context: { id, pid: told.pid, state: told.state },
      },
    );
  const holds = await options.source.checkSocketHolder(told.pid, socket);
  if (holds.check.verdict !== "match")
    throw new SeatError(
      holds.check.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN",
      `The control socket of run ${id} is not proven to belong to pid ${told.pid} (${holds.check.reason}); nothing was sent.`,
      { context: { id, pid: told.pid } },
    );
  let cancelled: { ok: boolean; error?: string };
  try {
    cancelled = await requestCancel(socket);
  } catch (error) {
    // The run ended between its state answer and the cancel: it is gone, nothing to cancel.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EPIPE")
      throw runNotFound(id);
    throw error;
  }
  if (!cancelled.ok)
    throw new SeatError("RUN_CANCEL_REFUSED", `Run ${id} refused the cancel: ${cancelled.error ?? "no reason"}.`, {
      context: { id, pid: told.pid },
    });
  return { pid: told.pid, socket };
}

function runNotFound(id: string): SeatError {
  return new SeatError(
    "RUN_NOT_FOUND",
    `No live plain run of yours has id ${id}; \`seat ps\` lists them (a named session is cancelled with -s NAME).`,
    { context: { id } },
  );
}

/**
 * The typed state a plain run's socket answers (checked against the one control-state schema every door's socket
 * answers with), or null when its holder answers none or is not a plain run; rejects with the socket's error.
 */
async function runStateAt(socket: string, timeoutMs: number): Promise<ControlState | null> {
  const answer = await requestControl(socket, { op: "state" }, timeoutMs);
  const told = answer?.ok === true ? parseControlState(answer) : null;
  return told !== null && told.kind === "run" ? told : null;
}

async function askRun(socket: string, options: ListRunsOptions): Promise<LiveItem | null> {
  let told: ControlState | null;
  try {
    told = await runStateAt(socket, options.stateTimeoutMs);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ECONNREFUSED") await pruneIfDead(socket);
    return null;
  }
  // The answer is checked against the one control-state schema every door's socket answers with.
  if (told === null || told.pid === process.pid) return null;
  const pid = told.pid;
  const holds = await options.source.checkSocketHolder(pid, socket);
  if (holds.check.verdict === "mismatch") return null;
  const state = STATES.has(told.state) ? told.state : "uncertain";
  const item: LiveItem = {
    kind: "run",
    id: told.id,
    agent: told.agent,
    // A holder that cannot be proven is shown, but never with the state it claims.
    state: holds.check.verdict === "match" ? state : "uncertain",
    since: told.since,
    cwd: told.cwd,
    pid,
    pendingApprovals: 0,
  };
  if (item.state === "waiting" && told.waitingOn !== undefined) item.waitingOn = told.waitingOn;
  return item;
}

/**
 * Removes `socket` when nothing listens at its path (/proc/net/unix; elsewhere it is only left unlisted) and it
 * is old enough that no run is still starting on it.
 */
async function pruneIfDead(socket: string): Promise<void> {
  let bornMs: number;
  try {
    bornMs = lstatSync(socket).mtimeMs;
  } catch {
    return; // gone already
  }
  if (Date.now() - bornMs < STALE_AFTER_MS) return;
  const listeners = await socketListenerInodes(socket).catch(() => null);
  if (listeners !== null && listeners.length === 0) removeDeadControlSocket(socket);
}
