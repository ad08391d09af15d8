/*
 * `seat run "<prompt>"`: one headless turn, streamed — text to stdout, one line per tool call to stderr,
 *   or NDJSON events with --json.
 * Ctrl-C (or SIGTERM, SIGHUP) cancels the turn, waits for grok to end it, disposes the session (no orphans) and
 *   exits 130; a second one stops waiting and disposes at once. Once the agent's turn is over, a first one cancels
 *   nothing: the run says it is closing and exits with the turn's own code. A closed stdout (`| head -1`) cancels the same
 *   way and exits 141. The prompt is an argument, or `-f FILE|-` (a file or stdin, any size).
 * A call the policy sends for approval is held (approvals/) until someone answers — the terminal (on a TTY) or
 *   `seat approve|deny` from another shell over this run's control socket, first answer wins — or its deadline
 *   denies it (APPROVAL_TIMEOUT). Every run, named or not, serves a control socket in a 0700 directory.
 */
// Types only: the supervised turn (turn/) is imported once the flags are checked.
import type { SupervisedTurn } from "../../turn/index.js";
import type { SeatEvent } from "../../acp/index.js";
import { DEFAULT_FAIL_FAST_RETRIES } from "../../health/index.js";
import { BUDGET_HELP } from "../budget-flags.js";
import { promptFrom } from "../prompt-input.js";
import { onStdoutClosed } from "../pipes.js";
import { EXIT, exitCodeFor, paletteFor } from "../output.js";
import { reportRunWorktree } from "../worktree-run.js";
import { runRequestFrom } from "../run-flags.js";
import {
  createRunOutput,
  reportClosed,
  reportOpened,
  reportStartFailure,
  terminalApprover,
  type RunOutput,
} from "../run-output.js";
import type { Command } from "./command.js";

