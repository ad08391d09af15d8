/*
 * Permission gate: policy → decision → (ask a human) → ACP response + audit record.
 * Owns: createPermissionGate(), the Approver contract, the audit record shape.
 * Does not own: receiving the request (acp/ client handlers call decide()) or showing a prompt to a human.
 * Invariants: decide() never rejects; anything uncertain denies — require-approval without an approver,
 *   an approver that throws, answers nonsense or times out. Options are chosen by kind (options.ts).
 *   A session that holds approvals (approvals/) passes its queue as the fallback approver of decide(); the gate's
 *   own approver, when given, still comes first.
 * Pipeline: categorize.ts → policy.ts (resolveAction) → approver → options.ts (chooseResponse).
 */
import type { RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk";
import { categorize, type PermissionCategory } from "./categorize.js";
import { chooseResponse, type Answer } from "./options.js";
import { resolveAction, type PermissionAction, type PermissionPolicy } from "./policy.js";

/** What an approver may answer: allow this call, allow this kind of call always, or deny. */
export type ApproverAnswer = "allow" | "always" | "deny";

/** What an approver is asked: the request, its category, and a signal that aborts on timeout. */
export interface ApprovalRequest {
  request: RequestPermissionRequest;
  category: PermissionCategory;
  signal: AbortSignal;
}

/** Asks a human (or an embedder's logic) about a call that needs approval. */
export type Approver = (question: ApprovalRequest) => ApproverAnswer | Promise<ApproverAnswer>;

/** Why a decision was a fallback rather than the policy's or approver's own answer. */
export type FallbackReason = "no-approver" | "approver-failed" | "approver-timeout" | "no-allow-option";

/** The audit record of one decision (ids and categories only; no tool input). */
export interface PermissionAudit {
  toolCallId: string;
  category: PermissionCategory;
  decision: "allow" | "deny";
  via: "policy" | "approver" | "default";
  optionId?: string;
  reason?: FallbackReason;
}

/** A decided request: the ACP response to send and its audit record. */
export interface GateDecision {
  response: RequestPermissionResponse;
  audit: PermissionAudit;
}

/** Options of createPermissionGate. */
export interface PermissionGateOptions {
  policy: PermissionPolicy;
  approver?: Approver;
  /** How long the approver may take before the call is denied (default 300000 ms). */
  approverTimeoutMs?: number;
}

/** What a session may add to one decision: the approver to ask when the gate has none, and its deadline. */
export interface DecideContext {
  /** Asked only when the gate was created without an approver (a held-approval queue, approvals/). */
  approver?: Approver;
  /** The fallback approver's deadline (ms); past it the call is denied with reason approver-timeout. */
  timeoutMs?: number;
}

/** A permission gate for one session. */
export interface PermissionGate {
  /** Decides one request; never rejects. Concurrent calls are independent. */
  decide(request: RequestPermissionRequest, context?: DecideContext): Promise<GateDecision>;
  /** The policy's action for a category, without asking anyone (the host-tools bridge checks `mcp`). */
  policyAction(category: PermissionCategory): PermissionAction;
}

type Asked = { answer: ApproverAnswer } | { failed: "approver-failed" | "approver-timeout" };

async function ask(
  approver: Approver,
  request: RequestPermissionRequest,
  category: PermissionCategory,
  timeoutMs: number,
): Promise<Asked> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Asked>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("approval timed out"));
      resolve({ failed: "approver-timeout" });
    }, timeoutMs);
  });
  const answered = (async (): Promise<Asked> => {
    try {
      const answer = await approver({ request, category, signal: controller.signal });
      return answer === "allow" || answer === "always" || answer === "deny"
        ? { answer }
        : { failed: "approver-failed" };
    } catch {
      return { failed: "approver-failed" };
    }
  })();
  try {
    return await Promise.race([answered, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Creates a gate that answers permission requests per `policy`, asking `approver` when approval is required. */
export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  const timeoutMs = options.approverTimeoutMs ?? 300_000;
  return {
    policyAction: (category) => resolveAction(options.policy, category).action,
    async decide(request, context) {
      const toolCallId = String(request?.toolCall?.toolCallId ?? "");
      const category = categorize(request ?? ({} as RequestPermissionRequest));
      const offered = request?.options;
      const finish = (answer: Answer, via: PermissionAudit["via"], reason?: FallbackReason): GateDecision => {
        const chosen = chooseResponse(answer, offered);
        const audit: PermissionAudit = { toolCallId, category, decision: chosen.decision, via };
        if (chosen.optionId !== undefined) audit.optionId = chosen.optionId;
        if (answer !== "deny" && chosen.decision === "deny") audit.reason = "no-allow-option";
        else if (reason !== undefined) audit.reason = reason;
        return { response: chosen.response, audit };
      };

      const { action, source } = resolveAction(options.policy, category);
      if (action === "allow") return finish("allow-once", source);
      if (action === "block") return finish("deny", source);
      const approver = options.approver ?? context?.approver;
      if (!approver) return finish("deny", "default", "no-approver");
      const asked = await ask(
        approver,
        request,
        category,
        options.approver ? timeoutMs : (context?.timeoutMs ?? timeoutMs),
      );
      if ("failed" in asked) return finish("deny", "default", asked.failed);
      const answer: Answer =
        asked.answer === "always" ? "allow-always" : asked.answer === "allow" ? "allow-once" : "deny";
      return finish(answer, "approver");
    },
  };
}
