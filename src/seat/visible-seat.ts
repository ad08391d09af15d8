/*
 * Visible seat: one proven, attached grok TUI session we deliver briefs into, and its release.
 * Owns: delivery (fence → dispatch → consumed → completed | uncertain | failed | submitted), mapping
 *   wire evidence to the journal, waiting for a delivery state, live status, and release.
 * Does not own: launching, proving and attaching (hire.ts), the turn engine (acp/ SessionCore).
 * Invariant: the fence is durable before dispatch; queue membership / runningPromptId means consumed,
 *   not awareness; only a result echoing this session and prompt id completes; cancellation is
 *   submitted; nothing is re-sent; the controller never answers a permission request; only an observed
 *   exit of the original TUI lets release stop the leader, after re-proving it.
 * Spec: ADR 0224; grok-wire.md §13; docs/seat-protocol.md#delivery, #release
 */
import { randomUUID } from "node:crypto";
import { SeatError, messageOf } from "../errors.js";
import { removePrivateDir } from "../internal/private-dir.js";
import type { AcpPeer, SeatEvent, SessionCore, TurnResult } from "../acp/index.js";
import type { DeliveryRecord, DeliveryState, Journal } from "../journal/index.js";
import type { LeaderClient } from "../leader/index.js";
import type { Backend } from "../mux/index.js";
import { socketListenerInodes } from "../identity/index.js";
import type { Admission } from "./admission.js";
import type { HirePlan } from "./plan.js";
import { bindLeader, observeExit, proveSeatLeader, waitForExitObserved, type LeaderBinding, type TuiProof } from "./proof.js";

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
}

/** A live visible seat. One controller owns it; its leader connection is never reopened. */
export class VisibleSeat {
  readonly seatId: string;
  readonly sessionId: string;
  readonly parts: AttachedParts;
  #listeners = new Set<() => void>();
  #turns = new Map<string, Promise<TurnResult>>();
  #closed = false;
  #leaderGone: SeatError | null = null;

  constructor(parts: AttachedParts) {
    this.parts = parts;
    this.seatId = parts.plan.seatId;
    this.sessionId = parts.plan.sessionId;
    void parts.client.closed.then((closed) => {
      this.#leaderGone = closed.error;
      this.#notify();
    });
  }

  /** Feeds a seat event (from the session core) into delivery evidence. Called in arrival order. */
  observe(event: SeatEvent): void {
    if (event.type !== "queue") return;
    const { queue } = event;
    if (queue.sessionId !== this.sessionId) return;
    const ids = new Set([...queue.entryIds, ...(queue.runningPromptId ? [queue.runningPromptId] : [])]);
    for (const promptId of ids) {
      const delivery = this.parts.journal.getDelivery(promptId);
      if (!delivery || delivery.seatId !== this.seatId) continue; // the owner's own prompts are not ours to record
      if (delivery.state !== "dispatched" && delivery.state !== "uncertain") continue;
      const running = queue.runningPromptId === promptId;
      this.#record(promptId, { kind: "consumed", source: "_x.ai/queue/changed", sessionId: queue.sessionId, promptId, detail: running ? "runningPromptId" : "queue entry" });
    }
  }