export const runCommand: Command = {
  name: "run",
  help: `Usage: seat run "<prompt>" [flags]
       seat run -f FILE|- [flags]

  -f, --file FILE       read the prompt from FILE, or from stdin when FILE is "-" (any size)
  -s, --session NAME    continue the named session (created on first use; per directory unless --global)
  --global              with -s: a name shared by every directory
  --wait SECS           with -s: queue behind a running turn for up to SECS (default: exit 75 at once)
  --model ID            grok-cli/<id>, grok/<id> or a bare id (grok/default = grok's default)
  --cwd DIR             working directory of the session (default: current)
  --json                NDJSON events on stdout (text, thinking, tool_start, tool_end, plan, usage,
                        permission, approval_asked, approval_answered, retry, model_catalog, diagnostic, done)
  --allow LIST          categories to allow: read,edit,execute,network,mcp,other
  --ask LIST            categories that need approval: held until answered (on a TTY, or from any shell
                        with seat approvals / seat approve ID / seat deny ID; first answer wins)
  --approval-timeout SECS  deny a held approval nobody answered after SECS (APPROVAL_TIMEOUT; default 900,
                        or the policy file's approvalTimeout)
  --block LIST          categories to refuse
  --policy FILE         a grok-seat.permissions.v1 JSON policy (flags override it)
  --unrestricted        allow sensitive categories unless --ask/--block name them
  --turn-timeout SECS   cancel the turn after SECS (default 900, 0 = off)
  --idle-timeout SECS   cancel when grok is silent for SECS (default 180, 0 = off)
  --fail-fast [N]       end the turn with MODEL_UNREACHABLE (exit 124) once grok has retried its model
                        request N times (default ${DEFAULT_FAIL_FAST_RETRIES}); grok's retries are shown either way.
                        The word after --fail-fast must be N, a flag, or nothing: --fail-fast=N is unambiguous
${BUDGET_HELP}
  --prices FILE         a grok-seat.prices.v1 price file: keeps --max-cost from reported tokens
  --session-max-tokens N, --session-max-cost USD
                        with -s: record a budget for the whole session; a turn is refused once it is spent
  --grok PATH           grok binary to use
  --agent NAME          drive another ACP agent: codex, claude, opencode, gemini (default grok;
                        install them with \`seat agents install NAME\`, list them with \`seat agents\`)
  --agent-path-any      use an agent found on PATH even when its version is not the one grok-seat tests
  --agent-command CMD   drive any ACP agent started by CMD (split like a shell would, never run by one)
  --worktree [NAME]     work in a git worktree of this repository on branch seat/NAME (default: the session
                        name, or run-<time>), kept under the seat home; each turn's changes are committed
                        there, never in your tree (review: seat diff / seat merge / seat discard). The word
                        after it is NAME unless it has a space (the prompt); an invalid NAME exits 2
  --base REF            with --worktree: branch from REF instead of HEAD
  --reuse               with --worktree: work on an existing seat/NAME branch
  --notify NAME         tell notification target NAME (the config's "notify" section; repeatable) when an
                        approval waits and when the turn ends; default: the config's "default" targets;
                        --notify none for none. On a terminal, the terminal rings too (BEL, OSC 9/777)

Defaults for --agent, --model, --policy and --prices can come from a config file (see \`seat config\`).
Exit codes: 0 ok, 1 failed, 2 usage, 3 agent unavailable, 4 not authenticated, 124 timeout,
130 interrupted, 141 stdout closed (the turn was cancelled); the README has the full table.

Examples:
  seat run "explain this repo"
  seat run --json --cwd ../service "list the TODOs" | jq -r 'select(.type=="text").text'
  seat run -s review "look at the last commit"      # a named session, continued next time
  git diff | seat run -f - --allow read              # the prompt from stdin
  seat run --agent codex --model gpt-5 "hello"
  seat run --worktree fix-1 --allow edit "fix the failing test"   # then: seat diff fix-1; seat merge fix-1`,
  async run(argv) {
    // Every flag is checked (exit 2) before any agent starts or any prompt is read.
    const request = await runRequestFrom(argv);
    const { json, name } = request;
    const palette = paletteFor(process.stderr);
    const output = createRunOutput(json, palette);
    // A person away from the terminal hears of a held approval and of the turn's end; on an interactive terminal
    // the terminal itself rings (BEL + OSC 9/777) unless --notify none. Delivery never holds up the turn.
    const ringTerminal = !json && process.stderr.isTTY === true && !request.notifyRequested.includes("none");
    const approver = !json && process.stdin.isTTY ? terminalApprover() : undefined;
    const { prepareSupervisedTurn } = await import("../../turn/index.js");
    // Set before the session starts, so the turn's end (an event) can tell it the turn is closing.
    let stops: Stops | undefined;
    // The session name, the worktree's name and repository are refused before stdin is read; nothing starts yet.
    const prepared = await prepareSupervisedTurn({
      ...request.turn,
      // A named session's approvals are named by openSession (named-session + its name), whoever opens it.
      approvals: {
        timeoutMs: request.approvalTimeoutMs,
        owner: { kind: "session" as const },
        ...(approver ? { local: approver } : {}),
      },
      callbacks: {
        onEvent: (event) => {
          if (endsTurn(event)) stops?.closing();
          return output.onEvent(event);
        },
      },
      ...(request.notifyTargets.length > 0 || ringTerminal
        ? { notify: { targets: request.notifyTargets, ...(ringTerminal ? { terminal: process.stderr } : {}) } }
        : {}),
      // A plain run says its worktree as soon as it is made, before the agent starts; a named run after its session
      // line (the session's worktree is taken once its lease is held, so --wait queues behind the holder).
      ...(name === undefined
        ? {
            onWorktree: (record) => {
              // The spinner's line is cleared first, so the worktree's line is never written into it.
              output.stopSpinner();
              reportRunWorktree(record, json, palette);
              output.startSpinner();
            },
          }
        : {}),
    });
    const prompt = await promptFrom("run", request.file, request.positionals, 'seat run "explain this repo"');
    output.startSpinner();
    let turn: SupervisedTurn | undefined;
    stops = watchStops(json, palette, output, () => turn);
    try {
      try {
        turn = await prepared.open();
      } finally {
        if (!turn) output.stopSpinner();
      }
      return await driveTurn(turn, prompt, json, palette, output, stops);
    } finally {
      stops.closing();
      output.stopSpinner();
      // The handlers stay until the agent is gone: a signal or a closed pipe during close must not end the
      // process before its agent (that would orphan it). After that a signal just ends the process (130).
      const closed = await turn?.close();
      stops.finished();
      if (closed) reportClosed(closed, json && !stops.pipeClosed(), json, palette);
    }
  },
};

