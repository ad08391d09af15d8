/*
 * Approval queue: permission requests held for a person instead of denied, in one process.
 * Owns: ApprovalQueue (the held approver a session offers its gate, pending and settled approvals, the first
 *   answer wins) and the registry of this process's live queues (what listApprovals() sees without a socket).
 * Does not own: the policy (permissions/), the deadline timer (the gate's, which aborts the question's signal),
 *   carrying answers between processes (remote.ts) or Redis (fleet/).
 * Invariant: nothing is ever allowed by a timeout, an abort or a malformed answer — every path that is not an
 *   explicit "allow" resolves "deny"; an approval is settled exactly once, and every later answer is told
 *   APPROVAL_ALREADY_ANSWERED (naming the first) or APPROVAL_EXPIRED.
 * Spec: docs/supervision.md#approvals.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { SeatError } from "../errors.js";
import type { PendingApproval, SeatEvent } from "../acp/index.js";
import type { ApprovalRequest, Approver, ApproverAnswer } from "../permissions/index.js";
import { describeRequest } from "./target.js";
import { writeApprovalRecord } from "./record.js";

/** The default deadline of a held approval: 15 minutes. */
export const DEFAULT_APPROVAL_TIMEOUT_MS = 15 * 60_000;

/** An answer to a held approval. `always` allows this kind of call for the rest of the session. */
export interface ApprovalAnswer {
  decision: "allow" | "deny";
  always?: boolean;
  /** Why (a deny's note for the log; never sent to the agent). */
  message?: string;
  /** Who answered (for the audit and for a later answer's APPROVAL_ALREADY_ANSWERED). */
  by?: string;
  /**
   * The digest of the target the person saw (PendingApproval.digest). When given and not the held call's, the
   * answer is refused with APPROVAL_TARGET_CHANGED and the approval stays pending: nothing runs.
   */
  digest?: string;
}

/** Who owns a queue's approvals; pid and host are filled in. */
export type ApprovalOwner = PendingApproval["owner"];

/** Why a raced local approver's question was withdrawn (its signal's `reason.code`). */
type WithdrawnCode = "APPROVAL_ALREADY_ANSWERED" | "APPROVAL_TIMEOUT" | "APPROVAL_EXPIRED";

const WITHDRAWN: Record<WithdrawnCode, string> = {
  APPROVAL_ALREADY_ANSWERED: "was answered elsewhere first",
  APPROVAL_TIMEOUT: "reached its deadline unanswered and was denied",
  APPROVAL_EXPIRED: "ended with its turn before an answer and was denied",
};

type Settled =
  | { state: "answered"; decision: "allow" | "deny"; by?: string }
  | { state: "expired"; why: "timeout" | "turn-ended" };

interface Pending {
  view: PendingApproval;
  toolCallId: string;
  resolve(answer: ApproverAnswer): void;
  /** Stops a raced local approver (the terminal) with a coded reason: answered elsewhere, timed out or expired. */
  stopLocal(code: WithdrawnCode): void;
}

/** How many settled approvals a queue remembers (for ALREADY_ANSWERED / EXPIRED rather than NOT_FOUND). */
const SETTLED_KEPT = 256;

const live = new Set<ApprovalQueue>();
/** Queues of sessions disposed lately: still asked, so a late answer hears ALREADY_ANSWERED / EXPIRED, not NOT_FOUND. */
const closed: ApprovalQueue[] = [];
const CLOSED_KEPT = 16;

/** The live queues of this process (sessions that hold approvals and are not disposed). */
export function localQueues(): ApprovalQueue[] {
  return [...live];
}

/** The queue that holds or held approval `id` in this process (live, or among the lately disposed), if any. */
export function queueFor(id: string): ApprovalQueue | undefined {
  return [...live, ...closed].find((q) => q.knows(id));
}

function approvalId(): string {
  return `ap_${randomBytes(8).toString("hex")}`;
}

