/*
 * Visible seat: one proven, attached grok TUI session we deliver briefs into, and its release.
 * Owns: delivery (fence → dispatch → consumed → completed | uncertain | failed | submitted), mapping
 *   wire evidence to the journal, waiting for a delivery state, live status, and release.
 * Does not own: launching, proving and attaching (hire.ts), the turn engine (acp/ SessionCore).
 * Invariant: the fence is durable before dispatch, and each dispatch first re-proves that the socket is
 *   still served by the proven leader (holder + socket inode); queue membership / runningPromptId means
 *   consumed, not awareness; only a result echoing this session and prompt id completes; cancellation is
 *   submitted; nothing is re-sent; the controller never answers a permission request; only an observed
 *   exit of the original TUI lets release stop the leader (or the leader grok's TUI respawned on the same
 *   socket), after re-proving it as bound to that TUI; anything else serving the socket is refused by name.
 * Spec: ADR 0224; grok-wire.md §13; docs/seat-protocol.md#delivery, #release
 */
import { randomUUID } from "node:crypto";
import { SeatError, messageOf } from "../errors.js";
import { removePrivateDir } from "../internal/private-dir.js";
import { platformIdentitySource } from "../identity/index.js";
import type { AcpPeer, SeatEvent, SessionCore, TurnResult } from "../acp/index.js";
import type { DeliveryRecord, DeliveryState, Journal } from "../journal/index.js";
import type { LeaderClient } from "../leader/index.js";
import type { Backend } from "../mux/index.js";
import type { Admission } from "./admission.js";
import type { HirePlan } from "./plan.js";
import type { InteractionWatch } from "./interactions.js";
import { seatAttentionState, type AttentionState, type WaitingOn } from "../attention/index.js";
import {
  nothingServes,
  observeExit,
  proveSeatLeader,
  reproveForDispatch,
  socketHolder,
  waitForExitObserved,
  type DispatchSeal,
  type LeaderBinding,
  type TuiProof,
} from "./proof.js";
import type { SeatWorktreeRelease } from "./seat-worktree.js";
import { ledgerEntriesOf, recordUsage } from "../usage/index.js";
import { estimateGrokSideCalls } from "../metering/index.js";

/** Final delivery states: nothing moves them further except late completion evidence for submitted. */
const SETTLED: DeliveryState[] = ["completed", "failed", "submitted", "uncertain"];

/** What the attach produced, handed to the seat. */
export interface AttachedParts {
  plan: HirePlan & { socketDir: string; socketPath: string };
  tui: TuiProof;
  leader: LeaderBinding;
  admission: Admission;
  client: LeaderClient;
  peer: AcpPeer;
  core: SessionCore;
  journal: Journal;
  backend: Backend;
  /** Model / effort as echoed after selection (null when not selected). */
  selected: { model: string | null; effort: string | null };
  /** What the TUI asks its owner now (the leader's pending_interaction broadcasts); absent in old fixtures. */
  interactions?: InteractionWatch;
}

/** A seat's attention: `waiting` while the TUI asks its owner, else what its deliveries say. */
export interface SeatAttention {
  state: AttentionState;
  /** ISO 8601: when the wait began, or the last delivery change, or the seat's creation. */
  since: string | null;
  waitingOn?: WaitingOn;
}

/** Options of deliver(). */
export interface DeliverOptions {
  /** Caller-created prompt id (default `<seatId>-<uuid>`); must never have been used. */
  promptId?: string;
  /** Test hook: runs after the fence is durable and before dispatch (crash tests hold here). */
  beforeDispatch?: (delivery: DeliveryRecord) => Promise<void>;
}

/** How release ended. */
export interface ReleaseResult {
  seatId: string;
  controllerClosed: boolean;
  tuiExit: "exited" | "running" | "unknown";
  leaderStopped: boolean;
  reason: string;
  /** A seat hired with a worktree: what release committed there (see seat-worktree.ts). */
  worktree?: SeatWorktreeRelease;
}

/** A live visible seat. One controller owns it; its leader connection is never reopened. */
export class VisibleSeat {
  readonly seatId: string;
  readonly sessionId: string;
  readonly parts: AttachedParts;
  /** Waiters: called on every change, with the record just written when the change is one of ours (P4b: no read-back). */
  #listeners = new Set<(written?: DeliveryRecord) => void>();
  #turns = new Map<string, Promise<TurnResult>>();
  #closed = false;
  #leaderGone: SeatError | null = null;
  #peerClosed = false;
  #seal: DispatchSeal | null = null;
  #proofs = { seal: 0, full: 0 };

