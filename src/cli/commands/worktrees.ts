/*
 * `seat worktrees [--json]`: this repository's seat worktrees — branch, ahead/behind your HEAD, dirty or
 *   missing, and who uses them.
 */
import { seatHome } from "../../home/index.js";
import { listWorktrees, type WorktreeStatus } from "../../worktrees/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

function line(w: WorktreeStatus): string {
  const clean = w.missing
    ? "missing (seat discard removes it)"
    : w.dirty.length > 0
      ? `dirty (${w.dirty.length} uncommitted)`
      : "clean";
  const state = w.in_use
    ? `${clean}, in use by pid ${w.in_use.pid}`
    : w.interrupted
      ? `${clean}, interrupted (pid ${w.interrupted.pid} died mid-turn)`
      : clean;
  return `${w.name.padEnd(20)} ${w.branch.padEnd(26)} +${w.ahead} -${w.behind}  ${state.padEnd(20)} ${w.owner}  ${w.path}`;
}

export const worktreesCommand: Command = {
  name: "worktrees",
  help: `Usage: seat worktrees [--json] [--cwd DIR]

  Lists the seat worktrees of the repository you are in: name, branch, commits ahead (+) and behind (-)
  your HEAD, clean / dirty (uncommitted changes, e.g. after a crash mid-turn) / missing, the seat using it
  (session:NAME or run), and its directory.
  --cwd DIR   a directory of the repository (default: current)
  --json      one JSON object per worktree

Examples:
  seat worktrees
  seat worktrees --json | jq -r 'select(.dirty != []).name'`,
  async run(argv) {
    const args = parseFlags("worktrees", argv, { json: { type: "boolean" }, cwd: { type: "string" } });
    const all = await listWorktrees(seatHome(), stringFlag(args, "cwd") ?? process.cwd());
    if (args.values.json === true) for (const w of all) writeJson({ type: "worktree", ...w });
    else
      process.stdout.write(
        all.length === 0
          ? "no seat worktrees in this repository (make one with seat run --worktree …)\n"
          : `${all.map(line).join("\n")}\n`,
      );
    return EXIT.ok;
  },
};
