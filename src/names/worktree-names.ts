/*
 * Worktree names: what a seat worktree may be called, and the branch it lives on (`seat/<name>`).
 * Owns: the name rule and the default names of unnamed runs.
 * Does not own: asking git whether the ref is well formed (worktrees/create.ts runs `git check-ref-format` too).
 * Invariant: a valid name is one path segment and one ref component: no `/`, no `..`, no leading dot or
 *   dash, no `.lock` ending, so it can never point outside the seat home or outside `refs/heads/seat/`.
 */
import { randomBytes } from "node:crypto";
import { SeatError } from "../errors.js";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` is not a valid worktree name, or null when it is one. */
export function worktreeNameProblem(name: string): string | null {
  if (!NAME.test(name)) return "use 1–64 characters from A-Z a-z 0-9 . _ - starting with a letter or digit";
  if (name.includes("..")) return 'a name may not contain ".."';
  if (name.endsWith(".lock") || name.endsWith(".")) return 'a name may not end with ".lock" or "."';
  return null;
}

/** Throws WORKTREE_NAME_INVALID unless `name` is a valid worktree name. */
export function assertWorktreeName(name: string): string {
  const problem = worktreeNameProblem(name);
  if (problem)
    throw new SeatError("WORKTREE_NAME_INVALID", `"${name}" cannot name a worktree: ${problem}.`, {
      context: { name },
    });
  return name;
}

/** The branch of a seat worktree. */
export function branchOf(name: string): string {
  return `seat/${name}`;
}

/** A fresh name for a run that asked for a worktree without naming one: run-<UTC stamp>-<4 hex>. */
export function defaultWorktreeName(now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `run-${stamp}-${randomBytes(2).toString("hex")}`;
}