  constructor(parts: AttachedParts) {
    this.parts = parts;
    this.seatId = parts.plan.seatId;
    this.sessionId = parts.plan.sessionId;
    parts.client.closed.then(
      (closed) => {
        this.#leaderGone = closed.error;
        parts.interactions?.clear();
        this.#notify();
      },
      (error: unknown) => {
        this.#leaderGone = new SeatError(
          "LEADER_SOCKET_GONE",
          `The leader connection of seat ${this.seatId} failed: ${messageOf(error)}. The seat does not reconnect.`,
          { cause: error },
        );
        this.#notify();
      },
    );
    parts.peer.closed.then(
      () => void (this.#peerClosed = true),
      () => void (this.#peerClosed = true),
    );
  }

  /** Feeds a seat event (from the session core) into delivery evidence. Called in arrival order. */
  observe(event: SeatEvent): void {
    if (event.type !== "queue") return;
    const { queue } = event;
    if (queue.sessionId !== this.sessionId) return;
    const ids = new Set([...queue.entryIds, ...(queue.runningPromptId ? [queue.runningPromptId] : [])]);
    for (const promptId of ids) {
      const delivery = this.parts.journal.deliveryState(promptId);
      if (!delivery || delivery.seatId !== this.seatId) continue; // the owner's own prompts are not ours to record
      if (delivery.state !== "dispatched" && delivery.state !== "uncertain") continue;
      const running = queue.runningPromptId === promptId;
      // Consumed is evidence, not a fence: written without its own fsync (see Journal.relaxed).
      this.#record(
        promptId,
        {
          kind: "consumed",
          source: "_x.ai/queue/changed",
          sessionId: queue.sessionId,
          promptId,
          detail: running ? "runningPromptId" : "queue entry",
        },
        true,
      );
    }
  }

