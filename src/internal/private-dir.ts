/*
 * Private directories: the one check that a directory is ours and private, and the only recursive removal.
 * Owns: privateDirProblem/isPrivateDir (lstat — a symlink is never followed — plain directory, mode 0700,
 *   owned by us) and removePrivateDir (rm -rf only after that check passes).
 * Does not own: where the directories live (seat/, identity/, skills/, sandbox/).
 * Invariant: nothing in grok-seat removes a directory tree that this check has not just proven ours.
 */
import { lstatSync, rmSync } from "node:fs";

/** Our uid (0 where the platform has none). */
export function ownUid(): number {
  return process.getuid?.() ?? 0;
}

/**
 * Why `path` is not a private directory of `uid` (a symlink, not a directory, another owner, a mode other
 * than 0700, or unreadable), or null when it is one. lstat only: a symlink is reported, never followed.
 */
export function privateDirProblem(path: string, uid = ownUid()): string | null {
  let stat;
  try {
    stat = lstatSync(path);
  } catch (error) {
    return `${path} cannot be examined (${(error as NodeJS.ErrnoException).code ?? "error"})`;
  }
  if (stat.isSymbolicLink()) return `${path} is a symlink`;
  if (!stat.isDirectory()) return `${path} is not a directory`;
  if (stat.uid !== uid) return `${path} is owned by uid ${stat.uid}, not ${uid}`;
  const mode = stat.mode & 0o777;
  if (mode !== 0o700) return `${path} has mode ${mode.toString(8).padStart(4, "0")}, not 0700`;
  return null;
}

/** True when `path` is a plain directory (not a symlink) of mode 0700 owned by `uid`. */
export function isPrivateDir(path: string, uid = ownUid()): boolean {
  return privateDirProblem(path, uid) === null;
}

/**
 * Removes `path` recursively only when it is proven a private directory of ours right now; returns
 * whether it was removed. A missing path is "nothing to remove" (false); anything else is left alone.
 */
export function removePrivateDir(path: string, options: { uid?: number; retries?: number } = {}): boolean {
  if (!isPrivateDir(path, options.uid ?? ownUid())) return false;
  rmSync(path, {
    recursive: true,
    force: true,
    ...(options.retries ? { maxRetries: options.retries, retryDelay: 100 } : {}),
  });
  return true;
}
