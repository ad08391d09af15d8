/*
 * Option choice: turns an allow/deny decision into an ACP RequestPermissionResponse.
 * Owns: chooseResponse(), a pure function of the decision and the options the agent offered.
 * Does not own: deciding (gate.ts) or categorizing (categorize.ts).
 * Invariant: an option is picked by its `kind` and its id is copied from the offer — ids are never
 *   invented (they vary by tool and client, grok-wire §9). Without a fitting option we answer cancelled.
 */
import type { PermissionOption, PermissionOptionKind, RequestPermissionResponse } from "@agentclientprotocol/sdk";

/** What the gate wants to answer: allow (once or always) or deny. */
export type Answer = "allow-once" | "allow-always" | "deny";

/** The response to send and the option it selected (if any). */
export interface ChosenResponse {
  response: RequestPermissionResponse;
  decision: "allow" | "deny";
  optionId?: string;
}

const PREFERENCE: Record<Answer, PermissionOptionKind[]> = {
  // A single approval prefers the narrower option; "always" is only chosen when nothing narrower exists.
  "allow-once": ["allow_once", "allow_always"],
  "allow-always": ["allow_always", "allow_once"],
  deny: ["reject_once", "reject_always"],
};

function pick(options: readonly PermissionOption[], kinds: PermissionOptionKind[]): PermissionOption | undefined {
  for (const kind of kinds) {
    const hit = options.find((o) => o?.kind === kind && typeof o.optionId === "string");
    if (hit) return hit;
  }
  return undefined;
}

/**
 * Chooses the response for `answer` from the offered options. An allow with no allow option falls back to
 * deny; a deny with no reject option answers `{outcome: "cancelled"}`.
 */
export function chooseResponse(answer: Answer, options: readonly PermissionOption[] | undefined): ChosenResponse {
  const offered = Array.isArray(options) ? options : [];
  if (answer !== "deny") {
    const allow = pick(offered, PREFERENCE[answer]);
    if (allow)
      return {
        response: { outcome: { outcome: "selected", optionId: allow.optionId } },
        decision: "allow",
        optionId: allow.optionId,
      };
  }
  const reject = pick(offered, PREFERENCE.deny);
  if (reject)
    return {
      response: { outcome: { outcome: "selected", optionId: reject.optionId } },
      decision: "deny",
      optionId: reject.optionId,
    };
  return { response: { outcome: { outcome: "cancelled" } }, decision: "deny" };
}