  /**
   * Fences `text` durably, then dispatches it as `session/prompt` with a caller-created prompt id.
   * Resolves the delivery once dispatched; its later states arrive through the journal (waitFor).
   */
  async deliver(text: string, options: DeliverOptions = {}): Promise<DeliveryRecord> {
    if (this.#closed)
      throw new SeatError("SEAT_NOT_ADMITTED", `Seat ${this.seatId} is released; hire a fresh seat.`, {
        context: { seatId: this.seatId },
      });
    if (this.#leaderGone) throw this.#leaderGone;
    const { journal } = this.parts;
    const promptId = options.promptId ?? `${this.seatId}-${randomUUID()}`;
    // The fence is written now and made durable by markDispatched's FULL commit (one fsync of the WAL covers
    // both) before anything is sent; a crash of this process in between still finds it (recovered as failed).
    const fenced = journal.relaxed(() => journal.fence({ seatId: this.seatId, promptId, text }));
    if (options.beforeDispatch) await options.beforeDispatch(fenced);
    if (this.#closed || this.#leaderGone) {
      journal.markFailed(promptId, "never dispatched: the leader connection closed before dispatch");
      throw (
        this.#leaderGone ??
        new SeatError("SEAT_NOT_ADMITTED", `Seat ${this.seatId} was released before dispatch.`, {
          context: { seatId: this.seatId },
        })
      );
    }
    const refusal = await this.#recheckLeader();
    if (refusal) {
      journal.markFailed(promptId, `never dispatched: ${refusal.message}`);
      this.#notify();
      throw refusal;
    }
    const dispatched = journal.markDispatched(promptId);
    this.#notify(dispatched);
    const turn = this.parts.core.prompt(text, { promptId });
    this.#turns.set(promptId, turn);
    turn
      .then((result) => this.#settle(promptId, result))
      .catch((error: unknown) =>
        this.#move(() => journal.markUncertain(promptId, `no final result: ${messageOf(error)}`)),
      )
      .finally(() => this.#turns.delete(promptId));
    return dispatched;
  }

  /** Re-proves, right before a dispatch, that the socket path is still served by the proven leader; the refusal or null. */
  async #recheckLeader(): Promise<SeatError | null> {
    const { leader, tui } = this.parts;
    const { result, seal, path } = await reproveForDispatch(leader, tui.pid, this.#seal, recordedInode(leader));
    this.#seal = seal;
    this.#proofs[path] += 1;
    if (result.verdict === "match") return null;
    const reasons = result.checks.filter((c) => c.verdict !== "match").map((c) => c.reason);
    const code = result.verdict === "mismatch" ? "IDENTITY_MISMATCH" : "IDENTITY_UNKNOWN";
    return new SeatError(
      code,
      `The socket ${leader.socketPath} is no longer proven to be served by leader pid ${leader.pid} (${result.verdict}: ${reasons.join("; ")}); the brief was not sent. Release the seat and hire a fresh one.`,
      {
        context: {
          seatId: this.seatId,
          socketPath: leader.socketPath,
          leaderPid: leader.pid,
          verdict: result.verdict,
          reasons,
        },
      },
    );
  }

  /**
   * Calls `listener` after every change of this seat: a delivery's state (with the record when this seat wrote
   * it), an owner interaction opened or resolved, the leader connection closing. Synchronous, in the writer's
   * turn: a listener must not block and its throw is not the seat's (it is swallowed). Returns the unsubscribe.
   */
  watch(listener: (written?: DeliveryRecord) => void): () => void {
    const guarded = (written?: DeliveryRecord) => {
      try {
        listener(written);
      } catch {
        // a watcher's failure is never the delivery's
      }
    };
    this.#listeners.add(guarded);
    return () => this.#listeners.delete(guarded);
  }

  /** Tells the watchers that what the TUI asks its owner changed (the InteractionWatch calls this). */
  interactionsChanged(): void {
    this.#notify();
  }

  /** True once release began. */
  get isReleased(): boolean {
    return this.#closed;
  }

  /** Why the leader connection closed without a release, or null while it is open (or the seat was released). */
  get connectionLost(): SeatError | null {
    return this.#closed ? null : this.#leaderGone;
  }

  /** How the dispatch re-proofs so far were decided: from the seal (quick) or by a full proof. */
  get dispatchProofs(): { seal: number; full: number } {
    return { ...this.#proofs };
  }

  /**
   * The seat's attention state for `seat ps` / `seat status`: `waiting` (on an approval or a question) while
   * the leader reports an open interaction of the TUI with its owner; otherwise the journal's view (a delivery
   * in flight → working, an uncertain one → uncertain, else idle). It only reads; it never answers the owner's
   * question.
   */
  attention(): SeatAttention {
    const { journal } = this.parts;
    const row = journal.getSeat(this.seatId);
    const deliveries = journal.listDeliveries(this.seatId);
    const state = seatAttentionState(
      row?.state ?? "active",
      deliveries.map((d) => d.state),
    );
    const wait = this.#leaderGone === null && !this.#closed ? this.parts.interactions?.wait() : null;
    if (wait && (state === "working" || state === "idle"))
      return { state: "waiting", since: wait.since, waitingOn: wait.waitingOn };
    return { state, since: deliveries.at(-1)?.updatedAt ?? row?.createdAt ?? null };
  }

  /** Resolves the delivery once it reaches one of `states` (or any settled state), or its current record on timeout. */
  waitFor(promptId: string, states: DeliveryState[], timeoutMs: number): Promise<DeliveryRecord | null> {
    const { journal } = this.parts;
    const read = () => journal.getDelivery(promptId);
    return new Promise((resolve) => {
      const done = (record: DeliveryRecord | null) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        resolve(record);
      };
      // Decided on the state alone (a cheap read on every change); the whole record is read once, when done —
      // unless the change is the record this seat just wrote for this prompt, which is used as written (P4b).
      const reached = (state: DeliveryState) => states.includes(state) || SETTLED.includes(state);
      const check = (written?: DeliveryRecord) => {
        if (written?.promptId === promptId) {
          if (reached(written.state)) done(written);
          return;
        }
        const current = journal.deliveryState(promptId);
        if (!current || reached(current.state)) done(read());
      };
      const timer = setTimeout(() => done(read()), timeoutMs);
      this.#listeners.add(check);
      check();
    });
  }

  /**
   * Live status: seat record, admission, whether the TUI and the leader are still the bound processes,
   * who serves the socket now (a changed identity is named, never hidden behind "active"), open deliveries.
   */
  async status(): Promise<Record<string, unknown>> {
    const { journal, tui, leader, admission, selected, plan } = this.parts;
    const [tuiState, leaderState, holder] = await Promise.all([
      observeExit(tui),
      observeExit(leader),
      socketHolder(leader.socketPath),
    ]);
    const same =
      leaderState === "running" &&
      holder.pid === leader.pid &&
      holder.holds === "match" &&
      (holder.inode === null || holder.inode === leader.socketInode);
    const condition = same
      ? this.#leaderGone
        ? "leader-connection-lost"
        : "active"
      : `leader-changed: the bound leader pid ${leader.pid} is ${leaderState}; the socket is now ${holder.pid === null ? "served by no named pid" : `named by pid ${holder.pid} (${holder.holds === "match" ? "holds the socket" : holder.reason})`}`;
    return {
      seatId: this.seatId,
      sessionId: this.sessionId,
      condition,
      controller: {
        pid: process.pid,
        connected: !this.#closed && this.#leaderGone === null,
        leaderError: this.#leaderGone?.message ?? null,
      },
      tui: { pid: tui.pid, birth: tui.birth, birthResolution: tui.birthResolution, state: tuiState, pane: tui.pane },
      leader: {
        pid: leader.pid,
        birth: leader.birth,
        socketPath: leader.socketPath,
        socketInode: leader.socketInode,
        state: leaderState,
        identity: same ? "proven" : "changed",
        current: { pid: holder.pid, holdsSocket: holder.holds, socketInode: holder.inode, reason: holder.reason },
      },
      admission,
      selected,
      attention: this.attention(),
      interactions: this.parts.interactions?.list() ?? [],
      cwd: plan.cwd,
      seat: journal.getSeat(this.seatId),
      deliveries: journal.listDeliveries(this.seatId),
    };
  }

  /**
   * Closes the controller's connection; then, only if the original TUI is observed to have exited,
   * re-proves the leader (bound birth, our socket) and stops it. Unknown never authorizes a kill.
   */
  async release(options: { closePane?: boolean; exitTimeoutMs?: number } = {}): Promise<ReleaseResult> {
    const { journal, client, peer, backend, tui } = this.parts;
    journal.updateSeat(this.seatId, { state: "releasing" });
    this.#closed = true;
    await client.close().catch(() => undefined);
    peer.close();
    for (const promptId of this.#turns.keys()) {
      const d = journal.getDelivery(promptId);
      if (d && (d.state === "dispatched" || d.state === "consumed"))
        this.#move(() => journal.markUncertain(promptId, "the seat was released before a final result arrived"));
    }
    if (options.closePane) await backend.close(tui.pane).catch(() => undefined);
    const result = await stopLeaderAfterTuiExit({
      seatId: this.seatId,
      tui: { pid: tui.pid, birth: tui.birth },
      leader: this.parts.leader,
      exitTimeoutMs: options.exitTimeoutMs ?? (options.closePane ? 10_000 : 0),
    });
    journal.updateSeat(this.seatId, { state: "released" });
    this.#notify();
    return { ...result, controllerClosed: true };
  }

  #settle(promptId: string, result: TurnResult): void {
    const { journal } = this.parts;
    const current = journal.getDelivery(promptId);
    if (!current || current.state === "completed" || current.state === "failed") return;
    const meta = result.responseMeta ?? {};
    if (result.stopReason === "cancelled") {
      if (current.state !== "submitted")
        this.#move(() => journal.markCancelled(promptId, "session/prompt result stopReason cancelled"));
      return;
    }
    if (result.echoed && result.stopReason !== undefined) {
      // Before the completed evidence, so whoever waits for `completed` finds the turn's usage in the ledger.
      this.#recordUsage(promptId, result);
      this.#record(promptId, {
        kind: "completed",
        source: "session/prompt result",
        sessionId: String(meta.sessionId),
        promptId: String(meta.promptId),
        detail: { stopReason: result.stopReason },
      });
      return;
    }
    if (current.state === "uncertain" || current.state === "submitted") return;
    if (result.stopReason !== undefined) {
      this.#move(() =>
        journal.markUncertain(
          promptId,
          `the prompt result did not echo session ${this.sessionId} and prompt ${promptId}`,
        ),
      );
      return;
    }
    // Decided by state and code, never by message text: a closed connection or a dead session may have run the turn.
    const lost =
      this.#leaderGone !== null || this.#closed || this.#peerClosed || result.diagnostic?.code === "ACP_SESSION_DEAD";
    if (lost)
      this.#move(() =>
        journal.markUncertain(promptId, `no final result: ${result.diagnostic?.message ?? "the connection closed"}`),
      );
    else this.#move(() => journal.markFailed(promptId, result.diagnostic?.message ?? "the prompt failed"));
  }

  /**
   * Adds a completed delivery's usage (the prompt result's `_meta.usage`, as the leader forwards it) to the
   * ledger in the seat's journal file: source `seat`, the delivery's prompt id. A failure is logged, never fatal:
   * the delivery itself completed.
   */
  #recordUsage(promptId: string, result: TurnResult): void {
    try {
      // The TUI runs without the metering point: its turn summary is estimated, and marked so.
      const sideCalls = estimateGrokSideCalls(result);
      recordUsage(
        this.parts.journal.path,
        ledgerEntriesOf(sideCalls.length > 0 ? { ...result, sideCalls } : result, { source: "seat", agent: "grok" }),
      );
    } catch (error) {
      // The controller's stderr is its log (controller.log), as for a refused transition below.
      process.stderr.write(
        `grok-seat: delivery ${promptId}: its usage could not be added to the ledger: ${messageOf(error)}\n`,
      );
    }
  }

  #record(promptId: string, evidence: Parameters<Journal["recordEvidence"]>[1], relaxed = false): void {
    const { journal } = this.parts;
    this.#move(() =>
      relaxed
        ? journal.relaxed(() => journal.recordEvidence(promptId, evidence))
        : journal.recordEvidence(promptId, evidence),
    );
  }

  #move(work: () => DeliveryRecord | null): void {
    let written: DeliveryRecord | null = null;
    try {
      written = work();
    } catch (error) {
      // A refused transition (e.g. evidence that does not echo) is recorded nowhere; report it on stderr.
      process.stderr.write(`grok-seat: ${messageOf(error)}\n`);
    }
    this.#notify(written ?? undefined);
  }

  /** Wakes every waiter; `written` is the record this seat has just written (its waiters need not read it back). */
  #notify(written?: DeliveryRecord): void {
    for (const listener of [...this.#listeners]) listener(written);
  }
}

