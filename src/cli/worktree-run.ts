/*
 * `seat run --worktree [NAME]`: the run's side of seat worktrees — the optional flag value, making or finding
 *   the worktree before the session starts, and the turn's commit after it ends; and the same flags' plan for
 *   `seat hire --visible --worktree` (planSeatWorktree).
 * Owns: worktreeArgv, planRunWorktree (its take()), finishRunWorktree and their output lines.
 * Does not own: git or the records (worktrees/), the named session's lease (sessions/).
 * Invariant: every usage error is thrown before stdin is read; a named run touches its worktree only once it
 *   holds the session's lease; the worktree exists (or a coded error was thrown) before any agent starts; its
 *   commit happens after the session is disposed, so no agent process writes while it is taken.
 */
import { SeatError } from "../errors.js";
// names.ts alone at load; the rest of worktrees/ (git, records, locks) loads only when a run involves a worktree,
// so a plain `seat run` does not pay for it.
import { assertWorktreeName, defaultWorktreeName, worktreeNameProblem } from "../worktrees/names.js";
import type { WorktreeLock, WorktreeRecord } from "../worktrees/index.js";
import { rewriteFlag, stringFlag, type ParsedArgs } from "./args.js";
import { writeJson, type Palette } from "./output.js";

/**
 * Gives `--worktree` an optional value: `--worktree NAME` becomes `--worktree=NAME`; a bare `--worktree` (last, or
 * before a flag or `--`) and one followed by text with whitespace (a prompt: a name has none) become `--worktree=`
 * (a default name). Any other word right after it must be a valid name: WORKTREE_NAME_INVALID otherwise, never
 * prompt text with a generated worktree (`--worktree ../x` is refused, as `--worktree=../x` is).
 */
export function worktreeArgv(argv: string[]): string[] {
  return rewriteFlag(argv, ["--worktree"], (_flag, next) => {
    if (next === undefined || next === "" || next.startsWith("-") || /\s/.test(next)) return { value: "", consumesNext: false };
    const problem = worktreeNameProblem(next);
    if (problem === null) return { value: next, consumesNext: true };
    throw new SeatError("WORKTREE_NAME_INVALID", `"${next}" right after --worktree cannot name a worktree: ${problem}. Write --worktree=NAME with a valid name, or, for a generated name, put the prompt before --worktree or after "--".`, { context: { name: next } });
  });
}

/** The flags `seat run` adds for worktrees (merged into its parseArgs spec). */
export const WORKTREE_FLAGS = {
  worktree: { type: "string" },
  base: { type: "string" },
  reuse: { type: "boolean" },
} as const;

/** The worktree a run works in, locked for this process until release(). */
export interface RunWorktree {
  record: WorktreeRecord;
  lock: WorktreeLock;
}

/**
 * Where a run will work, decided before anything starts or any prompt is read; `take()` then makes (or reuses)
 * the worktree and locks it. A named run takes it only once it holds the session's lease, so a run that queues
 * with --wait queues behind the session's holder instead of failing on the worktree that holder is using.
 */
export interface RunWorktreePlan {
  /** The worktree's directory: the agent's cwd (and a named session's scope). */
  path: string;
  /** Makes or reuses the worktree and locks it for this process (WORKTREE_BUSY while another seat works in it). */
  take(): Promise<RunWorktree>;
}

/**
 * Plans the worktree a run works in, changing nothing: with --worktree, the named (or default) worktree of the
 * repository containing `cwd`; for a named session without the flag, the worktree it made on an earlier turn (so
 * a named session keeps its tree); else none. The usage errors come from here, before stdin is read: CLI_USAGE
 * (--base or --reuse without --worktree), WORKTREE_NAME_INVALID, WORKTREE_NOT_A_REPO, WORKTREE_GIT_MISSING.
 */
