/*
 * Git repositories for worktree tests: a real repository with real commits, and a snapshot of everything a
 * seat must never change in it (every file's bytes, the index, HEAD and the refs of its checked-out branch).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

const IDENTITY = {
  GIT_AUTHOR_NAME: "User",
  GIT_AUTHOR_EMAIL: "user@example.test",
  GIT_COMMITTER_NAME: "User",
  GIT_COMMITTER_EMAIL: "user@example.test",
};

/** Runs git in `cwd` as the user would (an identity, no global config); throws with stderr when it fails. */
export function gitIn(cwd: string, args: string[], extraEnv: Record<string, string> = {}): string {
  const result = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_OPTIONAL_LOCKS: "0",
      ...IDENTITY,
      ...extraEnv,
    },
  });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

/** Writes `files` (path → content) under `root`, creating directories. */
export function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

/** A fresh repository at `root` on branch main with `files` in one commit. */
export function makeRepo(root: string, files: Record<string, string>): void {
  mkdirSync(root, { recursive: true });
  gitIn(root, ["init", "--quiet", "--initial-branch=main"]);
  writeFiles(root, files);
  gitIn(root, ["add", "--all"]);
  gitIn(root, ["commit", "--quiet", "-m", "initial"]);
}

function walk(root: string, dir: string, out: Map<string, string>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== join(root, ".git")) walk(root, path, out);
    } else {
      out.set(relative(root, path), readFileSync(path).toString("base64"));
    }
  }
}

/** Everything a seat may not change in the user's tree: every work-tree file's bytes, the index, HEAD and status. */
export function snapshotUserTree(root: string): Record<string, unknown> {
  const files = new Map<string, string>();
  walk(root, root, files);
  // A linked worktree's `.git` is a file naming its own git dir, where its HEAD and index live.
  const gitDir = gitIn(root, ["rev-parse", "--absolute-git-dir"]).trim();
  const head = readFileSync(join(gitDir, "HEAD"), "utf8");
  return {
    files: Object.fromEntries([...files].sort()),
    index: readFileSync(join(gitDir, "index")).toString("base64"),
    head,
    headCommit: gitIn(root, ["rev-parse", "HEAD"]),
    lsFiles: gitIn(root, ["ls-files", "-s"]),
    status: gitIn(root, ["status", "--porcelain", "--untracked-files=all"]),
  };
}
