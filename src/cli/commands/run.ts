/*
 * `seat run "<prompt>"`: one headless turn, streamed — text to stdout, one line per tool call to stderr,
 *   or NDJSON events with --json.
 * Ctrl-C (or SIGTERM, SIGHUP) cancels the turn, waits for grok to end it, disposes the session (no orphans) and
 *   exits 130; a second one stops waiting and disposes at once. A closed stdout (`| head -1`) cancels the same
 *   way and exits 141. The prompt is an argument, or `-f FILE|-` (a file or stdin, any size).
 * A call the policy sends for approval is held (approvals/) until someone answers — the terminal (on a TTY) or
 *   `seat approve|deny` from another shell over this run's control socket, first answer wins — or its deadline
 *   denies it (APPROVAL_TIMEOUT). Every run, named or not, serves a control socket in a 0700 directory.
 */
import { createInterface } from "node:readline/promises";
import { resolve } from "node:path";
import type { SeatEvent, TurnResult, Usage } from "../../acp/index.js";
import { SeatError, messageOf } from "../../errors.js";
// Single files: the ledger (and its SQLite journal) loads only when the turn's usage is recorded.
import type { TurnBudget } from "../../usage/index.js";
import { computeCost, loadPrices } from "../../usage/prices.js";
import { createSession, type HeadlessSession } from "../../runtime/index.js";
import type { OpenedSession } from "../../sessions/index.js";
// Single files, not the front doors: a plain run loads neither the journal nor the visible seat.
import type { ControlServer } from "../../control/index.js";
import { planRunControl, startRunControl, type RunControlPlan } from "../../sessions/turn-control.js";
import { ensurePrivateDir, journalPath, seatHome } from "../../home/index.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS, describeRequest, visibleText } from "../../approvals/index.js";
import { agentProfile, splitCommandLine } from "../../agents/index.js";
import { createPermissionGate, type Approver } from "../../permissions/index.js";
import { policyFromArgs } from "../policy.js";
// The single file: the notification delivery (notifier, webhooks, terminal bell) and the approval links load only
// when a run uses them.
import { chooseTargets } from "../../notify/config.js";
import { loadNotifyConfig } from "../config.js";
import {
  countFlag,
  directoryFlag,
  listFlag,
  optionalNumberFlag,
  parseFlags,
  secondsFlag,
  stringFlag,
  type ParsedArgs,
} from "../args.js";
import { promptFrom } from "../prompt-input.js";
import { onStdoutClosed } from "../pipes.js";
import { DEFAULT_FAIL_FAST_RETRIES } from "../../health/index.js";
import { EXIT, createHumanPrinter, exitCodeFor, humanLine, paletteFor, startSpinner, writeJson } from "../output.js";
import type { Command } from "./command.js";
import {
  WORKTREE_FLAGS,
  finishRunWorktree,
  planRunWorktree,
  reportRunWorktree,
  worktreeArgv,
  type RunWorktree,
} from "../worktree-run.js";
import {
  BUDGET_FLAG_SPEC,
  BUDGET_HELP,
  budgetFromArgs,
  joinBudgetValues,
  parseMaxCost,
  parseMaxTokens,
} from "../budget-flags.js";

const DEFAULT_TURN_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 3 * 60_000;

/**
 * Asks the person at the terminal; only used when stdin is a TTY and output is not --json. It races the held
 * approval: when another shell answers first, the question is withdrawn and the terminal told so.
 */
