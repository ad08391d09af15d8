import { test } from "node:test";
import assert from "node:assert/strict";
import { worktreeArgv } from "./worktree-run.js";

test("--worktree takes a following name only when it is a valid worktree name", () => {
  assert.deepEqual(worktreeArgv(["--worktree", "fix-1", "do it"]), ["--worktree=fix-1", "do it"]);
  assert.deepEqual(worktreeArgv(["--worktree", "do it now"]), ["--worktree=", "do it now"]);
  assert.deepEqual(worktreeArgv(["--worktree", "--json", "x"]), ["--worktree=", "--json", "x"]);
  assert.deepEqual(worktreeArgv(["x", "--worktree"]), ["x", "--worktree="]);
  assert.deepEqual(worktreeArgv(["--worktree=a/b", "x"]), ["--worktree=a/b", "x"]);
  assert.deepEqual(worktreeArgv(["--", "--worktree", "n"]), ["--", "--worktree", "n"]);
});
