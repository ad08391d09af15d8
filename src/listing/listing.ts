/*
 * Live listing: everything that runs on this machine (and, given a fleet, in the fleet) with its attention
 *   state — the rows behind `seat ps` and the board.
 * Owns: finding live items (a named session whose lease holder is proven alive, asked over its control socket
 *   for its state; a plain run answering on its control socket (runs.ts); a visible seat that is not
 *   released, judged from its journal and, while its controller lives, `waiting` when the TUI asks its owner;
 *   a fleet job that has not ended, from its Redis record) and counting each one's pending approvals through
 *   an ApprovalsSource.
 * Does not own: the vocabulary (attention/), proving a holder (session-store/), the journal (journal/), Redis (fleet/).
 * Invariant: it only reads (but for pruning a dead run's socket file, runs.ts) — it opens no journal that does
 *   not exist, asks a holder or a seat's controller only the read-only `state` operation, and never answers an
 *   approval or an owner's question. A room of its own above supervision/ and fleet/: `seat approvals` and
 *   `import "grok-seat"` do not load it.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { openJournal, restoreClaimOf } from "../journal/index.js";
// The session store and the restore claim, not sessions/ or seat/: those load the runtime and the seat stack
// (≈170 ms of imports), which `seat ps` never uses.
import { journalPath, seatDir, seatHome } from "../home/index.js";
import { requestControl, requestState } from "../control/index.js";
import { isPrivateDir } from "../internal/private-dir.js";
import { judgeHolder, SessionStore } from "../session-store/index.js";
import { snapshotIdentitySource, type IdentitySource } from "../identity/index.js";
import type { FleetClient } from "../fleet/index.js";
import { jobAttentionState, seatAttentionState, type AttentionState } from "../attention/index.js";
import { listRuns } from "./runs.js";
import { approvalBelongsTo, type ApprovalsSource, type PendingApproval } from "../supervision/index.js";

/** What kind of thing a live item is. */
export type LiveKind = "named-session" | "seat" | "job" | "run";

/** One live thing and where it is. */
export interface LiveItem {
  kind: LiveKind;
  /** Session name, seat id or job id. */
  id: string;
  name?: string;
  agent: string;
  state: AttentionState;
  /** When the state began (ISO 8601), when known. */
  since: string | null;
  waitingOn?: string;
  cwd: string | null;
  pid?: number;
  host?: string;
  /** Pending approvals of this item (0 when no approvals source was given). */
  pendingApprovals: number;
  /**
   * A `lost` item's prompts that were in flight when it was taken: `uncertain` when dispatched (the model may have
   * seen it; it is never re-sent), `not-sent` when only fenced. Absent for items that are not lost.
   */
  inFlight?: Array<{ promptId: string; state: "uncertain" | "not-sent" }>;
}

/** Options of listLive. */
export interface ListLiveOptions {
  /** The seat home (default: GROK_SEAT_HOME or ~/.grok-seat); plain runs are found under it and TMPDIR. */
  home?: string;
  /** A connected fleet client: its unfinished jobs are listed too. */
  fleet?: FleetClient;
  /** Where pending approvals come from; without one every count is 0. */
  approvals?: ApprovalsSource;
  /** How long a session holder may take to say its state (ms, default 500). */
  stateTimeoutMs?: number;
}

/**
 * Lists the live items: named sessions first, then plain runs, then seats, then fleet jobs. Never includes
 * ended things; a dead plain run's socket file is pruned on the way (runs.ts).
 */
export async function listLive(options: ListLiveOptions = {}): Promise<LiveItem[]> {
  const home = options.home ?? seatHome();
  const path = journalPath(home);
  const stateTimeoutMs = options.stateTimeoutMs ?? 500;
  // One snapshot for the whole listing: each holder's fd table is read once, however many sockets it holds.
  const source = snapshotIdentitySource();
  const named = new Set<string>();
  const local = existsSync(path)
    ? await listLocal(home, path, stateTimeoutMs, named, source)
    : { sessions: [], seats: [] };
  const runs = await listRuns({ env: { ...process.env, GROK_SEAT_HOME: home }, source, skip: named, stateTimeoutMs });
  const jobs = options.fleet ? await listJobs(options.fleet) : [];
  const items = [...local.sessions, ...runs, ...local.seats, ...jobs];
  const approvals: PendingApproval[] = options.approvals ? await options.approvals.list() : [];
  for (const item of items) item.pendingApprovals = approvals.filter((a) => approvalBelongsTo(a, item)).length;
  return items;
}

