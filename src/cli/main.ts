#!/usr/bin/env node
/*
 * `seat` entry point: picks the verb, runs it, and turns any failure into a message and a stable exit code.
 * Owns: the verb table and top-level help.
 * Does not own: any verb's behaviour (commands/) or the exit-code table (output.ts).
 */
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { errorJson, exitCodeFor, writeJson } from "./output.js";
import { COMMANDS } from "./commands/index.js";

const HELP = `seat — drive xAI's Grok Build CLI from an orchestrator

Usage: seat <command> [flags]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(9)} ${c.summary}`).join("\n")}

Run \`seat <command> --help\` for its flags. Exit codes are listed in the README.`;

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === "--help" || verb === "-h" || verb === "help") {
    process.stdout.write(`${HELP}\n`);
    return verb === undefined ? 2 : 0;
  }
  if (verb === "--version") {
    process.stdout.write("grok-seat 0.1.0\n");
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === verb);
  if (!entry) throw new SeatError("CLI_USAGE", `seat: unknown command "${verb}". Commands: ${COMMANDS.map((c) => c.name).join(", ")}.`);
  const command = await entry.load();
  if (rest.includes("--help") || rest.includes("-h")) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  return command.run(rest);
}

const json = process.argv.includes("--json");
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (json) writeJson(errorJson(error));
    else process.stderr.write(`seat: ${isSeatError(error) ? error.message : messageOf(error)}\n`);
    process.exitCode = exitCodeFor(isSeatError(error) ? error.code : undefined);
  },
);
