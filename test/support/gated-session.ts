/*
 * Gated session: a headless session on a live rig whose permission requests are answered by a permission gate,
 * every decision recorded, so a test can tell which requests grok sent and what each got.
 * Owns: wiring the gate into createSession's `permissions` and the record of decisions.
 * Does not own: the gate's policy or approver (the test builds them), the rig (live-rig.ts).
 */
import type { RequestPermissionRequest } from "@agentclientprotocol/sdk";
import type { GateDecision, PermissionGate } from "../../src/permissions/index.js";
import { createSession, type HeadlessSession } from "../../src/runtime/index.js";
import type { LiveRig } from "./live-rig.js";

/** A session and the gate decisions it got, in order. */
export interface GatedSession {
  session: HeadlessSession;
  decisions: GateDecision[];
}

/** Creates a session on `rig` whose every permission request goes to `gate()` (read at each request, so a test may swap it). */
export async function createGatedSession(rig: LiveRig, gate: () => PermissionGate): Promise<GatedSession> {
  const decisions: GateDecision[] = [];
  const session = await createSession({
    ...rig.sessionOptions,
    permissions: {
      async decide(request: RequestPermissionRequest) {
        const decision = await gate().decide(request);
        decisions.push(decision);
        return decision;
      },
    },
  });
  return { session, decisions };
}
