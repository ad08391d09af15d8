/*
 * `seat diff NAME [--stat]`: what a seat's worktree changed since it forked from your HEAD.
 */
import { SeatError } from "../../errors.js";
import { seatHome } from "../../home/index.js";
import { diffWorktree, findWorktree } from "../../worktrees/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT } from "../output.js";
import type { Command } from "./command.js";

export const diffCommand: Command = {
  name: "diff",
  help: `Usage: seat diff NAME [--stat] [--cwd DIR]

  The diff of branch seat/NAME against where it forked from your HEAD, then any uncommitted changes
  left in the seat's worktree.
  --stat      a diffstat instead of the patch
  --cwd DIR   a directory of the repository (default: current)

Examples:
  seat diff fix-1 --stat
  seat diff fix-1 | less`,
  async run(argv) {
    const args = parseFlags("diff", argv, { stat: { type: "boolean" }, cwd: { type: "string" } });
    if (args.positionals.length !== 1)
      throw new SeatError("CLI_USAGE", "seat diff: give exactly one worktree name. See `seat worktrees`.");
    const where = stringFlag(args, "cwd") ?? process.cwd();
    const record = await findWorktree(seatHome(), where, args.positionals[0]!);
    process.stdout.write(await diffWorktree(record, { stat: args.values.stat === true, from: where }));
    return EXIT.ok;
  },
};