/** Options of an ApprovalQueue. */
export interface ApprovalQueueOptions {
  /** The owner as known now (the session id arrives after the handshake, so it is read on each ask). */
  owner: () => Omit<ApprovalOwner, "pid" | "host">;
  /** Deadline of each approval (ms). Default DEFAULT_APPROVAL_TIMEOUT_MS. */
  timeoutMs?: number;
  /** Receives approval_asked / approval_answered events. */
  emit?: (event: SeatEvent) => void;
  /** Runs when an approval is asked and when it settles (the session pauses its idle timeout in between). */
  onHold?: () => () => void;
}

/** The held approvals of one session: an approver that waits for an answer from anyone who can reach it. */
export class ApprovalQueue {
  readonly timeoutMs: number;
  private readonly pending = new Map<string, Pending>();
  private readonly settled = new Map<string, Settled>();

  constructor(private readonly options: ApprovalQueueOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS;
    live.add(this);
  }

  /** The approvals waiting now, oldest first. */
  list(): PendingApproval[] {
    return [...this.pending.values()].map((p) => structuredClone(p.view));
  }

  /** True when `id` is (or was recently) one of this queue's approvals. */
  knows(id: string): boolean {
    return this.pending.has(id) || this.settled.has(id);
  }

  /**
   * Answers a pending approval; the first answer wins. Throws APPROVAL_NOT_FOUND, APPROVAL_ALREADY_ANSWERED
   * (naming the first answer), APPROVAL_EXPIRED, or APPROVAL_TARGET_CHANGED (a digest that is not this call's
   * exact target: the approval stays pending and nothing runs).
   */
  answer(id: string, answer: ApprovalAnswer): { id: string; decision: "allow" | "deny" } {
    const pending = this.pending.get(id);
    if (!pending) throw settledError(id, this.settled.get(id));
    if (answer.digest !== undefined && answer.digest !== pending.view.digest) {
      throw new SeatError(
        "APPROVAL_TARGET_CHANGED",
        `Approval ${id} holds a call whose exact target has digest ${pending.view.digest}, not ${answer.digest}: what you saw is not what would run. Nothing was answered; list it again with \`seat approvals --full ${id}\` and answer what it shows.`,
        { context: { id, digest: pending.view.digest, given: answer.digest } },
      );
    }
    const decision = answer.decision === "allow" ? "allow" : "deny";
    this.settle(id, { state: "answered", decision, ...(answer.by ? { by: answer.by } : {}) });
    pending.stopLocal("APPROVAL_ALREADY_ANSWERED");
    this.options.emit?.({
      type: "approval_answered",
      id,
      toolCallId: pending.toolCallId,
      decision,
      via: "answer",
      ...(decision === "allow" && answer.always ? { always: true } : {}),
      ...(answer.by ? { by: answer.by } : {}),
    });
    pending.resolve(decision === "deny" ? "deny" : answer.always ? "always" : "allow");
    return { id, decision };
  }

  /** Ends every pending approval as expired (the turn ended): each is denied. */
  expireAll(): void {
    for (const id of [...this.pending.keys()]) this.expire(id, "turn-ended");
  }

  /** Expires what is pending and leaves the registry (the session is gone). */
  close(): void {
    this.expireAll();
    if (live.delete(this)) {
      closed.push(this);
      if (closed.length > CLOSED_KEPT) closed.shift();
    }
  }

  /**
   * The approver a session offers its gate: holds the question until an answer, its signal (the gate's
   * deadline: APPROVAL_TIMEOUT) or the end of the turn. `local` (the terminal) is raced against the queue.
   */
  approver(local?: Approver): Approver {
    return (question) => this.hold(question, local);
  }

