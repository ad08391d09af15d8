import { test } from "node:test";
import assert from "node:assert/strict";
import { isSeatError } from "../errors.js";
import { worktreeArgv } from "./worktree-run.js";

test("--worktree takes a following name only when it is a valid worktree name", () => {
  assert.deepEqual(worktreeArgv(["--worktree", "fix-1", "do it"]), ["--worktree=fix-1", "do it"]);
  assert.deepEqual(worktreeArgv(["--worktree", "do it now"]), ["--worktree=", "do it now"]);
  assert.deepEqual(worktreeArgv(["--worktree", "--json", "x"]), ["--worktree=", "--json", "x"]);
  assert.deepEqual(worktreeArgv(["x", "--worktree"]), ["x", "--worktree="]);
  assert.deepEqual(worktreeArgv(["--worktree=a/b", "x"]), ["--worktree=a/b", "x"]);
  assert.deepEqual(worktreeArgv(["--", "--worktree", "n"]), ["--", "--worktree", "n"]);
});

test("a word after --worktree that is not a valid name is refused, never taken as prompt text", () => {
  for (const bad of ["../x", "a/b", "x..y", ".hidden", "fix!", "n.lock"]) {
    assert.throws(
      () => worktreeArgv(["--worktree", bad, "do it"]),
      (e) =>
        isSeatError(e, "WORKTREE_NAME_INVALID") && e.message.includes(`"${bad}"`) && /--worktree=NAME/.test(e.message),
      bad,
    );
  }
  // Text with whitespace is a prompt (a name has none), and "--" or a flag after it leaves the name to the default.
  assert.deepEqual(worktreeArgv(["--worktree", "fix the ../x test"]), ["--worktree=", "fix the ../x test"]);
  assert.deepEqual(worktreeArgv(["--worktree", "--", "../x"]), ["--worktree=", "--", "../x"]);
});
