/*
 * Overwrite check: the untracked and ignored paths of the user's tree that a merge would write over.
 * Owns: pathsMergeWouldOverwrite — from the tree a merge would produce, before anything is written.
 * Does not own: computing the merge (merge.ts, `git merge-tree --write-tree`).
 * Invariant: read-only. Git itself writes over ignored files by default (a `.env` the user keeps out of git is
 *   replaced by the seat's version, an ignored directory's files are deleted to make room for a file), and
 *   `--no-overwrite-ignore` is not honoured by every merge path; this check is what keeps them, so it looks at
 *   the disk itself rather than at git's idea of what is ignored.
 */
import { lstatSync, type Stats } from "node:fs";
import { join } from "node:path";
import { NO_OPTIONAL_LOCKS, git } from "./git.js";

const ABSENT_MODE = "000000";

/**
 * The paths of the worktree at `root` that moving its checkout from HEAD to `tree` would write over although git
 * does not track them there (untracked or ignored), sorted: a file (or symlink) where the merge adds a file, a file
 * where the merge needs a directory, and the untracked or ignored files inside a directory where the merge puts a
 * file. Assumes the tree has no changes to tracked files (merge checks that first).
 */
export async function pathsMergeWouldOverwrite(root: string, tree: string): Promise<string[]> {
  const diff = await git(["diff-tree", "-r", "-z", "--no-renames", "HEAD", tree, "--"], {
    cwd: root,
    env: NO_OPTIONAL_LOCKS,
  });
  const fields = diff.stdout.split("\0");
  const written: string[] = [];
  const added = new Set<string>();
  const removed = new Set<string>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode] = fields[i]!.replace(/^:/, "").split(" ");
    const path = fields[i + 1]!;
    if (newMode === ABSENT_MODE) removed.add(path);
    else {
      written.push(path);
      if (oldMode === ABSENT_MODE) added.add(path);
    }
  }
  const found = new Set<string>();
  const inDirectories: string[] = [];
  for (const path of written) {
    // A parent that is a file or symlink on disk but no tracked file of HEAD (those show as removed) is in the way.
    // A tracked file or symlink the merge removes to make a directory leaves nothing below it to check (an lstat
    // there would look through that symlink).
    const parts = path.split("/");
    let fresh = false;
    for (let depth = 1; depth < parts.length && !fresh; depth += 1) {
      const parent = parts.slice(0, depth).join("/");
      const stats = lstatOf(join(root, parent));
      if (stats === undefined) break;
      if (stats.isDirectory()) continue;
      if (removed.has(parent)) fresh = true;
      else found.add(parent);
    }
    if (fresh || !added.has(path)) continue;
    const stats = lstatOf(join(root, path));
    if (stats === undefined) continue;
    if (stats.isDirectory()) inDirectories.push(path);
    else found.add(path);
  }
  if (inDirectories.length > 0) {
    // Inside a directory the merge replaces with a file: every file git does not track (untracked or ignored:
    // `ls-files --others` without exclude rules lists both). Literal pathspecs: a name is never a glob.
    const others = await git(["--literal-pathspecs", "ls-files", "-z", "--others", "--", ...inDirectories], {
      cwd: root,
      env: NO_OPTIONAL_LOCKS,
    });
    for (const path of others.stdout.split("\0")) if (path !== "") found.add(path);
  }
  return [...found].sort();
}

// Absent is only "no such path"; anything else unreadable counts as there (the check errs towards refusing).
function lstatOf(path: string): Pick<Stats, "isDirectory"> | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? undefined : { isDirectory: () => false };
  }
}
