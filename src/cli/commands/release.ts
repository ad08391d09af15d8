/*
 * `seat release <seat>`: close the seat's controller; its leader is stopped only after the original TUI
 * was observed to exit and the leader re-proved. Works offline (controller gone) from the journal. A seat hired
 * with --worktree has its work committed on its branch then (once its TUI is seen gone).
 */
import { SeatError } from "../../errors.js";
import { openJournal } from "../../journal/index.js";
import {
  callController,
  isControllerGone,
  offlineRelease,
  unwrapReply,
  type SeatWorktreeRelease,
} from "../../seat/index.js";
import { journalPath, seatDir, seatHome } from "../../home/index.js";
import { parseFlags } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const releaseCommand: Command = {
  name: "release",
  help: `Usage: seat release <seat> [--close-pane] [--json]

  --close-pane   close the seat's pane first (ends the TUI), then stop its proven leader
  --json         the release result as one JSON object

Examples:
  seat release s-1a2b
  seat release s-1a2b --close-pane --json`,
  async run(argv) {
    const args = parseFlags("release", argv, { "close-pane": { type: "boolean" }, json: { type: "boolean" } });
    const [seatId, ...extra] = args.positionals;
    if (!seatId || extra.length > 0)
      throw new SeatError("CLI_USAGE", "seat release: expected <seat>. See `seat release --help`.");
    const home = seatHome();
    const closePane = args.values["close-pane"] === true;
    let result: Record<string, unknown>;
    try {
      result = unwrapReply(await callController(seatDir(home, seatId), { op: "release", closePane }, 60_000))
        .release as Record<string, unknown>;
    } catch (error) {
      if (!isControllerGone(error)) throw error;
      const journal = openJournal(journalPath(home));
      try {
        result = { ...(await offlineRelease(journal, home, seatId, { closePane })) };
      } finally {
        journal.close();
      }
    }
    if (args.values.json) writeJson({ type: "release", ...result });
    else {
      process.stdout.write(`${seatId} released; ${String(result.reason)}\n`);
      // A seat hired with --worktree: what its worktree holds now, and the next step.
      const worktree = result.worktree as SeatWorktreeRelease | undefined;
      if (worktree)
        process.stdout.write(
          worktree.uncommitted
            ? `worktree ${worktree.name}: nothing committed (${worktree.uncommitted})\n`
            : `worktree ${worktree.name}: ${worktree.commit ? `committed ${worktree.commit.slice(0, 12)}` : "no changes"} on ${worktree.branch} (review: seat diff ${worktree.name})\n`,
        );
    }
    return EXIT.ok;
  },
};