async function listLocal(
  home: string,
  path: string,
  stateTimeoutMs: number,
  named: Set<string>,
  source: IdentitySource,
): Promise<{ sessions: LiveItem[]; seats: LiveItem[] }> {
  const store = new SessionStore(path);
  const pending: Promise<LiveItem | null>[] = [];
  try {
    for (const record of store.list()) {
      const lease = store.lease(record.row);
      if (!lease) continue;
      if (lease.controlSocket) named.add(lease.controlSocket);
      pending.push(
        (async () => {
          const judged = await judgeHolder(lease, source);
          if (judged.verdict === "mismatch") {
            // Its holder is gone. With a turn still recorded running, it was taken mid-turn (a reboot, a kill): lost.
            const running = store.turns(record.row).filter((turn) => turn.state === "running");
            if (running.length === 0) return null;
            return {
              kind: "named-session",
              id: record.name,
              name: record.name,
              agent: record.agent,
              state: "lost",
              since: lease.since,
              cwd: record.cwd,
              pid: lease.holderPid,
              pendingApprovals: 0,
              inFlight: running.map((turn) => ({ promptId: turn.promptId, state: "uncertain" as const })),
            };
          }
          const asked = lease.controlSocket ? await requestState(lease.controlSocket, stateTimeoutMs) : null;
          // A holder that is alive but did not say is still starting (its control socket is not up or not recorded
          // yet): `starting`, never `working`, so a caller that waits for `working` can reach it (seat cancel -s).
          const state =
            typeof asked?.state === "string"
              ? (asked.state as AttentionState)
              : judged.verdict === "unknown"
                ? "uncertain"
                : "starting";
          const item: LiveItem = {
            kind: "named-session",
            id: record.name,
            name: record.name,
            agent: record.agent,
            state,
            since: typeof asked?.since === "string" ? asked.since : lease.since,
            cwd: record.cwd,
            pid: lease.holderPid,
            pendingApprovals: 0,
          };
          if (typeof asked?.waitingOn === "string") item.waitingOn = asked.waitingOn;
          return item;
        })(),
      );
    }
  } finally {
    store.close();
  }
  const sessions = (await Promise.all(pending)).filter((i): i is LiveItem => i !== null);
  const journal = openJournal(path);
  let seats: LiveItem[];
  const records = new Map<
    string,
    {
      socketPath: string;
      leaderPid: number | null;
      leaderBirth: string | null;
      open: Array<{ promptId: string; state: string }>;
    }
  >();
  try {
    seats = journal.listSeats().map((seat): LiveItem => {
      const deliveries = journal.listDeliveries(seat.seatId);
      records.set(seat.seatId, {
        socketPath: seat.socketPath,
        leaderPid: seat.leaderPid,
        leaderBirth: seat.leaderBirth,
        open: deliveries
          .filter((d) => ["fenced", "dispatched", "consumed", "uncertain"].includes(d.state))
          .map((d) => ({ promptId: d.promptId, state: d.state })),
      });
      const last = deliveries.at(-1);
      return {
        kind: "seat",
        id: seat.seatId,
        agent: "grok",
        state: seatAttentionState(
          seat.state,
          deliveries.map((d) => d.state),
        ),
        since: last?.updatedAt ?? seat.createdAt,
        cwd: null,
        ...(seat.leaderPid ? { pid: seat.leaderPid } : {}),
        pendingApprovals: 0,
      };
    });
  } finally {
    journal.close();
  }
  // A seat whose controller is silent and whose proven leader is gone was taken with everything in it: lost.
  await Promise.all(seats.map((s) => judgeSeatLost(home, s, records.get(s.id), source)));
  // A live seat's controller knows more than the journal: whether the TUI asks its owner something now.
  await Promise.all(
    seats
      .filter((s) => s.state === "working" || s.state === "idle")
      .map((s) => askSeatController(home, s, stateTimeoutMs)),
  );
  return { sessions, seats };
}

