/*
 * `seat attach <seat>`: look at the seat's pane (tmux attach / Herdr), or print how to.
 */
import { spawn } from "node:child_process";
import { SeatError } from "../../errors.js";
import { openJournal } from "../../journal/index.js";
import type { PaneDescriptor } from "../../mux/index.js";
import { backendFor } from "../../seat/index.js";
import { journalPath, seatHome } from "../../home/index.js";
import { parseFlags } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const attachCommand: Command = {
  name: "attach",
  help: `Usage: seat attach <seat> [--print] [--json]

  --print   print the attach command instead of running it (also when stdout is not a terminal)

Examples:
  seat attach s-1a2b
  seat attach s-1a2b --print`,
  async run(argv) {
    const args = parseFlags("attach", argv, { print: { type: "boolean" }, json: { type: "boolean" } });
    const [seatId] = args.positionals;
    if (!seatId) throw new SeatError("CLI_USAGE", "seat attach: expected <seat>.");
    const journal = openJournal(journalPath(seatHome()));
    let pane: PaneDescriptor | null;
    try {
      const seat = journal.getSeat(seatId);
      if (!seat)
        throw new SeatError("SEAT_NOT_FOUND", `No seat ${seatId}. List seats with \`seat status\`.`, {
          context: { seatId },
        });
      pane = seat.muxDescriptor as PaneDescriptor | null;
    } finally {
      journal.close();
    }
    if (!pane) throw new SeatError("SEAT_NOT_FOUND", `Seat ${seatId} never got a pane.`, { context: { seatId } });
    const command = backendFor(
      pane.backend,
      pane.backend === "herdr" ? { herdrSocket: pane.server! } : { tmuxSocket: pane.server! },
    ).attachCommand(pane);
    if (args.values.json) {
      writeJson({ type: "attach", seatId, command });
      return EXIT.ok;
    }
    if (args.values.print || !process.stdout.isTTY) {
      process.stdout.write(
        `${command.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`)).join(" ")}\n`,
      );
      return EXIT.ok;
    }
    return new Promise((resolve) => {
      const child = spawn(command[0]!, command.slice(1), { stdio: "inherit" });
      child.on("exit", (code) => resolve(code ?? EXIT.ok));
      child.on("error", () => resolve(EXIT.muxUnavailable));
    });
  },
};
