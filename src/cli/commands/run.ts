/*
 * `seat run "<prompt>"`: one headless turn, streamed — text to stdout, one line per tool call to stderr,
 *   or NDJSON events with --json.
 * Ctrl-C cancels the turn, waits for grok to end it, disposes the session (no orphans) and exits 130;
 *   a second Ctrl-C stops waiting and disposes at once.
 */
import { createInterface } from "node:readline/promises";
import type { SeatEvent, TurnResult, Usage } from "../../acp/index.js";
import { SeatError, messageOf } from "../../errors.js";
import { computeCost, ledgerEntriesOf, loadPrices, parseMaxCost, parseMaxTokens, recordUsage, type TurnBudget } from "../../usage/index.js";
import { ensurePrivateDir, journalPath, seatHome } from "../../seat/index.js";
import { createSession } from "../../runtime/index.js";
import { openSession, type OpenedSession } from "../../sessions/index.js";
import { agentProfile, splitCommandLine } from "../../agents/index.js";
import { createPermissionGate, type Approver } from "../../permissions/index.js";
import { policyFromArgs } from "../policy.js";
import { countFlag, optionalNumberFlag, parseFlags, secondsFlag, stringFlag, type ParsedArgs } from "../args.js";
import { DEFAULT_FAIL_FAST_RETRIES } from "../../health/index.js";
import { EXIT, createHumanPrinter, exitCodeFor, paletteFor, startSpinner, writeJson } from "../output.js";
import type { Command } from "./command.js";
import { BUDGET_FLAG_SPEC, BUDGET_HELP, budgetFromArgs, joinBudgetValues } from "../budget-flags.js";

const DEFAULT_TURN_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 3 * 60_000;

/** Asks the person at the terminal; only used when stdin is a TTY and output is not --json. */
function terminalApprover(): Approver {
  return async (request) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const answer = await rl.question(`Allow ${request.category} — ${request.request.toolCall.title ?? "tool call"}? [y/N] `);
      return /^y(es)?$/i.test(answer.trim()) ? "allow" : "deny";
    } finally {
      rl.close();
    }
  };
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

/** Adds a plain run's turn to the ledger in the seat home's journal; a failure is said, never fatal. */
function recordRunUsage(result: TurnResult, agent: string, model: string | undefined, json: boolean): void {
  try {
    const home = seatHome();
    ensurePrivateDir(home);
    recordUsage(journalPath(home), ledgerEntriesOf(result, { source: "run", agent, ...(model ? { model } : {}) }));
  } catch (error) {
    const diagnostic = { code: "JOURNAL_WRITE_FAILED", message: `The turn's usage could not be added to the ledger: ${messageOf(error)}` };
    if (json) writeJson({ type: "diagnostic", diagnostic });
    else process.stderr.write(`! ${diagnostic.message}\n`);
  }
}

/** Says which session a named run continued, and any turn a dead holder left interrupted (never re-sent). */
function reportOpened(opened: OpenedSession, name: string, json: boolean, palette: ReturnType<typeof paletteFor>): void {
  const interrupted = opened.interrupted.map((t) => t.promptId);
  if (json) {
    writeJson({ type: "session", name, resumed: opened.resumed, agentSessionId: opened.session.id ?? null, interrupted });
    return;
  }
  for (const promptId of interrupted) process.stderr.write(`${palette.yellow(`▸ session ${name}: the previous turn ${promptId} was interrupted (its process died); it was not re-sent`)}\n`);
}