/** Inputs of stopLeaderAfterTuiExit: the bound TUI and leader of one seat. */
export interface StopLeaderInput {
  seatId: string;
  tui: { pid: number; birth: string };
  leader: LeaderBinding;
  /** How long to wait for the TUI's exit to be observed (0: look once). */
  exitTimeoutMs: number;
}

/** The socket inode to compare against: the recorded one on Linux (null = not recorded → unknown); not compared where the platform has none. */
export function recordedInode(leader: { socketInode: number | null }): number | null | undefined {
  return platformIdentitySource().platform === "linux" ? leader.socketInode : undefined;
}

function refuseRelease(
  seatId: string,
  pid: number,
  what: string,
  result: { verdict: string; checks: Array<{ verdict: string; reason: string }> },
): SeatError {
  const reasons = result.checks
    .filter((c) => c.verdict !== "match")
    .map((c) => c.reason)
    .join("; ");
  return new SeatError(
    "SEAT_RELEASE_REFUSED",
    `${what} pid ${pid} could not be proven as this seat's leader (${result.verdict}: ${reasons}); nothing was stopped and it keeps running. Inspect pid ${pid} by hand.`,
    {
      context: { seatId, pid, verdict: result.verdict, reasons },
    },
  );
}

/** True when birth `a` is later than `b` (both decimal tick or second counts); false when either is not a number. */
function bornAfter(a: string, b: string): boolean {
  return /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) > BigInt(b);
}

