/*
 * `seat merge NAME [--squash|--ff-only|--rebase] [-m MSG]`: brings a seat's branch into the branch checked
 *   out in your worktree — only when your tree is clean, and never half-way (a conflict changes nothing).
 */
import { SeatError } from "../../errors.js";
import { seatHome } from "../../seat/index.js";
import { findWorktree, mergeWorktree, type MergeMode } from "../../worktrees/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const mergeCommand: Command = {
  name: "merge",
  help: `Usage: seat merge NAME [--squash | --ff-only | --rebase] [-m MSG] [--json]

  Merges branch seat/NAME into the branch checked out in your worktree. Refused unless your tree has no
  uncommitted changes to tracked files. A conflict is found before your tree is touched: nothing changes
  and the error (WORKTREE_CONFLICT) names the files.
  (default)   a merge: fast-forward when possible, else a merge commit
  --squash    one commit with all of the seat's changes
  --ff-only   fast-forward only
  --rebase    replay the seat's commits onto your HEAD (in the seat's worktree), then fast-forward
  -m MSG      the merge or squash commit message
  --cwd DIR   a directory of the repository (default: current)

Examples:
  seat merge fix-1
  seat merge fix-1 --squash -m "fix the flaky test"
  seat merge fix-1 --rebase`,
  async run(argv) {
    const args = parseFlags("merge", argv, { squash: { type: "boolean" }, "ff-only": { type: "boolean" }, rebase: { type: "boolean" }, message: { type: "string", short: "m" }, cwd: { type: "string" }, json: { type: "boolean" } });
    if (args.positionals.length !== 1) throw new SeatError("CLI_USAGE", "seat merge: give exactly one worktree name. See `seat worktrees`.");
    const modes = (["squash", "ff-only", "rebase"] as const).filter((m) => args.values[m] === true);
    if (modes.length > 1) throw new SeatError("CLI_USAGE", `seat merge: choose one of --squash, --ff-only, --rebase (got ${modes.map((m) => `--${m}`).join(" and ")}).`);
    const mode: MergeMode = modes[0] ?? "merge";
    const home = seatHome();
    const record = await findWorktree(home, stringFlag(args, "cwd") ?? process.cwd(), args.positionals[0]!);
    const message = stringFlag(args, "message");
    const result = await mergeWorktree(record, { mode, home, ...(message !== undefined ? { message } : {}) });
    if (args.values.json === true) writeJson({ type: "merged", name: record.name, branch: record.branch, ...result });
    else process.stdout.write(result.files.length === 0 ? `${record.branch}: nothing to merge into ${result.into}\n` : `${record.branch} → ${result.into} (${mode}): ${result.files.length} file(s), now at ${result.head.slice(0, 12)}\n`);
    return EXIT.ok;
  },
};
