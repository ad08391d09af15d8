/*
 * Git: the one place grok-seat runs the `git` CLI.
 * Owns: spawning git (argv only, never a shell) with a minimal, explicit environment; the version floor;
 *   turning a failed git command into a SeatError carrying the command, exit code and stderr tail.
 * Does not own: what the commands mean (the other files of worktrees/).
 * Invariant: git never inherits GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE or any other variable from our
 *   environment: what it sees is PATH, HOME, LC_ALL=C, no prompts, and what the caller names.
 */
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { SeatError } from "../errors.js";

/** The oldest git we drive: `git merge-tree --write-tree` (2.38) checks a merge without touching any tree. */
export const GIT_MIN_VERSION = "2.38.0";

const STDERR_TAIL_CHARS = 2000;

/** What a git command printed and how it ended. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of one git command. */
export interface GitOptions {
  /** Working directory of git (a worktree or the repository). */
  cwd: string;
  /** Extra environment entries (an author identity, GIT_OPTIONAL_LOCKS); nothing else is inherited. */
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`); default only 0. */
  okCodes?: number[];
}

/** The identity the seat commits with, so a commit works on a machine with no git config. */
export const SEAT_IDENTITY: Record<string, string> = {
  GIT_AUTHOR_NAME: "grok-seat",
  GIT_AUTHOR_EMAIL: "grok-seat@localhost",
  GIT_COMMITTER_NAME: "grok-seat",
  GIT_COMMITTER_EMAIL: "grok-seat@localhost",
};

/** Read-only commands pass this so `git status` never rewrites the user's index to refresh stat data. */
export const NO_OPTIONAL_LOCKS: Record<string, string> = { GIT_OPTIONAL_LOCKS: "0" };

/** The environment git runs with: PATH, HOME, C locale, no terminal prompts, plus `extra`. */
export function gitEnv(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  return {
    PATH: from.PATH ?? "/usr/bin:/bin",
    ...(from.HOME ? { HOME: from.HOME } : {}),
    LC_ALL: "C",
    GIT_TERMINAL_PROMPT: "0",
    ...extra,
  };
}

/** Runs `git <args>`; resolves on an ok exit code, throws WORKTREE_GIT_FAILED (or WORKTREE_GIT_MISSING) otherwise. */
export async function git(args: string[], options: GitOptions): Promise<GitResult> {
  const result = await spawnGit(args, options);
  if (!(options.okCodes ?? [0]).includes(result.code)) throw gitFailure(args, options.cwd, result);
  return result;
}

/** Runs `git <args>` and resolves whatever it exits with (only a missing binary throws). */
export function spawnGit(args: string[], options: GitOptions): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, { cwd: options.cwd, env: gitEnv(options.env), stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" && !cwdMissing(options.cwd)) {
        reject(
          new SeatError(
            "WORKTREE_GIT_MISSING",
            `git was not found on PATH; worktrees need git ${GIT_MIN_VERSION} or newer. Install git and retry.`,
            { context: { command: `git ${args.join(" ")}`, needed: GIT_MIN_VERSION }, cause: error },
          ),
        );
      } else {
        reject(
          new SeatError(
            "WORKTREE_GIT_FAILED",
            `git ${args.join(" ")} could not start in ${options.cwd}: ${error.message}.`,
            { context: { command: `git ${args.join(" ")}`, cwd: options.cwd }, cause: error },
          ),
        );
      }
    });
    child.on("close", (code, signal) =>
      resolve({
        code: code ?? (signal ? 128 : 1),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

// spawn reports a missing cwd as ENOENT too; only a present cwd makes ENOENT mean "no git binary".
function cwdMissing(cwd: string): boolean {
  try {
    return !statSync(cwd).isDirectory();
  } catch {
    return true;
  }
}

/** The SeatError for a git command that exited badly: command, exit code and stderr tail. */
export function gitFailure(args: string[], cwd: string, result: GitResult): SeatError {
  const stderrTail = result.stderr.trim().slice(-STDERR_TAIL_CHARS);
  const command = `git ${args.join(" ")}`;
  return new SeatError(
    "WORKTREE_GIT_FAILED",
    `${command} exited ${result.code} in ${cwd}: ${stderrTail.split("\n").pop() || "no output"}.`,
    {
      context: { command, cwd, exitCode: result.code, stderrTail },
    },
  );
}

/** Parses `git version 2.39.5` (and vendor suffixes) into [major, minor, patch]; undefined when unreadable. */
export function parseGitVersion(text: string): [number, number, number] | undefined {
  const match = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : undefined;
}

/** True when `version` is at least GIT_MIN_VERSION. */
export function isGitRecentEnough(version: [number, number, number]): boolean {
  const floor = GIT_MIN_VERSION.split(".").map(Number);
  for (let i = 0; i < 3; i += 1) {
    if (version[i]! !== floor[i]!) return version[i]! > floor[i]!;
  }
  return true;
}

let checked: Promise<string> | undefined;

/** Checks once per process that git exists and is recent enough; resolves its version text. */
export function requireGit(cwd: string): Promise<string> {
  checked ??= (async () => {
    const result = await git(["version"], { cwd });
    const version = parseGitVersion(result.stdout);
    if (!version || !isGitRecentEnough(version)) {
      throw new SeatError(
        "WORKTREE_GIT_MISSING",
        `${result.stdout.trim() || "git printed no version"}: worktrees need git ${GIT_MIN_VERSION} or newer. Upgrade git and retry.`,
        {
          context: { command: "git version", found: result.stdout.trim(), needed: GIT_MIN_VERSION },
        },
      );
    }
    return result.stdout.trim();
  })();
  checked.catch(() => (checked = undefined));
  return checked;
}