function terminalApprover(): Approver {
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

/** The session budget the --session-max-* flags give, or undefined. */
function sessionBudgetFromArgs(args: ParsedArgs): TurnBudget | undefined {
  const tokens = stringFlag(args, "session-max-tokens");
  const cost = stringFlag(args, "session-max-cost");
  if (tokens === undefined && cost === undefined) return undefined;
  return {
    ...(tokens === undefined ? {} : { maxTokens: parseMaxTokens("run", tokens, "--session-max-tokens") }),
    ...(cost === undefined ? {} : { maxCostUsd: parseMaxCost("run", cost, "--session-max-cost") }),
  };
}

type Ledger = typeof import("../../usage/ledger.js");

/** Starts loading the ledger (and its journal) while the turn runs, so recording the usage does not wait for it. */
function loadLedger(): Promise<Ledger> {
  const loading = import("../../usage/ledger.js");
  loading.catch(() => undefined); // a failed load is reported where it is awaited (recordRunUsage)
  return loading;
}

/**
 * Adds a plain run's turn to the ledger in the seat home's journal; a failure is said, never fatal. The caller
 * starts it as the agent is being disposed, so loading the ledger and the durable write overlap grok's exit.
 */
async function recordRunUsage(
  ledger: Promise<Ledger>,
  result: TurnResult,
  agent: string,
  model: string | undefined,
  json: boolean,
): Promise<void> {
  try {
    const { ledgerEntriesOf, recordUsage } = await ledger;
    const home = seatHome();
    ensurePrivateDir(home);
    recordUsage(journalPath(home), ledgerEntriesOf(result, { source: "run", agent, ...(model ? { model } : {}) }));
  } catch (error) {
    const diagnostic = {
      code: "JOURNAL_WRITE_FAILED",
      message: `The turn's usage could not be added to the ledger: ${messageOf(error)}`,
    };
    if (json) writeJson({ type: "diagnostic", diagnostic });
    else process.stderr.write(`! ${diagnostic.message}\n`);
  }
}

/** Says which session a named run continued, and any turn a dead holder left interrupted (never re-sent). */
function reportOpened(
  opened: OpenedSession,
  name: string,
  json: boolean,
  palette: ReturnType<typeof paletteFor>,
): void {
  const interrupted = opened.interrupted.map((t) => t.promptId);
  if (json) {
    writeJson({
      type: "session",
      name,
      resumed: opened.resumed,
      agentSessionId: opened.session.id ?? null,
      interrupted,
    });
    return;
  }
  for (const promptId of interrupted)
    process.stderr.write(
      `${palette.yellow(`▸ session ${name}: the previous turn ${promptId} was interrupted (its process died); it was not re-sent`)}\n`,
    );
}

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
    const args = parseFlags(
      "run",
      worktreeArgv(joinBudgetValues(optionalNumberFlag("run", argv, "fail-fast", DEFAULT_FAIL_FAST_RETRIES))),
      {
        ...WORKTREE_FLAGS,
        file: { type: "string", short: "f" },
        model: { type: "string" },
        cwd: { type: "string" },
        json: { type: "boolean" },
        allow: { type: "string", multiple: true },
        ask: { type: "string", multiple: true },
        block: { type: "string", multiple: true },
        policy: { type: "string" },
        unrestricted: { type: "boolean" },
        "turn-timeout": { type: "string" },
        "idle-timeout": { type: "string" },
        "approval-timeout": { type: "string" },
        "fail-fast": { type: "string" },
        grok: { type: "string" },
        session: { type: "string", short: "s" },
        global: { type: "boolean" },
        wait: { type: "string" },
        agent: { type: "string" },
        "agent-command": { type: "string" },
        "agent-path-any": { type: "boolean" },
        ...BUDGET_FLAG_SPEC,
        prices: { type: "string" },
        "session-max-tokens": { type: "string" },
        "session-max-cost": { type: "string" },
        notify: { type: "string", multiple: true },
      },
    );
    const json = args.values.json === true;
    const name = stringFlag(args, "session");
    // Notification targets are checked with the other flags: an unknown --notify name is a usage error (exit 2).
    const notifyRequested = listFlag(args, "notify");
    const notifyTargets = chooseTargets(loadNotifyConfig(), notifyRequested);
    if (name === undefined && (args.values.global === true || stringFlag(args, "wait") !== undefined)) {
      throw new SeatError("CLI_USAGE", "seat run: --global and --wait only apply to a named session (-s NAME).");
    }
    // Everything a user can get wrong is refused (exit 2) before any agent starts or any prompt is read.
    // Named sessions (and the journal, leases, seat paths behind them) load only with -s.
    const sessions = name === undefined ? undefined : await import("../../sessions/index.js");
    if (sessions !== undefined && name !== undefined) {
      const assertSessionName: (value: unknown) => asserts value is string = sessions.assertSessionName;
      assertSessionName(name);
    }
    const cwd = directoryFlag("run", args, "cwd");
    const waitMs = secondsFlag("run", args, "wait", 0) ?? 0;
    // An unknown agent or a bad --agent-command is a usage error before anything starts.
    if (stringFlag(args, "agent") !== undefined) agentProfile(stringFlag(args, "agent")!);
    if (stringFlag(args, "agent-command") !== undefined) splitCommandLine(stringFlag(args, "agent-command")!);
    const turnTimeoutMs = secondsFlag("run", args, "turn-timeout", DEFAULT_TURN_TIMEOUT_MS) || undefined;
    const idleTimeoutMs = secondsFlag("run", args, "idle-timeout", DEFAULT_IDLE_TIMEOUT_MS) || undefined;
    const failFastAfterRetries = countFlag("run", args, "fail-fast");
    const { budget, allowUnmetered } = budgetFromArgs("run", args);
    const sessionBudget = sessionBudgetFromArgs(args);
    if (sessionBudget && name === undefined)
      throw new SeatError(
        "CLI_USAGE",
        "seat run: --session-max-tokens and --session-max-cost only apply to a named session (-s NAME).",
      );
    const prices = stringFlag(args, "prices") === undefined ? undefined : loadPrices(stringFlag(args, "prices")!);
    const model = stringFlag(args, "model");
    const policy = await policyFromArgs(args);
    const approvalTimeoutMs =
      secondsFlag("run", args, "approval-timeout", policy.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS) ??
      DEFAULT_APPROVAL_TIMEOUT_MS;
    if (approvalTimeoutMs <= 0)
      throw new SeatError(
        "CLI_USAGE",
        "seat run: --approval-timeout takes a number of seconds above 0 (a held approval always has a deadline).",
      );
    // Where a plain run's control socket goes (a named run's is openSession's). When no place fits, the run
    // still runs; its held approvals are then answerable only on its terminal or by their deadline.
    // Its held approvals leave a record, so an answer after this run ends hears APPROVAL_EXPIRED.
    const controlPlan: RunControlPlan | undefined = name === undefined ? planRunControl(seatHome()) : undefined;
    // The worktree's usage errors too (before stdin is read); it is made only later, and the agent's cwd is it.
    const worktreePlan = await planRunWorktree(args, name, cwd ?? process.cwd());
    const prompt = await promptFrom("run", stringFlag(args, "file"), args.positionals, 'seat run "explain this repo"');
    const approver = !json && process.stdin.isTTY ? terminalApprover() : undefined;
    const palette = paletteFor(process.stderr);
    // A plain run makes (or is refused) its worktree now, before any agent starts; a named run once it holds the
    // session's lease (openSession's beforeStart), so --wait queues behind the holder, and the session line stays
    // its first line.
    let worktree: RunWorktree | undefined = name === undefined ? await worktreePlan?.take() : undefined;
    if (worktree) reportRunWorktree(worktree.record, json, palette);
    const spinner = json ? { stop() {} } : startSpinner(process.stderr, "grok is thinking…");
    const printer = createHumanPrinter(palette, () => spinner.stop());
    // Diagnostics and state changes before the turn are held: a start failure is one {"type":"error"} (README),
    // not a diagnostic; once the session is up they are replayed in order.
    let starting = true;
    const held: SeatEvent[] = [];
    let turnDone = false;
    // A person away from the terminal hears of a held approval and of the turn's end; on an interactive terminal
    // the terminal itself rings (BEL + OSC 9/777) unless --notify none. Delivery never holds up the turn.
    const ringTerminal = !json && process.stderr.isTTY === true && !notifyRequested.includes("none");
    let sessionId: string | undefined;
    const notify = notifyTargets.length > 0 || ringTerminal ? await import("../../notify/index.js") : undefined;
    const links = notify === undefined ? undefined : await import("../../approvals/links.js");
    const notifier = notify?.createNotifier({
      targets: notifyTargets,
      ...(ringTerminal ? { terminal: process.stderr } : {}),
    });
    const notifyHook =
      notify === undefined || notifier === undefined
        ? undefined
        : notify.notifyFromEvents(notifier, {
            subject: () =>
              name !== undefined
                ? { kind: "named-session", name }
                : { kind: "run", id: sessionId ?? `pid-${process.pid}` },
            linkFor: (approval) => links?.approvalLinks(seatHome(), approval),
          });
    const onEvent = (event: SeatEvent) => {
      notifyHook?.(event);
      if (starting && (event.type === "diagnostic" || event.type === "state")) return void held.push(event);
      if (!json) return printer.onEvent(event);
      // `done` ends the stream: the session's own end at dispose (done/interrupted) is what the exit code says.
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
    const options = {
      ...(stringFlag(args, "model") ? { model: stringFlag(args, "model") } : {}),
      ...(worktreePlan ? { cwd: worktreePlan.path } : cwd ? { cwd } : {}),
      ...(stringFlag(args, "grok") ? { grokCliBinaryPath: stringFlag(args, "grok") } : {}),
      ...(stringFlag(args, "agent") ? { agent: stringFlag(args, "agent") } : {}),
      ...(stringFlag(args, "agent-command") !== undefined ? { agentCommand: stringFlag(args, "agent-command") } : {}),
      ...(args.values["agent-path-any"] === true ? { allowUntestedAgentVersion: true } : {}),
      permissions: createPermissionGate({ policy }),
      // A named session's approvals are named by openSession (named-session + its name), whoever opens it.
      approvals: {
        timeoutMs: approvalTimeoutMs,
        owner: { kind: "session" as const },
        ...(approver ? { local: approver } : {}),
      },
      callbacks: { onEvent },
      diagnosticsAsText: false,
      ...(turnTimeoutMs ? { turnTimeoutMs } : {}),
      ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
      ...(failFastAfterRetries ? { failFastAfterRetries } : {}),
      ...(budget ? { budget } : {}),
      ...(allowUnmetered ? { allowUnmetered } : {}),
      // With a price file, a cost budget is kept from the tokens grok reports per call (priced as the turn's model).
      ...(prices ? { costOf: (usage: Usage) => computeCost(prices, model, usage) } : {}),
    };
    // Ctrl-C, SIGTERM, SIGHUP and a closed stdout all end the turn as a cancel, from the first moment: before
    // the session exists the turn is never sent; during it, grok is asked to cancel and the turn is recorded so.
    const stop = new AbortController();
    let session: HeadlessSession | undefined;
    let signals = 0;
    let pipeClosed = false;
    let finished = false;
    const onSignal = () => {
      signals += 1;
      // Everything is already disposed: nothing to cancel, just stop.
      if (finished) process.exit(EXIT.interrupted);
      if (signals === 1) {
        if (!json) process.stderr.write(palette.yellow("\n^C cancelling the turn… (Ctrl-C again to stop now)\n"));
        stop.abort();
      } else {
        void (session ? session.dispose() : Promise.resolve()).then(() => process.exit(EXIT.interrupted));
      }
    };
    const releasePipe = onStdoutClosed(() => {
      pipeClosed = true;
      spinner.stop();
      stop.abort();
    });
    const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
    const stoppedCode = () => (pipeClosed ? EXIT.brokenPipe : EXIT.interrupted);
    let turn: { promptId: string; prompt: string } | undefined;
    let control: ControlServer | undefined;
    let usageWrite: Promise<void> | undefined;
    try {
      let opened: OpenedSession | undefined;
      try {
        opened =
          sessions === undefined || name === undefined
            ? undefined
            : await sessions.openSession({
                ...options,
                name,
                global: args.values.global === true,
                waitMs,
                ...(sessionBudget ? { sessionBudget } : {}),
                ...(worktreePlan ? { beforeStart: async () => void (worktree = await worktreePlan.take()) } : {}),
              });
      } finally {
        if (name !== undefined && !opened) spinner.stop();
      }
      session = opened?.session ?? (await createSession(options));
      sessionId = session.id;
      starting = false;
      if (opened) reportOpened(opened, name!, json, palette);
      if (opened && worktree) reportRunWorktree(worktree.record, json, palette);
      if (session.state !== "ready") {
        spinner.stop();
        return reportStartFailure(held, json, palette);
      }
      for (const event of held) onEvent(event);
      if (controlPlan) {
        // The typed state answer says what this is, so `seat ps` lists the run (kind run) apart from named sessions.
        // Without a socket the turn still runs; its held approvals are then answerable only here (a TTY) or by their deadline.
        const agent =
          stringFlag(args, "agent-command") !== undefined ? "custom" : (stringFlag(args, "agent") ?? "grok");
        control = await startRunControl(
          controlPlan,
          session,
          { kind: "run", agent, cwd: resolve(worktree?.record.path ?? cwd ?? process.cwd()) },
          (diagnostic) => onEvent({ type: "diagnostic", diagnostic }),
        );
      }
      if (stop.signal.aborted) return stoppedCode();
      const ledger = opened ? undefined : loadLedger();
      const result = await session.prompt(prompt, { signal: stop.signal });
      turn = { promptId: result.promptId, prompt };
      spinner.stop();
      // A named session's turn is in the ledger already (sessions/); a plain run's goes in here.
      if (ledger)
        usageWrite = recordRunUsage(
          ledger,
          result,
          stringFlag(args, "agent-command") !== undefined ? "custom" : (stringFlag(args, "agent") ?? "grok"),
          stringFlag(args, "model"),
          json,
        );
      if (!json) printer.finish();
      if (stop.signal.aborted) return stoppedCode();
      // A cancel from outside (seat cancel -s NAME) is an interruption; a cancel the seat made itself carries
      // its own code (a timeout, MODEL_UNREACHABLE, …) and exits with that code's status.
      const code = result.diagnostic?.code;
      if (result.stopReason === "cancelled" && (code === undefined || code === "ACP_STOP_REASON"))
        return EXIT.interrupted;
      if (code) return exitCodeFor(code);
      return EXIT.ok;
    } finally {
      spinner.stop();
      // The handlers stay until the agent is gone: a signal or a closed pipe during dispose must not end the
      // process before its agent (that would orphan it). After that a signal just ends the process (130).
      const survivors = session ? (await session.dispose()).survivors : [];
      finished = true;
      releasePipe();
      await usageWrite;
      await control?.close();
      // Bounded: a receiver that never answers costs at most NOTIFY_CLOSE_GRACE_MS after the turn.
      for (const outcome of (await notifier?.close(NOTIFY_CLOSE_GRACE_MS)) ?? []) {
        if (outcome.ok) continue;
        const diagnostic = {
          code: "NOTIFY_DELIVERY_FAILED" as const,
          message: `The notification to ${outcome.target} was not delivered (${outcome.detail ?? "no answer"}); the turn was not affected.`,
        };
        if (json && !pipeClosed) writeJson({ type: "diagnostic", diagnostic });
        else if (!json) process.stderr.write(`${humanLine({ type: "diagnostic", diagnostic }, palette)}\n`);
      }
      if (survivors.length > 0 && json)
        writeJson({
          type: "diagnostic",
          diagnostic: { code: "GROK_DISPOSE_SURVIVORS", message: `survivors: ${survivors.join(",")}` },
        });
      // After dispose: no agent process writes while the turn is committed. A turn that threw leaves its
      // changes uncommitted in the worktree (seat worktrees shows them dirty).
      try {
        if (worktree && turn) await finishRunWorktree(worktree, turn, json && !pipeClosed, palette);
      } finally {
        worktree?.lock.release();
      }
    }
  },
};

/** How long a run waits, after its turn, for notifications still being delivered (it exits within 5 s). */
const NOTIFY_CLOSE_GRACE_MS = 3_000;

/** A session that could not start: its earlier diagnostics as such, then the failure as an error; its exit code. */
function reportStartFailure(held: SeatEvent[], json: boolean, palette: ReturnType<typeof paletteFor>): number {
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
