/*
 * P12 worktrees: what `createWorktree` costs over a bare `git worktree add` on a 10k-file repository (issue 18 §6).
 * Owns: benchWorktrees() and its section for BENCHMARKS.md.
 * Method: one repository of `files` small files in one commit; per round, in alternating order, (a) a bare
 *   `git worktree add -b <branch> <dir> HEAD` as a process and (b) createWorktree({ home, cwd, name }) (which also
 *   resolves the repository, checks the name with git, looks for the branch, resolves the base and writes the
 *   record), both timed by wall clock from start to resolve; each worktree is removed afterwards, untimed. One warm-up
 *   round of each is not counted (it pays the page cache and createWorktree's one-time git version check).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createWorktree } from "../src/worktrees/index.js";
import { fmt, median, ratio, table } from "./report.js";

/** The P12 result (medians in ms). */
export interface WorktreesBenchResult {
  files: number;
  rounds: number;
  bareMs: number;
  seatMs: number;
  /** seatMs / bareMs. */
  ratio: number;
  bareSamples: number[];
  seatSamples: number[];
}

function git(cwd: string, args: string[]): void {
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: cwd,
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@b",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@b",
  };
  const r = spawnSync("git", args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
}

/** Runs P12. */
export async function benchWorktrees(options: { files?: number; rounds?: number } = {}): Promise<WorktreesBenchResult> {
  const files = options.files ?? 10_000;
  const rounds = options.rounds ?? 7;
  const dir = mkdtempSync(join(tmpdir(), "gs-bench-worktrees-"));
  try {
    const repo = join(dir, "repo");
    for (let d = 0; d < Math.ceil(files / 100); d += 1) {
      mkdirSync(join(repo, `d${d}`), { recursive: true });
      for (let f = 0; f < 100 && d * 100 + f < files; f += 1)
        writeFileSync(join(repo, `d${d}`, `f${f}.txt`), `file ${d}/${f}\n`);
    }
    git(repo, ["init", "--quiet", "--initial-branch=main"]);
    git(repo, ["add", "--all"]);
    git(repo, ["commit", "--quiet", "-m", "10k files"]);
    const home = join(dir, "home");
    const bare = (i: number) => {
      const t0 = performance.now();
      git(repo, ["worktree", "add", "--quiet", "-b", `bare-${i}`, join(dir, "bare", `w${i}`), "HEAD"]);
      const ms = performance.now() - t0;
      git(repo, ["worktree", "remove", "--force", join(dir, "bare", `w${i}`)]);
      return ms;
    };
    const seat = async (i: number) => {
      const t0 = performance.now();
      const { record } = await createWorktree({ home, cwd: repo, name: `w${i}` });
      const ms = performance.now() - t0;
      git(repo, ["worktree", "remove", "--force", record.path]);
      return ms;
    };
    bare(-1);
    await seat(-1);
    const bareSamples: number[] = [];
    const seatSamples: number[] = [];
    for (let i = 0; i < rounds; i += 1) {
      if (i % 2 === 0) {
        bareSamples.push(bare(i));
        seatSamples.push(await seat(i));
      } else {
        seatSamples.push(await seat(i));
        bareSamples.push(bare(i));
      }
    }
    const bareMs = median(bareSamples);
    const seatMs = median(seatSamples);
    return { files, rounds, bareMs, seatMs, ratio: seatMs / bareMs, bareSamples, seatSamples };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The P12 section of BENCHMARKS.md. */
export function worktreesSection(r: WorktreesBenchResult): {
  title: string;
  body: string;
  goals: Array<{ goal: string; met: boolean | undefined; measured: string }>;
} {
  return {
    title: `P12 worktrees: createWorktree against a bare \`git worktree add\` on a ${r.files}-file repository (${r.rounds} rounds, medians)`,
    body: table(
      ["path", "p50 ms"],
      [
        ["`git worktree add -b B DIR HEAD` (one process)", fmt(r.bareMs, 1)],
        ["`createWorktree({ home, cwd, name })` (resolve, checks, add, record)", fmt(r.seatMs, 1)],
        ["ratio", ratio(r.ratio)],
      ],
    ),
    goals: [
      {
        goal: "worktree creation on a 10k-file repository ≤ 1.2× a bare `git worktree add`",
        met: r.ratio <= 1.2,
        measured: ratio(r.ratio),
      },
    ],
  };
}
