#!/usr/bin/env node
/*
 * `seat` entry point: picks the verb, runs it, and turns any failure into a message and a stable exit code.
 * Owns: the verb table lookup, top-level help (`seat help [VERB]`, `-V`), the config hand-off to a verb, and the
 *   last-resort handlers (an uncaught exception or rejection is one coded line, never a stack trace).
 * Does not own: any verb's behaviour (commands/), the exit-code table (output.ts), closed pipes (pipes.ts).
 */
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { EXIT, errorJson, exitCodeFor, redactWrites, writeJson } from "./output.js";
import { watchPipes } from "./pipes.js";
import { COMMANDS } from "./commands/index.js";
import { startCompileCache } from "./compile-cache.js";

const VERSION = "grok-seat 0.1.0";

const HELP = `seat — drive xAI's Grok Build CLI from an orchestrator

Usage: seat <command> [flags]
       seat help <command>     that command's flags and examples (also: seat <command> --help)
       seat -V, --version      print the version
       seat -h, --help         this text

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(11)} ${c.summary}`).join("\n")}

Defaults you set once (agent, model, policy, agentsDir, redis, prices) live in ~/.config/grok-seat/config.json
and a project's .grok-seat.json; \`seat config\` shows them. Exit codes are listed in the README.`;

/** Verbs whose flags or environment a config file can default. */
const CONFIG_VERBS = new Set(["notify", "run", "submit", "worker", "jobs", "agents", "probe", "usage", "sessions"]);

const json = process.argv.includes("--json");

/** Prints one failure: a coded line on stderr, or an `error` object with --json. Never a stack trace. */
function reportFailure(error: unknown): void {
  if (json) {
    writeJson(errorJson(error));
    return;
  }
  const message = isSeatError(error) ? error.message : `internal error: ${messageOf(error)} [INTERNAL]`;
  // Verb messages already say `seat run: …`; the prefix is added only when they do not.
  process.stderr.write(`${/^seat[\s:]/.test(message) ? message : `seat: ${message}`}\n`);
}

/** Last resort: whatever escaped a verb becomes one coded line and exit 1 (EPIPE is pipes.ts's business). */
function lastResort(error: unknown): void {
  try {
    reportFailure(error);
  } finally {
    process.exit(exitCodeFor(isSeatError(error) ? error.code : undefined));
  }
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === "--help" || verb === "-h") {
    process.stdout.write(`${HELP}\n`);
    return verb === undefined ? EXIT.usage : EXIT.ok;
  }
  if (verb === "--version" || verb === "-V") {
    process.stdout.write(`${VERSION}\n`);
    return EXIT.ok;
  }
  const names = COMMANDS.map((c) => c.name).join(", ");
  if (verb === "help") {
    const [topic, ...extra] = rest;
    if (topic === undefined) {
      process.stdout.write(`${HELP}\n`);
      return EXIT.ok;
    }
    const about = COMMANDS.find((c) => c.name === topic);
    if (!about || extra.length > 0)
      throw new SeatError("CLI_USAGE", `seat help: give one command, one of ${names}; got "${rest.join(" ")}".`);
    process.stdout.write(`${(await about.load()).help}\n`);
    return EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === verb);
  if (!entry)
    throw new SeatError("CLI_USAGE", `seat: unknown command "${verb}". Commands: ${names}. See \`seat --help\`.`);
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.help}\n`);
    return EXIT.ok;
  }
  if (!CONFIG_VERBS.has(verb)) return command.run(rest);
  // Loaded here, not at the top: `seat --help` and the verbs without config defaults do not read or parse it.
  const { applyConfigEnv, loadConfig, withConfigDefaults } = await import("./config.js");
  const config = loadConfig();
  applyConfigEnv(config);
  return command.run(withConfigDefaults(verb, rest, config));
}

// One redaction for everything this process prints. `seat mcp`'s stdout is the protocol: each message is
// redacted as a value before it is framed (mcp/results.ts), never as bytes after.
redactWrites(process.stderr);
if (process.argv[2] !== "mcp") redactWrites(process.stdout);
watchPipes(EXIT.brokenPipe);
// Before any verb loads its modules (they are imported on use): later runs read them compiled.
startCompileCache();
process.on("uncaughtException", lastResort);
process.on("unhandledRejection", lastResort);
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    reportFailure(error);
    process.exitCode = exitCodeFor(isSeatError(error) ? error.code : undefined);
  },
);
