/*
 * What `seat run` shows: the turn's events as text or NDJSON (held until the session is up), the terminal's
 *   approval question, the named session's line, a start failure, and what closing the turn said.
 * Owns: createRunOutput, terminalApprover, withdrawnNotice, reportOpened, reportStartFailure, reportClosed.
 * Does not own: the turn (turn/), the flags (run-flags.ts), the lines' format (output.ts).
 */
import { createInterface } from "node:readline/promises";
import type { SeatEvent } from "../acp/index.js";
import { SeatError } from "../errors.js";
import { describeRequest, visibleText } from "../approvals/index.js";
import type { Approver } from "../permissions/index.js";
import type { ClosedTurn, SupervisedTurn } from "../turn/index.js";
import {
  EXIT,
  createHumanPrinter,
  exitCodeFor,
  humanLine,
  type paletteFor,
  startSpinner,
  writeJson,
} from "./output.js";

/**
 * Asks the person at the terminal; only used when stdin is a TTY and output is not --json. It races the held
 * approval: when another shell answers first, the question is withdrawn and the terminal told so.
 */
export function terminalApprover(): Approver {
  return async (request) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      // The exact target (value-masked only, control characters visible), as seat approvals shows it.
      const shown = describeRequest(request.request);
      const what = visibleText(shown.target.command ?? shown.target.paths?.join(", ") ?? shown.title);
      const masked = shown.masked ? ` (masked: [${shown.masked.join(", ")}])` : "";
      const answer = await rl.question(`Allow ${request.category} — ${what}${masked}? [y/N] `, {
        signal: request.signal,
      });
      return /^y(es)?$/i.test(answer.trim()) ? "allow" : "deny";
    } catch (error) {
      if (request.signal.aborted) process.stderr.write(`\n▸ ${withdrawnNotice(request.signal.reason)}\n`);
      throw error;
    } finally {
      rl.close();
    }
  };
}

/** What the terminal says when its approval question is withdrawn, chosen by the reason's code (approvals/). */
export function withdrawnNotice(reason: unknown): string {
  const code = (reason as { code?: unknown } | undefined)?.code;
  if (code === "APPROVAL_ALREADY_ANSWERED")
    return "answered elsewhere first (APPROVAL_ALREADY_ANSWERED); this prompt was withdrawn";
  if (code === "APPROVAL_TIMEOUT") return "no answer before the deadline; the call was denied (APPROVAL_TIMEOUT)";
  if (code === "APPROVAL_EXPIRED") return "the turn ended before an answer; the call was denied (APPROVAL_EXPIRED)";
  return "this prompt was withdrawn; the call was denied";
}

/** The run's output: an event sink that holds what comes before the session is up, a spinner, the printer. */
export interface RunOutput {
  onEvent(event: SeatEvent): void;
  /** The session is up (or did not come up): what was held, in order; later events go straight out. */
  started(): SeatEvent[];
  startSpinner(): void;
  stopSpinner(): void;
  /** The turn's text is complete (a final newline for text output). */
  finish(): void;
}

/**
 * Diagnostics and state changes before the turn are held: a start failure is one {"type":"error"} (README), not a
 * diagnostic; once the session is up they are replayed in order. With --json, `done` ends the stream: the
 * session's own end at dispose (done/interrupted) is what the exit code says.
 */
export function createRunOutput(json: boolean, palette: ReturnType<typeof paletteFor>): RunOutput {
  let starting = true;
  const held: SeatEvent[] = [];
  let turnDone = false;
  let spinner: { stop(): void } = { stop() {} };
  const printer = createHumanPrinter(palette, () => spinner.stop());
  const onEvent = (event: SeatEvent) => {
    if (starting && (event.type === "diagnostic" || event.type === "state")) return void held.push(event);
    if (!json) return printer.onEvent(event);
    if (event.type === "done") turnDone = true;
    else if (event.type === "state" && turnDone) return;
    if (
      event.type !== "queue" &&
      event.type !== "mcp_initialized" &&
      event.type !== "prompt_complete" &&
      event.type !== "user_text"
    )
      writeJson(event);
  };
  return {
    onEvent,
    started() {
      starting = false;
      return held.splice(0);
    },
    startSpinner() {
      if (!json) spinner = startSpinner(process.stderr, "grok is thinking…");
    },
    stopSpinner: () => spinner.stop(),
    finish() {
      if (!json) printer.finish();
    },
  };
}

