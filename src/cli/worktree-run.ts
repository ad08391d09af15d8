/*
 * `seat run --worktree [NAME]`: the run's flags for seat worktrees — the optional flag value, what the flags ask of
 *   the supervised turn (turn/, which plans, makes, locks and commits), and the line that says which worktree; and
 *   the same flags' plan for `seat hire --visible --worktree` (planSeatWorktree).
 * Owns: worktreeArgv, runWorktreeOption, reportRunWorktree.
 * Does not own: the worktree lifecycle (worktrees/turn.ts, turn/), git or the records (worktrees/), the named
 *   session's lease (sessions/).
 * Invariant: every usage error is thrown before stdin is read; a named run touches its worktree only once it
 *   holds the session's lease; the worktree exists (or a coded error was thrown) before any agent starts; its
 *   commit happens after the session is disposed, so no agent process writes while it is taken.
 */
import { SeatError } from "../errors.js";
// names.ts alone at load; the rest of worktrees/ (git, records, locks) loads only when a run involves a worktree,
// so a plain `seat run` does not pay for it.
import { assertWorktreeName, worktreeNameProblem } from "../names/index.js";
import type { WorktreeRecord } from "../worktrees/index.js";
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
    if (next === undefined || next === "" || next.startsWith("-") || /\s/.test(next))
      return { value: "", consumesNext: false };
    const problem = worktreeNameProblem(next);
    if (problem === null) return { value: next, consumesNext: true };
    throw new SeatError(
      "WORKTREE_NAME_INVALID",
      `"${next}" right after --worktree cannot name a worktree: ${problem}. Write --worktree=NAME with a valid name, or, for a generated name, put the prompt before --worktree or after "--".`,
      { context: { name: next } },
    );
  });
}

/** The flags `seat run` adds for worktrees (merged into its parseArgs spec). */
export const WORKTREE_FLAGS = {
  worktree: { type: "string" },
  base: { type: "string" },
  reuse: { type: "boolean" },
} as const;

/**
 * What `seat run --worktree` asks of the supervised turn: the flags' worktree (CLI_USAGE for
 * --base or --reuse without it; the name's own error before anything loads), or none.
 */
export function runWorktreeOption(args: ParsedArgs): { name: string; base?: string; reuse?: boolean } | undefined {
  const asked = stringFlag(args, "worktree");
  const base = stringFlag(args, "base");
  const reuse = args.values.reuse === true;
  if (asked === undefined) {
    if (base !== undefined || reuse)
      throw new SeatError("CLI_USAGE", "seat run: --base and --reuse only apply with --worktree.");
    return undefined;
  }
  if (asked !== "") assertWorktreeName(asked);
  return { name: asked, ...(base !== undefined ? { base } : {}), ...(reuse ? { reuse } : {}) };
}

/**
 * Plans a visible seat's worktree (`seat hire --visible --worktree [NAME]`, default name the seat id), changing
 * nothing: the same usage errors as a run's, before anything launches; `make()` creates (or reuses) it for the
 * seat, whose controller then locks it.
 */
export async function planSeatWorktree(
  args: ParsedArgs,
  seatId: string,
  cwd: string,
): Promise<{ path: string; make(): Promise<WorktreeRecord> } | undefined> {
  const asked = stringFlag(args, "worktree");
  const base = stringFlag(args, "base");
  const reuse = args.values.reuse === true;
  if (asked === undefined) {
    if (base !== undefined || reuse)
      throw new SeatError("CLI_USAGE", "seat hire: --base and --reuse only apply with --worktree.");
    return undefined;
  }
  const name = assertWorktreeName(asked !== "" ? asked : seatId);
  const seatHomeDir = await home();
  const { createWorktree, resolveRepository, worktreePath } = await worktrees();
  const repo = await resolveRepository(cwd);
  return {
    path: worktreePath(seatHomeDir, repo.key, name),
    make: async () =>
      (
        await createWorktree({
          home: seatHomeDir,
          cwd,
          owner: `seat:${seatId}`,
          reuse,
          name,
          ...(base ? { base } : {}),
        })
      ).record,
  };
}

function worktrees(): Promise<typeof import("../worktrees/index.js")> {
  return import("../worktrees/index.js");
}

// The seat home comes from seat/ only when a worktree is involved: a plain run never loads the visible seat.
async function home(): Promise<string> {
  return (await import("../home/index.js")).seatHome();
}

/** Says where the run works (before the turn). */
export function reportRunWorktree(record: WorktreeRecord, json: boolean, palette: Palette): void {
  if (json)
    writeJson({
      type: "worktree",
      name: record.name,
      branch: record.branch,
      path: record.path,
      base_commit: record.base_commit,
    });
  else process.stderr.write(`${palette.dim(`▸ worktree ${record.name}: ${record.branch} at ${record.path}`)}\n`);
}
