/*
 * Approvals source: the small interface through which `seat ps` and the board see pending approvals and
 *   answer one, whatever holds them (a run's control socket, the fleet's Redis, a test's in-process queue).
 * Owns: the interface, and matching an approval to the live item it belongs to (the shapes are approvals/').
 * Does not own: holding or deciding approvals (approvals/, fleet/); this folder only lists and forwards.
 * Invariant: nothing here answers by itself; an answer is only ever forwarded from a person's explicit act.
 */

import type { ApprovalAnswer, PendingApproval } from "../approvals/index.js";

export type { ApprovalAnswer, PendingApproval };

/** Where pending approvals come from and where answers go. */
export interface ApprovalsSource {
  /** Every approval pending now. */
  list(): Promise<PendingApproval[]>;
  /** Forwards one answer; rejects with the holder's coded error (not found, already answered, expired). */
  answer(id: string, answer: ApprovalAnswer): Promise<{ id: string; decision: "allow" | "deny" }>;
}

/** True when `approval` belongs to the live item of `kind` with `id` / `name` / `pid`. */
export function approvalBelongsTo(
  approval: PendingApproval,
  item: { kind: string; id: string; name?: string; pid?: number },
): boolean {
  const owner = approval.owner;
  const kind = owner.kind === "session" ? "run" : owner.kind;
  if (kind !== item.kind) return false;
  if (owner.id === item.id) return true;
  if (owner.name !== undefined && owner.name === item.name) return true;
  return owner.pid !== undefined && owner.pid === item.pid;
}