  private hold(question: ApprovalRequest, local: Approver | undefined): Promise<ApproverAnswer> {
    const id = approvalId();
    const now = Date.now();
    const { title, target, digest, masked } = describeRequest(question.request);
    const view: PendingApproval = {
      id,
      category: question.category,
      title,
      target,
      digest,
      ...(masked ? { masked } : {}),
      owner: { ...this.options.owner(), pid: process.pid, host: hostname() },
      askedAt: new Date(now).toISOString(),
      deadline: new Date(now + this.timeoutMs).toISOString(),
    };
    const release = this.options.onHold?.() ?? (() => undefined);
    const localStop = new AbortController();
    return new Promise<ApproverAnswer>((resolve) => {
      this.pending.set(id, {
        view,
        toolCallId: String(question.request?.toolCall?.toolCallId ?? ""),
        resolve: (answer) => {
          release();
          resolve(answer);
        },
        // The reason is a coded diagnostic, so a local approver can tell "answered elsewhere" from the deadline.
        stopLocal: (code) => localStop.abort({ code, message: `Approval ${id} ${WITHDRAWN[code]}.` }),
      });
      // A job's approvals are recorded in Redis (fleet/approvals.ts); the others on disk when records are on.
      if (view.owner.kind !== "job") writeApprovalRecord({ id, state: "pending", deadline: view.deadline });
      this.options.emit?.({ type: "approval_asked", approval: structuredClone(view) });
      if (question.signal.aborted) this.expire(id, "timeout");
      else question.signal.addEventListener("abort", () => this.expire(id, "timeout"), { once: true });
      if (local) this.raceLocal(id, local, question, localStop.signal);
    });
  }

  private raceLocal(id: string, local: Approver, question: ApprovalRequest, signal: AbortSignal): void {
    // Only our own signal reaches the local approver: every way its question ends (an answer elsewhere, the
    // gate's deadline, the end of the turn) settles the approval first and aborts it with that outcome's code.
    void (async () => {
      let answer: ApproverAnswer | undefined;
      try {
        answer = await local({ ...question, signal });
      } catch {
        return; // a local approver that fails or is stopped leaves the approval held for others
      }
      if (signal.aborted || !this.pending.has(id)) return;
      const allowed = answer === "allow" || answer === "always";
      this.answer(id, {
        decision: allowed ? "allow" : "deny",
        ...(answer === "always" ? { always: true } : {}),
        by: "terminal",
      });
    })();
  }

  private expire(id: string, why: "timeout" | "turn-ended"): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.settle(id, { state: "expired", why });
    pending.stopLocal(why === "timeout" ? "APPROVAL_TIMEOUT" : "APPROVAL_EXPIRED");
    this.options.emit?.({
      type: "approval_answered",
      id,
      toolCallId: pending.toolCallId,
      decision: "deny",
      via: why === "timeout" ? "timeout" : "expired",
    });
    pending.resolve("deny");
  }

  private settle(id: string, outcome: Settled): void {
    const view = this.pending.get(id)?.view;
    if (view && view.owner.kind !== "job") {
      writeApprovalRecord({
        id,
        deadline: view.deadline,
        ...(outcome.state === "answered"
          ? { state: "answered", decision: outcome.decision, ...(outcome.by ? { by: outcome.by } : {}) }
          : { state: "expired", decision: "deny", why: outcome.why }),
      });
    }
    this.pending.delete(id);
    this.settled.set(id, outcome);
    if (this.settled.size > SETTLED_KEPT) this.settled.delete(this.settled.keys().next().value as string);
  }
}

function settledError(id: string, settled: Settled | undefined): SeatError {
  if (!settled)
    return new SeatError("APPROVAL_NOT_FOUND", `No pending approval has id ${id}. List them with \`seat approvals\`.`, {
      context: { id },
    });
  if (settled.state === "answered") {
    return new SeatError(
      "APPROVAL_ALREADY_ANSWERED",
      `Approval ${id} was already answered: ${settled.decision}${settled.by ? ` by ${settled.by}` : ""}. The first answer stands.`,
      { context: { id, decision: settled.decision, ...(settled.by ? { by: settled.by } : {}) } },
    );
  }
  const why =
    settled.why === "timeout"
      ? "its deadline passed and it was denied (APPROVAL_TIMEOUT)"
      : "its turn ended before an answer; it was denied";
  return new SeatError("APPROVAL_EXPIRED", `Approval ${id} is no longer pending: ${why}.`, {
    context: { id, why: settled.why },
  });
}