export const runCommand: Command = {
  name: "run",
  help: `Usage: seat run "<prompt>" [flags]

  -s, --session NAME    continue the named session (created on first use; per directory unless --global)
  --global              with -s: a name shared by every directory
  --wait SECS           with -s: queue behind a running turn for up to SECS (default: exit 75 at once)
  --model ID            grok-cli/<id>, grok/<id> or a bare id (grok/default = grok's default)
  --cwd DIR             working directory of the session (default: current)
  --json                NDJSON events on stdout (text, thinking, tool_start, tool_end, plan, usage,
                        permission, retry, model_catalog, diagnostic, done)
  --allow LIST          categories to allow: read,edit,execute,network,mcp,other
  --ask LIST            categories that need approval (asked on a TTY; denied otherwise)
  --block LIST          categories to refuse
  --policy FILE         a grok-seat.permissions.v1 JSON policy (flags override it)
  --unrestricted        allow sensitive categories unless --ask/--block name them
  --turn-timeout SECS   cancel the turn after SECS (default 900, 0 = off)
  --idle-timeout SECS   cancel when grok is silent for SECS (default 180, 0 = off)
  --fail-fast [N]       end the turn with MODEL_UNREACHABLE (exit 124) once grok has retried its model
                        request N times (default ${DEFAULT_FAIL_FAST_RETRIES}); grok's retries are shown either way
${BUDGET_HELP}
  --prices FILE         a grok-seat.prices.v1 price file: keeps --max-cost from reported tokens
  --session-max-tokens N, --session-max-cost USD
                        with -s: record a budget for the whole session; a turn is refused once it is spent
  --grok PATH           grok binary to use
  --agent NAME          drive another ACP agent: codex, claude, opencode, gemini (default grok;
                        install them with \`npm run agents:install\`, list them with \`seat agents\`)
  --agent-command CMD   drive any ACP agent started by CMD (split like a shell would, never run by one)`,
  async run(argv) {
    const args = parseFlags("run", joinBudgetValues(optionalNumberFlag(argv, "fail-fast", DEFAULT_FAIL_FAST_RETRIES)), {
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
      "fail-fast": { type: "string" },
      grok: { type: "string" },
      session: { type: "string", short: "s" },
      global: { type: "boolean" },
      wait: { type: "string" },
      agent: { type: "string" },
      "agent-command": { type: "string" },
      ...BUDGET_FLAG_SPEC,
      prices: { type: "string" },
      "session-max-tokens": { type: "string" },
      "session-max-cost": { type: "string" },
    });
    const prompt = args.positionals.join(" ").trim();
    if (prompt === "") throw new SeatError("CLI_USAGE", 'seat run: give the prompt as an argument, e.g. seat run "explain this repo".');
    const json = args.values.json === true;
    const name = stringFlag(args, "session");
    if (name === undefined && (args.values.global === true || stringFlag(args, "wait") !== undefined)) {
      throw new SeatError("CLI_USAGE", "seat run: --global and --wait only apply to a named session (-s NAME).");
    }
    const waitMs = secondsFlag("run", args, "wait", 0) ?? 0;
    // An unknown agent or a bad --agent-command is a usage error before anything starts.
    if (stringFlag(args, "agent") !== undefined) agentProfile(stringFlag(args, "agent")!);
    if (stringFlag(args, "agent-command") !== undefined) splitCommandLine(stringFlag(args, "agent-command")!);
    const { budget, allowUnmetered } = budgetFromArgs("run", args);
    const sessionBudget = sessionBudgetFromArgs(args);
    if (sessionBudget && name === undefined) throw new SeatError("CLI_USAGE", "seat run: --session-max-tokens and --session-max-cost only apply to a named session (-s NAME).");
    const prices = stringFlag(args, "prices") === undefined ? undefined : loadPrices(stringFlag(args, "prices")!);
    const model = stringFlag(args, "model");
    const policy = await policyFromArgs(args);
    const approver = !json && process.stdin.isTTY ? terminalApprover() : undefined;
    const turnTimeoutMs = secondsFlag("run", args, "turn-timeout", DEFAULT_TURN_TIMEOUT_MS) || undefined;
    const idleTimeoutMs = secondsFlag("run", args, "idle-timeout", DEFAULT_IDLE_TIMEOUT_MS) || undefined;
    const failFastAfterRetries = countFlag("run", args, "fail-fast");
    const palette = paletteFor(process.stderr);
    const spinner = json ? { stop() {} } : startSpinner(process.stderr, "grok is thinking…");
    const printer = createHumanPrinter(palette, () => spinner.stop());
    const onEvent = (event: SeatEvent) => {
      if (!json) return printer.onEvent(event);
      if (event.type !== "queue" && event.type !== "mcp_initialized" && event.type !== "prompt_complete" && event.type !== "user_text") writeJson(event);
    };
    const options = {
      ...(stringFlag(args, "model") ? { model: stringFlag(args, "model") } : {}),
      ...(stringFlag(args, "cwd") ? { cwd: stringFlag(args, "cwd") } : {}),
      ...(stringFlag(args, "grok") ? { grokCliBinaryPath: stringFlag(args, "grok") } : {}),
      ...(stringFlag(args, "agent") ? { agent: stringFlag(args, "agent") } : {}),
      ...(stringFlag(args, "agent-command") !== undefined ? { agentCommand: stringFlag(args, "agent-command") } : {}),
      permissions: createPermissionGate({ policy, ...(approver ? { approver } : {}) }),
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
    let opened: OpenedSession | undefined;
    try {
      opened = name === undefined ? undefined : await openSession({ ...options, name, global: args.values.global === true, waitMs, ...(sessionBudget ? { sessionBudget } : {}) });
    } finally {
      if (name !== undefined && !opened) spinner.stop();
    }
    const session = opened?.session ?? (await createSession(options));
    if (opened) reportOpened(opened, name!, json, palette);
    if (session.state !== "ready") {
      spinner.stop();
      return exitCodeFor(session.diagnostics[0]?.code);
    }
    let interrupted = 0;
    const onSigint = () => {
      interrupted += 1;
      if (interrupted === 1) {
        if (!json) process.stderr.write(palette.yellow("\n^C cancelling the turn… (Ctrl-C again to stop now)\n"));
        void session.cancel();
      } else {
        void session.dispose().then(() => process.exit(EXIT.interrupted));
      }
    };
    process.on("SIGINT", onSigint);
    process.on("SIGTERM", onSigint);
    try {
      const result = await session.prompt(prompt);
      spinner.stop();
      // A named session's turn is in the ledger already (sessions/); a plain run's goes in here.
      if (!opened) recordRunUsage(result, stringFlag(args, "agent-command") !== undefined ? "custom" : (stringFlag(args, "agent") ?? "grok"), stringFlag(args, "model"), json);
      if (!json) printer.finish();
      if (interrupted > 0) return EXIT.interrupted;
      // A cancel from outside (seat cancel -s NAME) is an interruption; a cancel the seat made itself carries
      // its own code (a timeout, MODEL_UNREACHABLE, …) and exits with that code's status.
      const code = result.diagnostic?.code;
      if (result.stopReason === "cancelled" && (code === undefined || code === "ACP_STOP_REASON")) return EXIT.interrupted;
      if (code) return exitCodeFor(code);
      return EXIT.ok;
    } finally {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
      const { survivors } = await session.dispose();
      if (survivors.length > 0 && json) writeJson({ type: "diagnostic", diagnostic: { code: "GROK_DISPOSE_SURVIVORS", message: `survivors: ${survivors.join(",")}` } });
    }
  },
};
