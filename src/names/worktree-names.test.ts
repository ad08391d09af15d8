import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { assertWorktreeName, defaultWorktreeName, worktreeNameProblem } from "./worktree-names.js";
import { gitEnv, isGitRecentEnough, parseGitVersion } from "../worktrees/git.js";
import { turnCommitMessage } from "../worktrees/commit.js";

test("worktree names are one safe path segment and ref component", () => {
  for (const good of ["fix-bug", "a", "v1.2_x", "Run42"]) assert.equal(worktreeNameProblem(good), null, good);
  for (const bad of [
    "",
    "..",
    "a..b",
    "../x",
    "a/b",
    "/abs",
    ".hidden",
    "-flag",
    "x.lock",
    "x.",
    "sp ace",
    "a\nb",
    "é",
    "x".repeat(65),
    "a~1",
    "a^",
    "a:b",
    "a@{1}",
  ]) {
    assert.notEqual(worktreeNameProblem(bad), null, JSON.stringify(bad));
    assert.throws(
      () => assertWorktreeName(bad),
      (e) => isSeatError(e, "WORKTREE_NAME_INVALID"),
    );
  }
  assert.equal(worktreeNameProblem(defaultWorktreeName(new Date("2026-12-01T20:50:40Z"))), null);
  assert.match(defaultWorktreeName(new Date("2026-12-01T20:50:40Z")), /^run-20261201-205040-[0-9a-f]{4}$/);
});

test("git versions are parsed and held against the 2.38 floor", () => {
  assert.deepEqual(parseGitVersion("git version 2.39.5\n"), [2, 39, 5]);
  assert.deepEqual(parseGitVersion("git version 2.37.1 (Apple Git-137.1)"), [2, 37, 1]);
  assert.deepEqual(parseGitVersion("git version 3.0"), [3, 0, 0]);
  assert.equal(parseGitVersion("hub version 2.14"), undefined);
  assert.equal(isGitRecentEnough([2, 38, 0]), true);
  assert.equal(isGitRecentEnough([2, 37, 9]), false);
  assert.equal(isGitRecentEnough([3, 0, 0]), true);
  assert.equal(isGitRecentEnough([1, 99, 0]), false);
});

test("git's environment is minimal: nothing like GIT_DIR or GIT_INDEX_FILE is inherited", () => {
  const env = gitEnv(
    { GIT_OPTIONAL_LOCKS: "0" },
    { PATH: "/bin", HOME: "/h", GIT_DIR: "/evil", GIT_WORK_TREE: "/w", GIT_INDEX_FILE: "/i", XAI_API_KEY: "secret" },
  );
  assert.deepEqual(env, { PATH: "/bin", HOME: "/h", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" });
});

test("a turn commit is named by its prompt id and the prompt's first line, cut at 72 characters", () => {
  assert.equal(turnCommitMessage("p-1", "  fix the bug\nand more\n"), "seat: p-1 fix the bug");
  assert.equal(turnCommitMessage("p-2", "x".repeat(100)), `seat: p-2 ${"x".repeat(71)}…`);
});
