/*
 * A visible seat's worktree (`seat hire --visible --worktree`): the TUI's cwd is a seat worktree, locked by the
 *   seat's controller for as long as it runs, and its work committed on the seat's branch at release.
 * Owns: taking the lock for the controller, and the release commit (from the controller or an offline release).
 * Does not own: making the worktree (cli/ hire, worktrees/ createWorktree) or git (worktrees/).
 * Invariant: the seat commits only once its original TUI was observed to have exited: a person may type into
 *   the TUI at any moment, so no earlier moment is a turn boundary the seat owns; until then the changes stay
 *   uncommitted in the worktree (seat worktrees shows them dirty) and a later release commits them.
 */
import { messageOf } from "../errors.js";
import { commitTurn, lockWorktree, type WorktreeLock, type WorktreeRecord } from "../worktrees/index.js";

/** What release did with the seat's worktree. */
export interface SeatWorktreeRelease {
  name: string;
  branch: string;
  /** The commit made at release (null when nothing changed or nothing was committed). */
  commit: string | null;
  /** The branch head after release; null when nothing was committed. */
  head: string | null;
  /** Why nothing was committed, when that is so (the TUI still runs, or git failed). */
  uncommitted?: string;
}

/** Locks the seat's worktree for this (controller) process: WORKTREE_BUSY while another seat works in it. */
export function lockSeatWorktree(home: string, record: WorktreeRecord, seatId: string): WorktreeLock {
  const lock = lockWorktree(home, record, `seat:${seatId}`);
  process.once("exit", () => lock.release());
  return lock;
}

/**
 * Commits the seat's work on its branch (`seat: <seat id> work of the visible seat`) when its TUI was observed to
 * have exited; otherwise commits nothing and says why. A git failure is reported in `uncommitted`, never thrown:
 * the release itself already happened.
 */
export async function commitSeatWorktree(
  record: WorktreeRecord,
  seatId: string,
  tuiExit: "exited" | "running" | "unknown",
): Promise<SeatWorktreeRelease> {
  const base = { name: record.name, branch: record.branch };
  if (tuiExit !== "exited") {
    return {
      ...base,
      commit: null,
      head: null,
      uncommitted: `the TUI has not been observed to exit (${tuiExit}); its changes stay uncommitted in ${record.path} until a release after it exits`,
    };
  }
  try {
    const result = await commitTurn(record, { promptId: seatId, prompt: "work of the visible seat" });
    return { ...base, commit: result.commit, head: result.head };
  } catch (error) {
    return { ...base, commit: null, head: null, uncommitted: `the commit failed: ${messageOf(error)}` };
  }
}
