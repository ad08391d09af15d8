/*
 * `seat merge NAME [--squash|--ff-only|--rebase] [-m MSG] [--into DIR]`: brings a seat's branch into the branch
 *   checked out in the worktree where it runs (or --into DIR) — only when that tree is clean, and never half-way
 *   (a conflict, or a path git does not track in the way, changes nothing).
 */
import { SeatError } from "../../errors.js";
import { seatHome } from "../../home/index.js";
import { findWorktree, mergeWorktree, type MergeMode } from "../../worktrees/index.js";
import { directoryFlag, parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const mergeCommand: Command = {
  name: "merge",
  help: `Usage: seat merge NAME [--squash | --ff-only | --rebase] [-m MSG] [--into DIR] [--json]

  Merges branch seat/NAME into the branch checked out in the worktree you run it in (or --into DIR).
  Refused unless that tree has no uncommitted changes to tracked files. A conflict is found before your
  tree is touched: nothing changes and the error (WORKTREE_CONFLICT) names the files. A merge that would
  write over a file git does not track there (untracked or ignored, like .env) is refused the same way
  (WORKTREE_MERGE_WOULD_OVERWRITE, naming the paths).
  (default)   a merge: fast-forward when possible, else a merge commit
  --squash    one commit with all of the seat's changes
  --ff-only   fast-forward only
  --rebase    replay the seat's commits onto your HEAD (in the seat's worktree), then fast-forward
  -m MSG      the merge or squash commit message
  --into DIR  merge into the worktree containing DIR (default: the one containing --cwd or the current dir)
  --cwd DIR   a directory of the repository (default: current)

Examples:
  seat merge fix-1
  seat merge fix-1 --squash -m "fix the flaky test"
  seat merge fix-1 --rebase`,
  async run(argv) {
    const args = parseFlags("merge", argv, {
      squash: { type: "boolean" },
      "ff-only": { type: "boolean" },
      rebase: { type: "boolean" },
      message: { type: "string", short: "m" },
      into: { type: "string" },
      cwd: { type: "string" },
      json: { type: "boolean" },
    });
    if (args.positionals.length !== 1)
      throw new SeatError("CLI_USAGE", "seat merge: give exactly one worktree name. See `seat worktrees`.");
    const modes = (["squash", "ff-only", "rebase"] as const).filter((m) => args.values[m] === true);
    if (modes.length > 1)
      throw new SeatError(
        "CLI_USAGE",
        `seat merge: choose one of --squash, --ff-only, --rebase (got ${modes.map((m) => `--${m}`).join(" and ")}).`,
      );
    const mode: MergeMode = modes[0] ?? "merge";
    const home = seatHome();
    const where = stringFlag(args, "cwd") ?? process.cwd();
    const into = directoryFlag("merge", args, "into") ?? where;
    const record = await findWorktree(home, where, args.positionals[0]!);
    const message = stringFlag(args, "message");
    const result = await mergeWorktree(record, { mode, home, into, ...(message !== undefined ? { message } : {}) });
    if (args.values.json === true) writeJson({ type: "merged", name: record.name, branch: record.branch, ...result });
    else
      process.stdout.write(
        result.files.length === 0
          ? `${record.branch}: nothing to merge into ${result.into}\n`
          : `${record.branch} → ${result.into} (${mode}): ${result.files.length} file(s), now at ${result.head.slice(0, 12)}\n`,
      );
    return EXIT.ok;
  },
};
