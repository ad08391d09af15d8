/*
 * Turn commits: at the end of a turn, what the agent changed in its worktree becomes one commit on its branch.
 * Owns: commitTurn and the commit message `seat: <prompt id> <first line of the prompt>`.
 * Does not own: the agent's own commits (kept as they are) or the user's tree (never touched here).
 * Invariant: git runs with cwd = the seat worktree, the seat's explicit identity and no hooks, so it works with
 *   no git config and nothing of the user's runs; a turn that changed nothing makes no commit.
 */
import { NO_HOOKS } from "./create.js";
import { SEAT_IDENTITY, git } from "./git.js";
import type { WorktreeRecord } from "./records.js";

/** What commitTurn did: the commit it made (null when the turn changed nothing) and the branch head after it. */
export interface TurnCommit {
  commit: string | null;
  head: string;
  branch: string;
}

/** The commit message of a turn: `seat: <prompt id> <first line of the prompt>` (the line cut at 72 chars). */
export function turnCommitMessage(promptId: string, prompt: string): string {
  const first = prompt.trim().split("\n")[0]!.trim();
  return `seat: ${promptId} ${first.length > 72 ? `${first.slice(0, 71)}…` : first}`.trim();
}

/** Commits everything the agent changed (tracked, new and deleted files; .gitignore honoured) on the seat's branch. */
export async function commitTurn(
  record: Pick<WorktreeRecord, "path" | "branch">,
  turn: { promptId: string; prompt: string },
): Promise<TurnCommit> {
  const cwd = record.path;
  await git(["add", "--all"], { cwd });
  const staged = await git(["diff", "--cached", "--quiet"], { cwd, okCodes: [0, 1] });
  let commit: string | null = null;
  if (staged.code === 1) {
    await git([...NO_HOOKS, "commit", "--quiet", "--no-verify", "-m", turnCommitMessage(turn.promptId, turn.prompt)], {
      cwd,
      env: SEAT_IDENTITY,
    });
    commit = (await git(["rev-parse", "HEAD"], { cwd })).stdout.trim();
  }
  const head = (await git(["rev-parse", "HEAD"], { cwd })).stdout.trim();
  return { commit, head, branch: record.branch };
}
