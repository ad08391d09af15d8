/*
 * runSupervisedTurn: one supervised turn from start to end in one call — prepare, open, send, close — for a caller
 *   that has nothing to do between those steps (the library's simplest door, the MCP `run` tool, `seat compare`).
 * Owns: the sequence, and turning a session that did not come up into a resolved result.
 * Does not own: the steps themselves (supervised-turn.ts).
 * Invariant: resolves once everything is closed (agent gone, worktree committed and unlocked, notifications
 *   delivered or given up); rejects only where prepare or open reject, before anything was sent.
 */
import type { Diagnostic, TurnResult } from "../acp/index.js";
import type { PromptInput } from "../runtime/index.js";
import {
  prepareSupervisedTurn,
  type ClosedTurn,
  type SupervisedTurn,
  type SupervisedTurnOptions,
} from "./supervised-turn.js";

/** How a supervised turn ended. */
export interface SupervisedTurnOutcome {
  /** The turn's result; for a session that did not come up (or a signal before sending), its diagnostic. */
  result: TurnResult;
  /** Whether the prompt was sent. */
  sent: boolean;
  /** Every diagnostic the turn and its closing reported, in order (the result's own included once). */
  diagnostics: Diagnostic[];
  named?: SupervisedTurn["named"];
  worktree?: ClosedTurn["worktree"];
  survivors: number[];
}

/** Runs one supervised turn of `prompt` to its end (see supervised-turn.ts for the options). */
export async function runSupervisedTurn(
  options: SupervisedTurnOptions & { prompt: PromptInput; signal?: AbortSignal; promptId?: string },
): Promise<SupervisedTurnOutcome> {
  const { prompt, signal, promptId, ...turnOptions } = options;
  const diagnostics: Diagnostic[] = [];
  const onEvent = turnOptions.callbacks?.onEvent;
  const prepared = await prepareSupervisedTurn({
    ...turnOptions,
    callbacks: {
      ...turnOptions.callbacks,
      onEvent: (event) => {
        if (event.type === "diagnostic") diagnostics.push(event.diagnostic);
        return onEvent?.(event);
      },
    },
  });
  if (signal?.aborted) return unsent(promptId, cancelledBeforeSending(), diagnostics);
  const turn = await prepared.open();
  let result: TurnResult | undefined;
  let closed: ClosedTurn;
  let sent = false;
  try {
    if (!turn.ready)
      result = notSent(
        promptId,
        turn.failure ?? { code: "ACP_SESSION_DEAD", message: "The agent session did not come up." },
      );
    else if (signal?.aborted) result = notSent(promptId, cancelledBeforeSending());
    else {
      result = await turn.send(prompt, { ...(signal ? { signal } : {}), ...(promptId ? { promptId } : {}) });
      sent = true;
    }
  } finally {
    closed = await turn.close();
  }
  if (
    result.diagnostic &&
    !diagnostics.some((d) => d.code === result!.diagnostic!.code && d.message === result!.diagnostic!.message)
  )
    diagnostics.push(result.diagnostic);
  diagnostics.push(...closed.diagnostics);
  return {
    result,
    sent,
    diagnostics,
    ...(turn.named ? { named: turn.named } : {}),
    ...(closed.worktree ? { worktree: closed.worktree } : {}),
    survivors: closed.survivors,
  };
}

/** A result for a turn whose prompt was never sent. */
function notSent(promptId: string | undefined, diagnostic: Diagnostic): TurnResult {
  return { promptId: promptId ?? "", text: "", echoed: false, diagnostic };
}

function unsent(
  promptId: string | undefined,
  diagnostic: Diagnostic,
  diagnostics: Diagnostic[],
): SupervisedTurnOutcome {
  diagnostics.push(diagnostic);
  return { result: notSent(promptId, diagnostic), sent: false, diagnostics, survivors: [] };
}

/** A turn whose signal was aborted before its prompt went out: nothing ran. */
function cancelledBeforeSending(): Diagnostic {
  return {
    code: "TURN_CANCELLED_UNSENT",
    message: "The turn was cancelled before its prompt was sent; nothing ran. [TURN_CANCELLED_UNSENT]",
  };
}
