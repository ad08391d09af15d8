/*
 * `seat discard NAME [--force]`: removes a seat's worktree, its branch seat/NAME and its record.
 */
import { SeatError } from "../../errors.js";
import { seatHome } from "../../home/index.js";
import { discardWorktree, findWorktree } from "../../worktrees/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const discardCommand: Command = {
  name: "discard",
  help: `Usage: seat discard NAME [--force] [--json]

  Removes the seat worktree NAME, its branch seat/NAME (merged or not) and its record. Refused while the
  worktree has uncommitted changes (WORKTREE_DIRTY) unless --force. For a worktree whose directory vanished,
  only its own entry is removed from git's list (never a prune of other worktrees).
  --force     throw uncommitted changes away too
  --cwd DIR   a directory of the repository (default: current)

Examples:
  seat discard fix-1
  seat discard fix-1 --force`,
  async run(argv) {
    const args = parseFlags("discard", argv, {
      force: { type: "boolean" },
      cwd: { type: "string" },
      json: { type: "boolean" },
    });
    if (args.positionals.length !== 1)
      throw new SeatError("CLI_USAGE", "seat discard: give exactly one worktree name. See `seat worktrees`.");
    const home = seatHome();
    const where = stringFlag(args, "cwd") ?? process.cwd();
    const record = await findWorktree(home, where, args.positionals[0]!);
    const result = await discardWorktree(home, record, { force: args.values.force === true, from: where });
    if (args.values.json === true) writeJson({ type: "discarded", ...result });
    else
      process.stdout.write(
        `${result.name}: worktree and ${result.branch} removed${result.pruned ? " (its directory was already gone; its entry removed)" : ""}\n`,
      );
    return EXIT.ok;
  },
};