  /**
   * Fences `text` durably, then dispatches it as `session/prompt` with a caller-created prompt id.
   * Resolves the delivery once dispatched; its later states arrive through the journal (waitFor).
   */
  async deliver(text: string, options: DeliverOptions = {}): Promise<DeliveryRecord> {
    if (this.#closed) throw new SeatError("SEAT_NOT_ADMITTED", `Seat ${this.seatId} is released; hire a fresh seat.`, { context: { seatId: this.seatId } });
    if (this.#leaderGone) throw this.#leaderGone;
    const { journal } = this.parts;
    const promptId = options.promptId ?? `${this.seatId}-${randomUUID()}`;
    const fenced = journal.fence({ seatId: this.seatId, promptId, text });
    if (options.beforeDispatch) await options.beforeDispatch(fenced);
    if (this.#closed || this.#leaderGone) {
      journal.markFailed(promptId, "never dispatched: the leader connection closed before dispatch");
      throw this.#leaderGone ?? new SeatError("SEAT_NOT_ADMITTED", `Seat ${this.seatId} was released before dispatch.`, { context: { seatId: this.seatId } });
    }
    const dispatched = journal.markDispatched(promptId);
    this.#notify();
    const turn = this.parts.core.prompt(text, { promptId });
    this.#turns.set(promptId, turn);
    void turn.then((result) => this.#settle(promptId, result)).finally(() => this.#turns.delete(promptId));
    return dispatched;
  }

  /** Resolves the delivery once it reaches one of `states` (or any settled state), or its current record on timeout. */
  waitFor(promptId: string, states: DeliveryState[], timeoutMs: number): Promise<DeliveryRecord | null> {
    const read = () => this.parts.journal.getDelivery(promptId);
    return new Promise((resolve) => {
      const done = (record: DeliveryRecord | null) => {
        clearTimeout(timer);
        this.#listeners.delete(check);
        resolve(record);
      };
      const check = () => {
        const record = read();
        if (!record || states.includes(record.state) || SETTLED.includes(record.state)) done(record);
      };
      const timer = setTimeout(() => done(read()), timeoutMs);
      this.#listeners.add(check);
      check();
    });
  }

  /** Live status: seat record, admission, whether the TUI is still the bound process, open deliveries. */
  async status(): Promise<Record<string, unknown>> {
    const { journal, tui, leader, admission, selected, plan } = this.parts;
    return {
      seatId: this.seatId,
      sessionId: this.sessionId,
      controller: { pid: process.pid, connected: !this.#closed && this.#leaderGone === null, leaderError: this.#leaderGone?.message ?? null },
      tui: { pid: tui.pid, birth: tui.birth, birthResolution: tui.birthResolution, state: await observeExit(tui), pane: tui.pane },
      leader: { pid: leader.pid, birth: leader.birth, socketPath: leader.socketPath, socketInode: leader.socketInode },
      admission,
      selected,
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
      if (d && (d.state === "dispatched" || d.state === "consumed")) this.#move(() => journal.markUncertain(promptId, "the seat was released before a final result arrived"));
    }
    if (options.closePane) await backend.close(tui.pane).catch(() => undefined);
    const result = await stopLeaderAfterTuiExit({
      seatId: this.seatId, tui: { pid: tui.pid, birth: tui.birth }, leader: this.parts.leader, exitTimeoutMs: options.exitTimeoutMs ?? (options.closePane ? 10_000 : 0),
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
      if (current.state !== "submitted") this.#move(() => journal.markCancelled(promptId, "session/prompt result stopReason cancelled"));
      return;
    }
    if (result.echoed && result.stopReason !== undefined) {
      this.#record(promptId, { kind: "completed", source: "session/prompt result", sessionId: String(meta.sessionId), promptId: String(meta.promptId), detail: { stopReason: result.stopReason } });
      return;
    }
    if (current.state === "uncertain" || current.state === "submitted") return;
    if (result.stopReason !== undefined) {
      this.#move(() => journal.markUncertain(promptId, `the prompt result did not echo session ${this.sessionId} and prompt ${promptId}`));
      return;
    }
    const lost = this.#leaderGone !== null || this.#closed || /connection .*closed/.test(result.diagnostic?.message ?? "");
    if (lost) this.#move(() => journal.markUncertain(promptId, `no final result: ${result.diagnostic?.message ?? "the connection closed"}`));
    else this.#move(() => journal.markFailed(promptId, result.diagnostic?.message ?? "the prompt failed"));
  }

  #record(promptId: string, evidence: Parameters<Journal["recordEvidence"]>[1]): void {
    this.#move(() => this.parts.journal.recordEvidence(promptId, evidence));
  }

  #move(work: () => unknown): void {
    try {
      work();
    } catch (error) {
      // A refused transition (e.g. evidence that does not echo) is recorded nowhere; report it on stderr.
      process.stderr.write(`grok-seat: ${messageOf(error)}\n`);
    }
    this.#notify();
  }

  #notify(): void {
    for (const listener of [...this.#listeners]) listener();
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops the seat's own leader only after the original TUI was observed to exit and the leader was
 * re-proven (bound birth, exe, cwd, uid, our socket inode, 0700 dir); removes the private socket dir
 * after the leader is gone. Never signals anything else.
 */
export async function stopLeaderAfterTuiExit(input: StopLeaderInput): Promise<Omit<ReleaseResult, "controllerClosed">> {
  const base = { seatId: input.seatId };
  const tuiExit = input.exitTimeoutMs > 0 ? await waitForExitObserved(input.tui, input.exitTimeoutMs) : await observeExit(input.tui);
  if (tuiExit !== "exited") {
    return { ...base, tuiExit, leaderStopped: false, reason: `the original TUI (pid ${input.tui.pid}) has not been observed to exit (${tuiExit}); its leader keeps running. Close the TUI, then run release again.` };
  }
  const leaderState = await observeExit(input.leader);
  if (leaderState === "exited") {
    // The bound leader is gone; keep the directory while anything still listens on the path (not ours to touch).
    const listeners = await socketListenerInodes(input.leader.socketPath).catch(() => [0]);
    if (listeners.length === 0) removePrivateDir(input.leader.socketDir);
    return { ...base, tuiExit, leaderStopped: false, reason: `the bound leader (pid ${input.leader.pid}, birth ${input.leader.birth}) had already exited; nothing was signalled` };
  }
  const { result } = await proveSeatLeader({ ...input.leader, tuiPid: input.tui.pid, birth: input.leader.birth, requireChildOfTui: false });
  if (result.verdict !== "match") {
    const reasons = result.checks.filter((c) => c.verdict !== "match").map((c) => c.reason).join("; ");
    throw new SeatError("SEAT_RELEASE_REFUSED", `The leader pid ${input.leader.pid} could not be re-proven (${result.verdict}: ${reasons}); nothing was stopped. Inspect it by hand.`, {
      context: { seatId: input.seatId, pid: input.leader.pid, verdict: result.verdict, reasons },
    });
  }
  process.kill(input.leader.pid, "SIGTERM");
  let state = await waitForExitObserved(input.leader, 5000);
  if (state !== "exited") {
    // Re-check identity right before the hard kill: the pid must still be our leader.
    const again = await bindLeader({ ...input.leader, tuiPid: input.tui.pid, birth: input.leader.birth, requireChildOfTui: false }).then(() => true, () => false);
    if (again) process.kill(input.leader.pid, "SIGKILL");
    state = await waitForExitObserved(input.leader, 5000);
  }
  if (state === "exited") removePrivateDir(input.leader.socketDir);
  await sleep(0);
  return { ...base, tuiExit, leaderStopped: state === "exited", reason: state === "exited" ? `the original TUI exited; the proven leader pid ${input.leader.pid} was stopped` : `the leader pid ${input.leader.pid} did not exit after SIGTERM and SIGKILL` };
}