/** Says the session and its worktree, replays what was held, sends the prompt; the run's exit code. */
async function driveTurn(
  turn: SupervisedTurn,
  prompt: string,
  json: boolean,
  palette: ReturnType<typeof paletteFor>,
  output: RunOutput,
  stops: Stops,
): Promise<number> {
  const held = output.started();
  if (turn.named) reportOpened(turn.named, json, palette);
  if (turn.named && turn.worktree) reportRunWorktree(turn.worktree, json, palette);
  if (!turn.ready) {
    output.stopSpinner();
    return reportStartFailure(held, json, palette);
  }
  for (const event of held) output.onEvent(event);
  if (stops.signal.aborted) return stops.stoppedCode();
  const result = await turn.send(prompt, { signal: stops.signal });
  output.stopSpinner();
  output.finish();
  if (stops.signal.aborted) return stops.stoppedCode();
  // A cancel from outside (seat cancel -s NAME) is an interruption; a cancel the seat made itself carries
  // its own code (a timeout, MODEL_UNREACHABLE, …) and exits with that code's status.
  const code = result.diagnostic?.code;
  if (result.stopReason === "cancelled" && (code === undefined || code === "ACP_STOP_REASON")) return EXIT.interrupted;
  if (code) return exitCodeFor(code);
  return EXIT.ok;
}

/** The agent's turn is over: its state left `working`/`waiting` (idle with its stop reason, failed, cancelled, …). */
function endsTurn(event: SeatEvent): boolean {
  return (
    event.type === "state" &&
    (event.previous === "working" || event.previous === "waiting") &&
    event.state !== "working" &&
    event.state !== "waiting"
  );
}

/** How a run is stopped from outside: its signal, and the exit code a stop means. */
interface Stops {
  signal: AbortSignal;
  stoppedCode(): number;
  pipeClosed(): boolean;
  /** The turn is over and closing (session, ledger, worktree, notifications): a first signal cancels nothing. */
  closing(): void;
  /** The agent is gone: a signal from now on just ends the process; the closed-pipe watch is released. */
  finished(): void;
}

/**
 * Ctrl-C, SIGTERM, SIGHUP and a closed stdout all end the turn as a cancel, from the first moment: before the
 * session exists the turn is never sent; during it, grok is asked to cancel and the turn is recorded so. A second
 * signal stops waiting and disposes at once (exit 130).
 */
function watchStops(
  json: boolean,
  palette: ReturnType<typeof paletteFor>,
  output: RunOutput,
  turnNow: () => SupervisedTurn | undefined,
): Stops {
  const stop = new AbortController();
  let signals = 0;
  let pipeClosed = false;
  let closing = false;
  let finished = false;
  const onSignal = () => {
    signals += 1;
    // Everything is already disposed: nothing to cancel, just stop.
    if (finished) process.exit(EXIT.interrupted);
    if (signals === 1) {
      // Once the agent's turn is over there is nothing left to cancel: the run is closing, says so, and its
      // answer stands (the stop is not raised, so the exit code is the turn's own).
      if (closing) {
        if (!json)
          process.stderr.write(palette.yellow("\n^C the turn is over; closing it… (Ctrl-C again to stop now)\n"));
        return;
      }
      if (!json) process.stderr.write(palette.yellow("\n^C cancelling the turn… (Ctrl-C again to stop now)\n"));
      stop.abort();
    } else {
      const turn = turnNow();
      void (turn ? turn.session.dispose() : Promise.resolve()).then(() => process.exit(EXIT.interrupted));
    }
  };
  const releasePipe = onStdoutClosed(() => {
    pipeClosed = true;
    output.stopSpinner();
    stop.abort();
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, onSignal);
  return {
    signal: stop.signal,
    stoppedCode: () => (pipeClosed ? EXIT.brokenPipe : EXIT.interrupted),
    pipeClosed: () => pipeClosed,
    closing() {
      closing = true;
    },
    finished() {
      finished = true;
      releasePipe();
    },
  };
}
