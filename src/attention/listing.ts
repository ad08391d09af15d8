/*
 * Live listing: everything that runs on this machine (and, given a fleet, in the fleet) with its attention
 *   state — the rows behind `seat ps` and the board.
 * Owns: finding live items (a named session whose lease holder is proven alive, asked over its control socket
 *   for its state; a plain run answering on its control socket (runs.ts); a visible seat that is not
 *   released, judged from its journal and, while its controller lives, `waiting` when the TUI asks its owner;
 *   a fleet job that has not ended, from its Redis record) and counting each one's pending approvals through
 *   an ApprovalsSource.
 * Does not own: the vocabulary (states.ts), proving a holder (sessions/), the journal (journal/), Redis (fleet/).
 * Invariant: it only reads (but for pruning a dead run's socket file, runs.ts) — it opens no journal that does
 *   not exist, asks a holder or a seat's controller only the read-only `state` operation, and never answers an
 *   approval or an owner's question. Sits above sessions/ and fleet/, so it is reached as attention/listing.js
 *   by cli/ and board/ (the front door stays importable from runtime/ without a cycle).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { openJournal } from "../journal/index.js";
// Single files rather than the front doors of seat/ and sessions/: those load the runtime and the seat stack
// (≈170 ms of imports), which `seat ps` never uses.
import { journalPath, seatDir, seatHome } from "../seat/seat-home.js";
import { judgeHolder } from "../sessions/lease.js";
import { requestControl, requestState } from "../sessions/control.js";
import { isPrivateDir } from "../internal/private-dir.js";
import { SessionStore } from "../sessions/store.js";
import { snapshotIdentitySource, type IdentitySource } from "../identity/index.js";
import type { FleetClient } from "../fleet/index.js";
import { jobAttentionState, seatAttentionState, type AttentionState } from "./states.js";
import { listRuns } from "./runs.js";
import { approvalBelongsTo, type ApprovalsSource, type PendingApproval } from "./approvals-source.js";

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
  const local = existsSync(path) ? await listLocal(home, path, stateTimeoutMs, named, source) : { sessions: [], seats: [] };
  const runs = await listRuns({ env: { ...process.env, GROK_SEAT_HOME: home }, source, skip: named, stateTimeoutMs });
  const jobs = options.fleet ? await listJobs(options.fleet) : [];
  const items = [...local.sessions, ...runs, ...local.seats, ...jobs];
  const approvals: PendingApproval[] = options.approvals ? await options.approvals.list() : [];
  for (const item of items) item.pendingApprovals = approvals.filter((a) => approvalBelongsTo(a, item)).length;
  return items;
}

async function listLocal(home: string, path: string, stateTimeoutMs: number, named: Set<string>, source: IdentitySource): Promise<{ sessions: LiveItem[]; seats: LiveItem[] }> {
  const store = new SessionStore(path);
  const pending: Promise<LiveItem | null>[] = [];
  try {
    for (const record of store.list()) {
      const lease = store.lease(record.row);
      if (!lease) continue;
      if (lease.controlSocket) named.add(lease.controlSocket);
      pending.push((async () => {
        const judged = await judgeHolder(lease, source);
        if (judged.verdict === "mismatch") return null;
        const asked = lease.controlSocket ? await requestState(lease.controlSocket, stateTimeoutMs) : null;
        // A holder that is alive but did not say is still starting (its control socket is not up or not recorded
        // yet): `starting`, never `working`, so a caller that waits for `working` can reach it (seat cancel -s).
        const state = typeof asked?.state === "string" ? (asked.state as AttentionState) : judged.verdict === "unknown" ? "uncertain" : "starting";
        const item: LiveItem = {
          kind: "named-session", id: record.name, name: record.name, agent: record.agent, state,
          since: typeof asked?.since === "string" ? asked.since : lease.since,
          cwd: record.cwd, pid: lease.holderPid, pendingApprovals: 0,
        };
        if (typeof asked?.waitingOn === "string") item.waitingOn = asked.waitingOn;
        return item;
      })());
    }
  } finally {
    store.close();
  }
  const sessions = (await Promise.all(pending)).filter((i): i is LiveItem => i !== null);
  const journal = openJournal(path);
  let seats: LiveItem[];
  try {
    seats = journal.listSeats().map((seat): LiveItem => {
      const deliveries = journal.listDeliveries(seat.seatId);
      const last = deliveries.at(-1);
      return {
        kind: "seat", id: seat.seatId, agent: "grok",
        state: seatAttentionState(seat.state, deliveries.map((d) => d.state)),
        since: last?.updatedAt ?? seat.createdAt, cwd: null,
        ...(seat.leaderPid ? { pid: seat.leaderPid } : {}), pendingApprovals: 0,
      };
    });
  } finally {
    journal.close();
  }
  // A live seat's controller knows more than the journal: whether the TUI asks its owner something now.
  await Promise.all(seats.filter((s) => s.state === "working" || s.state === "idle").map((s) => askSeatController(home, s, stateTimeoutMs)));
  return { sessions, seats };
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
        kind: "job", id: r.id, agent: r.agent ?? "grok",
        state: running ? (r.attentionState as AttentionState) : jobAttentionState(r.status),
        since: running && r.attentionSince ? r.attentionSince : r.dispatchedAt ? new Date(r.dispatchedAt).toISOString() : r.submittedAt ? new Date(r.submittedAt).toISOString() : null,
        cwd: null,
        ...(running && r.attentionWaitingOn ? { waitingOn: r.attentionWaitingOn } : {}),
        ...(r.session ? { name: r.session } : {}),
        ...(r.host ? { host: r.host } : {}),
        pendingApprovals: 0,
      };
    });
}