export async function planRunWorktree(args: ParsedArgs, session: string | undefined, cwd: string): Promise<RunWorktreePlan | undefined> {
  const owner = session === undefined ? "run" : `session:${session}`;
  const asked = stringFlag(args, "worktree");
  const base = stringFlag(args, "base");
  const reuse = args.values.reuse === true;
  if (asked === undefined) {
    if (base !== undefined || reuse) throw new SeatError("CLI_USAGE", "seat run: --base and --reuse only apply with --worktree.");
    if (session === undefined) return undefined;
    const record = await findSessionWorktree(session, cwd);
    return record ? { path: record.path, take: async () => locked(record, owner) } : undefined;
  }
  const name = assertWorktreeName(asked !== "" ? asked : (session ?? defaultWorktreeName()));
  const seatHomeDir = await home();
  const { createWorktree, resolveRepository, worktreePath } = await worktrees();
  const repo = await resolveRepository(cwd);
  return {
    path: worktreePath(seatHomeDir, repo.key, name),
    take: async () => locked((await createWorktree({ home: seatHomeDir, cwd, owner, reuse, name, ...(base ? { base } : {}) })).record, owner),
  };
}

/**
 * Plans a visible seat's worktree (`seat hire --visible --worktree [NAME]`, default name the seat id), changing
 * nothing: the same usage errors as a run's, before anything launches; `make()` creates (or reuses) it for the
 * seat, whose controller then locks it.
 */
export async function planSeatWorktree(args: ParsedArgs, seatId: string, cwd: string): Promise<{ path: string; make(): Promise<WorktreeRecord> } | undefined> {
  const asked = stringFlag(args, "worktree");
  const base = stringFlag(args, "base");
  const reuse = args.values.reuse === true;
  if (asked === undefined) {
    if (base !== undefined || reuse) throw new SeatError("CLI_USAGE", "seat hire: --base and --reuse only apply with --worktree.");
    return undefined;
  }
  const name = assertWorktreeName(asked !== "" ? asked : seatId);
  const seatHomeDir = await home();
  const { createWorktree, resolveRepository, worktreePath } = await worktrees();
  const repo = await resolveRepository(cwd);
  return {
    path: worktreePath(seatHomeDir, repo.key, name),
    make: async () => (await createWorktree({ home: seatHomeDir, cwd, owner: `seat:${seatId}`, reuse, name, ...(base ? { base } : {}) })).record,
  };
}

async function locked(record: WorktreeRecord, owner: string): Promise<RunWorktree> {
  const { lockWorktree } = await worktrees();
  const lock = lockWorktree(await home(), record, owner);
  process.once("exit", () => lock.release());
  return { record, lock };
}

function worktrees(): Promise<typeof import("../worktrees/index.js")> {
  return import("../worktrees/index.js");
}

// The seat home comes from seat/ only when a worktree is involved: a plain run never loads the visible seat.
async function home(): Promise<string> {
  return (await import("../seat/index.js")).seatHome();
}

async function findSessionWorktree(session: string, cwd: string): Promise<WorktreeRecord | undefined> {
  const { listRecords, resolveRepository } = await worktrees();
  let key: string;
  try {
    key = (await resolveRepository(cwd)).key;
  } catch {
    return undefined; // not a repository (or no git): a named session without worktrees, as before
  }
  return listRecords(await home(), key).find((r) => r.owner === `session:${session}`);
}

/** Says where the run works (before the turn). */
export function reportRunWorktree(record: WorktreeRecord, json: boolean, palette: Palette): void {
  if (json) writeJson({ type: "worktree", name: record.name, branch: record.branch, path: record.path, base_commit: record.base_commit });
  else process.stderr.write(`${palette.dim(`▸ worktree ${record.name}: ${record.branch} at ${record.path}`)}\n`);
}

/** Commits the turn on the worktree's branch and says so. */
export async function finishRunWorktree(record: WorktreeRecord, turn: { promptId: string; prompt: string }, json: boolean, palette: Palette): Promise<void> {
  const { commitTurn } = await worktrees();
  const result = await commitTurn(record, turn);
  if (json) writeJson({ type: "worktree_commit", name: record.name, branch: result.branch, commit: result.commit, head: result.head });
  else process.stderr.write(`${palette.dim(result.commit ? `▸ worktree ${record.name}: committed ${result.commit.slice(0, 12)} on ${result.branch} (review: seat diff ${record.name})` : `▸ worktree ${record.name}: no changes this turn`)}\n`);
}