/**
 * Marks a seat `lost` when nothing of it is left: the controller its seat.json names (pid and kernel birth) is
 * gone and so is the leader the journal proved. A process whose identity cannot be read is never judged gone,
 * so a seat being hired right now (its leader not yet proven, its controller alive) is not lost, nor is one that a
 * `seat restore` which still runs has claimed.
 */
async function judgeSeatLost(
  home: string,
  item: LiveItem,
  record:
    | {
        socketPath: string;
        leaderPid: number | null;
        leaderBirth: string | null;
        open: Array<{ promptId: string; state: string }>;
      }
    | undefined,
  source: IdentitySource,
): Promise<void> {
  if (record === undefined) return;
  const gone = async (pid: unknown, birth: unknown): Promise<boolean> => {
    if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return true;
    const identity = await source.readIdentity(pid).catch(() => undefined);
    if (identity === undefined) return false;
    // A zombie is gone too: nothing may reap it where init does not (a container's pid 1).
    return identity === null || identity.state === "Z" || (typeof birth === "string" && identity.birth !== birth);
  };
  // A seat that a `seat restore` still running has claimed is being hired again, not lost (journal/restore-claim.ts).
  const claim = restoreClaimOf(record.socketPath);
  if (claim !== null && !(await gone(claim.pid, claim.birth))) return;
  let controller: { controller_pid?: unknown; controller_birth?: unknown };
  try {
    controller = JSON.parse(readFileSync(join(seatDir(home, item.id), "seat.json"), "utf8")) as typeof controller;
  } catch {
    return;
  }
  if (!(await gone(controller.controller_pid, controller.controller_birth))) return;
  if (record.leaderPid !== null && !(await gone(record.leaderPid, record.leaderBirth))) return;
  item.state = "lost";
  item.inFlight = record.open.map((d) => ({
    promptId: d.promptId,
    state: d.state === "fenced" ? "not-sent" : "uncertain",
  }));
}

/**
 * Asks a seat's controller (its `c.sock` in the seat's 0700 directory; seat/controller.ts) for the seat's
 * attention and takes a `waiting` from it. A controller that is gone or silent leaves the journal's view.
 */
async function askSeatController(home: string, item: LiveItem, timeoutMs: number): Promise<void> {
  let dir: string;
  try {
    dir = seatDir(home, item.id);
  } catch {
    return;
  }
  if (!isPrivateDir(dir)) return;
  const answer = await requestControl(join(dir, "c.sock"), { op: "state" }, timeoutMs).catch(() => undefined);
  if (answer?.ok !== true || answer.state !== "waiting") return;
  item.state = "waiting";
  if (answer.waitingOn === "approval" || answer.waitingOn === "question") item.waitingOn = answer.waitingOn;
  if (typeof answer.since === "string") item.since = answer.since;
}

async function listJobs(fleet: FleetClient): Promise<LiveItem[]> {
  const records = await fleet.list(500);
  return records
    .filter((r) => r.status === "waiting" || r.status === "active" || r.status === "dispatched")
    .map((r): LiveItem => {
      const running = r.status === "dispatched" && r.attentionState !== undefined;
      return {
        kind: "job",
        id: r.id,
        agent: r.agent ?? "grok",
        state: running ? (r.attentionState as AttentionState) : jobAttentionState(r.status),
        since:
          running && r.attentionSince
            ? r.attentionSince
            : r.dispatchedAt
              ? new Date(r.dispatchedAt).toISOString()
              : r.submittedAt
                ? new Date(r.submittedAt).toISOString()
                : null,
        cwd: null,
        ...(running && r.attentionWaitingOn ? { waitingOn: r.attentionWaitingOn } : {}),
        ...(r.session ? { name: r.session } : {}),
        ...(r.host ? { host: r.host } : {}),
        pendingApprovals: 0,
      };
    });
}
