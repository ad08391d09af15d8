/*
 * `seat run --worktree [NAME]`: the run's side of seat worktrees — the optional flag value, making or finding
 *   the worktree before the session starts, and the turn's commit after it ends.
 * Owns: worktreeArgv, prepareRunWorktree, finishRunWorktree and their output lines.
 * Does not own: git or the records (worktrees/).
 * Invariant: the worktree exists (or a coded error was thrown) before any agent starts; its commit happens
 *   after the session is disposed, so no agent process writes while it is taken.
 */
import { SeatError } from "../errors.js";
// names.ts alone at load; the rest of worktrees/ (git, records, locks) loads only when a run involves a worktree,
// so a plain `seat run` does not pay for it (issue 15 §8, P9).
import { worktreeNameProblem } from "../worktrees/names.js";
import type { WorktreeLock, WorktreeRecord } from "../worktrees/index.js";
import { stringFlag, type ParsedArgs } from "./args.js";
import { writeJson, type Palette } from "./output.js";

/**
 * Gives `--worktree` an optional value: `--worktree NAME` (NAME a valid worktree name) becomes `--worktree=NAME`,
 * a bare `--worktree` becomes `--worktree=` (a default name). A prompt never looks like a name unless it is one
 * word; write `--worktree=NAME` to be explicit.
 */
export function worktreeArgv(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === "--") {
      out.push(...argv.slice(i));
      break;
    }
    if (arg !== "--worktree") out.push(arg);
    else if (argv[i + 1] !== undefined && worktreeNameProblem(argv[i + 1]!) === null) out.push(`--worktree=${argv[++i]}`);
    else out.push("--worktree=");
  }
  return out;
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
 * The worktree a run works in, locked for this process (WORKTREE_BUSY while another seat works in it): made (or
 * reused) with --worktree; for a named session without the flag, the worktree it made on an earlier turn (so a
 * named session keeps its tree); else none.
 */
export async function prepareRunWorktree(args: ParsedArgs, session: string | undefined, cwd: string): Promise<RunWorktree | undefined> {
  const record = await findRunWorktree(args, session, cwd);
  if (!record) return undefined;
  const owner = session === undefined ? "run" : `session:${session}`;
  const { lockWorktree } = await worktrees();
  const lock = lockWorktree(await home(), record, owner);
  process.once("exit", () => lock.release());
  return { record, lock };
}

async function findRunWorktree(args: ParsedArgs, session: string | undefined, cwd: string): Promise<WorktreeRecord | undefined> {
  const asked = stringFlag(args, "worktree");
  if (asked === undefined) {
    if (stringFlag(args, "base") !== undefined || args.values.reuse === true) throw new SeatError("CLI_USAGE", "seat run: --base and --reuse only apply with --worktree.");
    if (session === undefined) return undefined;
    return findSessionWorktree(session, cwd);
  }
  const owner = session === undefined ? "run" : `session:${session}`;
  const name = asked !== "" ? asked : session;
  const base = stringFlag(args, "base");
  const { createWorktree } = await worktrees();
  const { record } = await createWorktree({ home: await home(), cwd, owner, reuse: args.values.reuse === true, ...(name ? { name } : {}), ...(base ? { base } : {}) });
  return record;
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
