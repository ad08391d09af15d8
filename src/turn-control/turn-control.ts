/*
 * Turn control: the control socket of a supervised turn, set up the same way by every door — `seat run`,
 *   `seat run -s`, the MCP `run` tool and a library openSession — so `seat cancel`, `seat approvals/approve/deny`
 *   and `seat ps` reach each of them alike.
 * Owns: planRunControl (where a plain run's socket goes, with held-approval records turned on, or the coded
 *   reason it has none) and startTurnControl (the socket with cancel, the typed `state` and this process's held
 *   approvals).
 * Does not own: the socket itself (control/socket.ts), the state schema (control/state.ts), the approvals (approvals/).
 * Invariant: every door's socket answers `state` through describeControlState, so none can leave out its kind.
 */
import { join } from "node:path";
import type { Diagnostic } from "../acp/index.js";
import { messageOf } from "../errors.js";
import { processApprovals, recordApprovalsIn } from "../approvals/index.js";
import {
  planControlSocket,
  startControlServer,
  type ControlPlace,
  type ControlServer,
  describeControlState,
  type ControlSubject,
  type DescribedSession,
} from "../control/index.js";

/** The part of a session its control socket drives. */
export interface ControlledSession extends DescribedSession {
  cancel(): Promise<unknown>;
}

/** Where a plain run's control socket goes, or why it has none (the run still runs without one). */
export type RunControlPlan = { place: ControlPlace } | { problem: Diagnostic };

/**
 * Plans a plain run's control socket in seat home `home` and turns on this process's held-approval records (so
 * an answer after the run ended hears APPROVAL_EXPIRED). Never throws: a socket path that fits nowhere is a
 * SESSION_SOCKET_PATH_TOO_LONG diagnostic to report once the session is up.
 */
export function planRunControl(home: string): RunControlPlan {
  try {
    const place = planControlSocket(home, undefined, "run");
    recordApprovalsIn(join(home, "approvals"));
    return { place };
  } catch (error) {
    return {
      problem: {
        code: "SESSION_SOCKET_PATH_TOO_LONG",
        message: messageOf(error),
      },
    };
  }
}

/** Starts the control socket of `session` at `place`: cancel, the typed `state` for `subject`, held approvals. */
export function startTurnControl(
  place: ControlPlace | string,
  session: ControlledSession,
  subject: ControlSubject,
): Promise<ControlServer> {
  return startControlServer(place, {
    cancel: async () => {
      await session.cancel();
      return {};
    },
    state: describeControlState(session, subject),
    approvals: processApprovals,
  });
}

/**
 * A plain run's control socket from its plan: the server, or, when it has no place or cannot start, undefined
 * after `report` was told why (the turn still runs; its approvals are then answerable only in-process or by
 * their deadline).
 */
export async function startRunControl(
  plan: RunControlPlan,
  session: ControlledSession,
  subject: ControlSubject,
  report: (diagnostic: Diagnostic) => void,
): Promise<ControlServer | undefined> {
  if ("problem" in plan) {
    report(plan.problem);
    return undefined;
  }
  try {
    return await startTurnControl(plan.place, session, subject);
  } catch (error) {
    report({
      code: "CONTROL_SOCKET_FAILED",
      message: `This run's control socket could not start (${messageOf(error)}); seat approve/deny/cancel cannot reach it.`,
    });
    return undefined;
  }
}
