/*
 * `seat run "<prompt>"`: one headless turn, streamed — text to stdout, one line per tool call to stderr,
 *   or NDJSON events with --json.
 * Ctrl-C cancels the turn, waits for grok to end it, disposes the session (no orphans) and exits 130;
 *   a second Ctrl-C stops waiting and disposes at once.
 */
import { createInterface } from "node:readline/promises";
import type { SeatEvent } from "../../acp/index.js";
import { SeatError } from "../../errors.js";
import { createSession } from "../../runtime/index.js";
import { agentProfile, splitCommandLine } from "../../agents/index.js";
import { createPermissionGate, type Approver } from "../../permissions/index.js";
import { cliPolicy } from "../policy.js";
import { listFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { EXIT, createHumanPrinter, exitCodeFor, paletteFor, startSpinner, writeJson } from "../output.js";
import type { Command } from "./command.js";

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

export const runCommand: Command = {
  name: "run",
  summary: "run one prompt on a headless grok session and stream the answer",
  help: `Usage: seat run "<prompt>" [flags]

  --model ID            grok-cli/<id>, grok/<id> or a bare id (grok/default = grok's default)
  --cwd DIR             working directory of the session (default: current)
  --json                NDJSON events on stdout (text, thinking, tool_start, tool_end, plan, usage,
                        permission, diagnostic, done)
  --allow LIST          categories to allow: read,edit,execute,network,mcp,other
  --ask LIST            categories that need approval (asked on a TTY; denied otherwise)
  --block LIST          categories to refuse
  --policy FILE         a grok-seat.permissions.v1 JSON policy (flags override it)
  --unrestricted        allow sensitive categories unless --ask/--block name them
  --turn-timeout SECS   cancel the turn after SECS (default 900, 0 = off)
  --idle-timeout SECS   cancel when grok is silent for SECS (default 180, 0 = off)
  --grok PATH           grok binary to use
  --agent NAME          drive another ACP agent: codex, claude, opencode, gemini (default grok;
                        install them with \`npm run agents:install\`, list them with \`seat agents\`)
  --agent-command CMD   drive any ACP agent started by CMD (split like a shell would, never run by one)`,
  async run(argv) {
    const args = parseFlags("run", argv, {
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
      grok: { type: "string" },
      agent: { type: "string" },
      "agent-command": { type: "string" },
    });
    const prompt = args.positionals.join(" ").trim();
    if (prompt === "") throw new SeatError("CLI_USAGE", 'seat run: give the prompt as an argument, e.g. seat run "explain this repo".');
    const json = args.values.json === true;
    // An unknown agent or a bad --agent-command is a usage error before anything starts.
    if (stringFlag(args, "agent") !== undefined) agentProfile(stringFlag(args, "agent")!);
    if (stringFlag(args, "agent-command") !== undefined) splitCommandLine(stringFlag(args, "agent-command")!);
    const policy = await cliPolicy({
      ...(stringFlag(args, "policy") ? { file: stringFlag(args, "policy") } : {}),
      allow: listFlag(args, "allow"),
      ask: listFlag(args, "ask"),
      block: listFlag(args, "block"),
      unrestricted: args.values.unrestricted === true,
    });
    const approver = !json && process.stdin.isTTY ? terminalApprover() : undefined;
    const turnTimeoutMs = secondsFlag("run", args, "turn-timeout", DEFAULT_TURN_TIMEOUT_MS) || undefined;
    const idleTimeoutMs = secondsFlag("run", args, "idle-timeout", DEFAULT_IDLE_TIMEOUT_MS) || undefined;
    const palette = paletteFor(process.stderr);
    const spinner = json ? { stop() {} } : startSpinner(process.stderr, "grok is thinking…");
    const printer = createHumanPrinter(palette, () => spinner.stop());
    const onEvent = (event: SeatEvent) => {
      if (!json) return printer.onEvent(event);
      if (event.type !== "queue" && event.type !== "mcp_initialized" && event.type !== "prompt_complete" && event.type !== "user_text") writeJson(event);
    };
    const session = await createSession({
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
    });
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
      if (!json) printer.finish();
      if (interrupted > 0) return EXIT.interrupted;
      if (result.diagnostic) return exitCodeFor(result.diagnostic.code);
      return EXIT.ok;
    } finally {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigint);
      const { survivors } = await session.dispose();
      if (survivors.length > 0 && json) writeJson({ type: "diagnostic", diagnostic: { code: "GROK_DISPOSE_SURVIVORS", message: `survivors: ${survivors.join(",")}` } });
    }
  },
};
