/*
 * `seat run`'s flags: parsed and checked into what the supervised turn is asked to do.
 * Owns: RUN_FLAGS, runRequestFrom — every usage error (exit 2) before any agent starts or any prompt is read.
 * Does not own: the turn (turn/), printing it (run-output.ts), the verb's order of steps (commands/run.ts).
 */
import type { Usage } from "../acp/index.js";
import { SeatError } from "../errors.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../approvals/index.js";
import { agentProfile } from "../agents/index.js";
import { splitCommandLine } from "../command-line/index.js";
import { DEFAULT_FAIL_FAST_RETRIES } from "../health/index.js";
import { chooseTargets, type NotifyTarget } from "../notify-config/index.js";
import { createPermissionGate } from "../permissions/index.js";
import type { SupervisedTurnOptions } from "../turn/index.js";
// Single files: the ledger (and its SQLite journal) loads only when the turn's usage is recorded.
import { type TurnBudget, computeCost, loadPrices } from "../metering/index.js";
import {
  countFlag,
  directoryFlag,
  listFlag,
  optionalNumberFlag,
  parseFlags,
  secondsFlag,
  stringFlag,
  type ParsedArgs,
} from "./args.js";
import { BUDGET_FLAG_SPEC, budgetFromArgs, joinBudgetValues, parseMaxCost, parseMaxTokens } from "./budget-flags.js";
import { loadNotifyConfig } from "./config.js";
import { policyFromArgs } from "./policy.js";
import { WORKTREE_FLAGS, runWorktreeOption, worktreeArgv } from "./worktree-run.js";

const DEFAULT_TURN_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 3 * 60_000;

/** What a checked `seat run` asks for. */
export interface RunRequest {
  json: boolean;
  /** The named session (-s), checked. */
  name?: string;
  /** -f FILE|-, and the words that are the prompt otherwise. */
  file?: string;
  positionals: string[];
  /** --notify as given ("none" turns the terminal's bell off too), and the targets it chose. */
  notifyRequested: string[];
  notifyTargets: NotifyTarget[];
  approvalTimeoutMs: number;
  /** The supervised turn's options, but for what the terminal adds (callbacks, the approver, notify, onWorktree). */
  turn: SupervisedTurnOptions;
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

/** Parses and checks `seat run`'s argv; throws CLI_USAGE (or the flag's own code) for anything wrong. */
export async function runRequestFrom(argv: string[]): Promise<RunRequest> {
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
  // Named sessions (and the journal, leases, seat paths behind them) load only with -s; the name rule is names/.
  if (name !== undefined) {
    const names = await import("../names/index.js");
    const assertSessionName: (value: unknown) => asserts value is string = names.assertSessionName;
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
  const worktree = runWorktreeOption(args);
  const turn: SupervisedTurnOptions = {
    ...(model ? { model } : {}),
    ...(cwd ? { cwd } : {}),
    ...(stringFlag(args, "grok") ? { grokCliBinaryPath: stringFlag(args, "grok") } : {}),
    ...(stringFlag(args, "agent") ? { agent: stringFlag(args, "agent") } : {}),
    ...(stringFlag(args, "agent-command") !== undefined ? { agentCommand: stringFlag(args, "agent-command") } : {}),
    ...(args.values["agent-path-any"] === true ? { allowUntestedAgentVersion: true } : {}),
    permissions: createPermissionGate({ policy }),
    diagnosticsAsText: false,
    ...(turnTimeoutMs ? { turnTimeoutMs } : {}),
    ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
    ...(failFastAfterRetries ? { failFastAfterRetries } : {}),
    ...(budget ? { budget } : {}),
    ...(allowUnmetered ? { allowUnmetered } : {}),
    // With a price file, a cost budget is kept from the tokens grok reports per call (priced as the turn's model).
    ...(prices ? { costOf: (usage: Usage) => computeCost(prices, model, usage) } : {}),
    ...(name !== undefined
      ? {
          named: {
            name,
            ...(args.values.global === true ? { global: true } : {}),
            ...(waitMs ? { waitMs } : {}),
            ...(sessionBudget ? { sessionBudget } : {}),
          },
        }
      : {}),
    ...(worktree ? { worktree } : {}),
  };
  return {
    json,
    ...(name !== undefined ? { name } : {}),
    ...(stringFlag(args, "file") !== undefined ? { file: stringFlag(args, "file") } : {}),
    positionals: args.positionals,
    notifyRequested,
    notifyTargets,
    approvalTimeoutMs,
    turn,
  };
}
