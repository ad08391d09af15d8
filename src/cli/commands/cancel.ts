/*
 * `seat cancel -s NAME`: cancel the turn a named session is running, from another shell.
 * Owns: the flags and the printed result. Does not own: proving the holder or the socket (sessions/manage.ts).
 */
import { SeatError } from "../../errors.js";
import { cancelNamed, lookup, openStore } from "../../sessions/index.js";
import { seatHome } from "../../home/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const cancelCommand: Command = {
  name: "cancel",
  help: `Usage: seat cancel -s NAME [--global] [--cwd DIR] [--json]

  Sends cancel to the process running the session's turn, through its control socket (a 0700
  directory in the seat home, or a short private one under TMPDIR when the home is too long for a
  socket path), after proving that process holds the lease and the socket. Only reads the journal:
  it answers while another process writes to it.
  Exit 0 when the cancel was delivered; SESSION_IDLE (exit 1) when no turn runs.

Examples:
  seat cancel -s review
  seat cancel -s nightly --global --json`,
  async run(argv) {
    const args = parseFlags("cancel", argv, {
      session: { type: "string", short: "s" },
      global: { type: "boolean" },
      cwd: { type: "string" },
      json: { type: "boolean" },
    });
    const name = stringFlag(args, "session");
    if (name === undefined || args.positionals.length > 0)
      throw new SeatError("CLI_USAGE", "seat cancel: give the session with -s NAME (and nothing else).");
    const store = openStore(seatHome());
    try {
      const record = lookup(store, name, {
        cwd: stringFlag(args, "cwd") ?? process.cwd(),
        global: args.values.global === true,
      });
      const { holderPid } = await cancelNamed(store, record);
      if (args.values.json) writeJson({ type: "cancelled", name, holderPid });
      else process.stdout.write(`${name}: cancel sent to pid ${holderPid}\n`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};