/** Says which session a named run continued, and any turn a dead holder left interrupted (never re-sent). */
export function reportOpened(
  named: NonNullable<SupervisedTurn["named"]>,
  json: boolean,
  palette: ReturnType<typeof paletteFor>,
): void {
  if (json) {
    writeJson({
      type: "session",
      name: named.name,
      resumed: named.resumed,
      agentSessionId: named.agentSessionId,
      interrupted: named.interrupted,
    });
    return;
  }
  for (const promptId of named.interrupted)
    process.stderr.write(
      `${palette.yellow(`▸ session ${named.name}: the previous turn ${promptId} was interrupted (its process died); it was not re-sent`)}\n`,
    );
}

/** What closing the turn said: the worktree's commit, anything that went wrong, agents that survived dispose. */
export function reportClosed(
  closed: ClosedTurn,
  jsonOut: boolean,
  json: boolean,
  palette: ReturnType<typeof paletteFor>,
): void {
  for (const diagnostic of closed.diagnostics) {
    if (diagnostic === closed.worktree?.failure) continue;
    if (jsonOut) writeJson({ type: "diagnostic", diagnostic });
    else if (!json) process.stderr.write(`${humanLine({ type: "diagnostic", diagnostic }, palette)}\n`);
  }
  if (closed.survivors.length > 0 && jsonOut)
    writeJson({
      type: "diagnostic",
      diagnostic: { code: "GROK_DISPOSE_SURVIVORS", message: `survivors: ${closed.survivors.join(",")}` },
    });
  const tree = closed.worktree;
  if (!tree) return;
  // A turn that failed to commit leaves its changes uncommitted in the worktree (seat worktrees shows them dirty).
  if (tree.failure) {
    const suffix = ` [${tree.failure.code}]`;
    const message = tree.failure.message.endsWith(suffix)
      ? tree.failure.message.slice(0, -suffix.length)
      : tree.failure.message;
    throw new SeatError(tree.failure.code, message);
  }
  if (tree.head === undefined) return; // never sent: nothing to commit
  if (jsonOut)
    writeJson({ type: "worktree_commit", name: tree.name, branch: tree.branch, commit: tree.commit, head: tree.head });
  else if (!json)
    process.stderr.write(
      `${palette.dim(tree.commit ? `▸ worktree ${tree.name}: committed ${tree.commit.slice(0, 12)} on ${tree.branch} (review: seat diff ${tree.name})` : `▸ worktree ${tree.name}: no changes this turn`)}\n`,
    );
}

/** A session that could not start: its earlier diagnostics as such, then the failure as an error; its exit code. */
export function reportStartFailure(held: SeatEvent[], json: boolean, palette: ReturnType<typeof paletteFor>): number {
  const diagnostics = held.flatMap((e) => (e.type === "diagnostic" ? [e.diagnostic] : []));
  const fatal = diagnostics.pop();
  for (const d of diagnostics) {
    if (json) writeJson({ type: "diagnostic", diagnostic: d });
    else process.stderr.write(`${humanLine({ type: "diagnostic", diagnostic: d }, palette)}\n`);
  }
  if (!fatal) return EXIT.turnFailed;
  if (json) writeJson({ type: "error", code: fatal.code, message: fatal.message });
  else
    process.stderr.write(
      `seat run: ${fatal.message}${fatal.message.includes(`[${fatal.code}]`) ? "" : ` [${fatal.code}]`}\n`,
    );
  return exitCodeFor(fatal.code);
}