/** SIGTERM, then (re-proving first) SIGKILL after a grace; whether the pid was observed to exit. */
async function stopProven(pid: number, birth: string, stillOurs: () => Promise<boolean>): Promise<boolean> {
  process.kill(pid, "SIGTERM");
  let state = await waitForExitObserved({ pid, birth }, 5000);
  if (state !== "exited") {
    if (await stillOurs()) process.kill(pid, "SIGKILL");
    state = await waitForExitObserved({ pid, birth }, 5000);
  }
  return state === "exited";
}

/**
 * Stops the seat's own leader only after the original TUI was observed to exit and the leader was
 * re-proven (bound birth, exe, cwd, uid, session = the TUI's pid, the recorded socket inode, 0700 dir).
 * When the bound leader is gone but grok's TUI respawned one on the same socket, that leader is proven
 * (session = the original TUI, exe, cwd, uid, holds the socket) and stopped, or refused by name.
 * Removes the private socket dir once nothing serves it. Never signals anything else.
 */
export async function stopLeaderAfterTuiExit(input: StopLeaderInput): Promise<Omit<ReleaseResult, "controllerClosed">> {
  const base = { seatId: input.seatId };
  const { leader, tui } = input;
  const tuiExit =
    input.exitTimeoutMs > 0 ? await waitForExitObserved(tui, input.exitTimeoutMs) : await observeExit(tui);
  if (tuiExit !== "exited") {
    return {
      ...base,
      tuiExit,
      leaderStopped: false,
      reason: `the original TUI (pid ${tui.pid}) has not been observed to exit (${tuiExit}); its leader keeps running. Close the TUI, then run release again.`,
    };
  }
  const common = {
    exe: leader.exe,
    cwd: leader.cwd,
    uid: leader.uid,
    socketPath: leader.socketPath,
    socketDir: leader.socketDir,
    tuiPid: tui.pid,
    requireChildOfTui: false,
  };
  if ((await observeExit(leader)) !== "exited") {
    const prove = () =>
      proveSeatLeader({ ...common, pid: leader.pid, birth: leader.birth, socketInode: recordedInode(leader) });
    const { result } = await prove();
    if (result.verdict !== "match") throw refuseRelease(input.seatId, leader.pid, "The leader", result);
    const stopped = await stopProven(leader.pid, leader.birth, async () => (await prove()).result.verdict === "match");
    if (stopped) removePrivateDir(leader.socketDir);
    return {
      ...base,
      tuiExit,
      leaderStopped: stopped,
      reason: stopped
        ? `the original TUI exited; the proven leader pid ${leader.pid} was stopped`
        : `the leader pid ${leader.pid} did not exit after SIGTERM and SIGKILL`,
    };
  }
  // The bound leader is gone. Whoever serves the socket now is either a leader grok's TUI respawned (proven
  // and stopped: no orphan) or something else (refused by name, left alone).
  const holder = await socketHolder(leader.socketPath);
  // A refused hire passes a binding with pid -1 when no leader was proven yet (hire.ts cleanUpRefusedHire).
  const neverBound = leader.pid <= 0;
  const gone = neverBound
    ? "no leader had been proven"
    : `the bound leader (pid ${leader.pid}, birth ${leader.birth}) had already exited`;
  if (holder.pid === null || holder.holds !== "match") {
    if (await nothingServes(leader.socketPath)) {
      removePrivateDir(leader.socketDir);
      return {
        ...base,
        tuiExit,
        leaderStopped: false,
        reason: `${gone} and nothing serves its socket; nothing was signalled`,
      };
    }
    throw new SeatError(
      "SEAT_RELEASE_REFUSED",
      `${gone}, but its socket ${leader.socketPath} is still served by a process that cannot be named (${holder.reason}); nothing was stopped. Inspect it by hand.`,
      {
        context: { seatId: input.seatId, socketPath: leader.socketPath, lockPid: holder.pid, reason: holder.reason },
      },
    );
  }
  const successor = holder.pid;
  const first = await proveSeatLeader({ ...common, pid: successor, birth: null });
  if (first.result.verdict !== "match" || !first.proof.observed)
    throw refuseRelease(input.seatId, successor, `${gone}; the process now serving its socket,`, first.result);
  const birth = first.proof.observed.birth;
  // A respawn happens after the bound leader died: its successor is born later. A record whose leader birth is
  // not older (e.g. edited to name the live leader under another birth or pid) describes no respawn: refuse.
  if (!neverBound && !bornAfter(birth, leader.birth)) {
    throw new SeatError(
      "SEAT_RELEASE_REFUSED",
      `${gone}; the process now serving its socket, pid ${successor} (birth ${birth}), was not born after the recorded leader, so it is no respawn of it; nothing was stopped. Inspect pid ${successor} by hand.`,
      {
        context: { seatId: input.seatId, pid: successor, birth, recordedBirth: leader.birth },
      },
    );
  }
  const prove = () =>
    proveSeatLeader({ ...common, pid: successor, birth, socketInode: first.proof.socketInode ?? undefined });
  const stopped = await stopProven(successor, birth, async () => (await prove()).result.verdict === "match");
  if (stopped) removePrivateDir(leader.socketDir);
  return {
    ...base,
    tuiExit,
    leaderStopped: stopped,
    reason: stopped
      ? neverBound
        ? `${gone}; the leader pid ${successor} serving our socket, proven bound to the original TUI, was stopped`
        : `${gone}; grok's TUI had respawned leader pid ${successor} on the same socket, proven bound to the original TUI; it was stopped`
      : `${gone}; the respawned leader pid ${successor} did not exit after SIGTERM and SIGKILL`,
  };
}
