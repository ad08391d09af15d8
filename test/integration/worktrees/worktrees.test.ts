/*
 * Seat worktrees with real git and the built `seat` CLI: a worktree per seat under the seat home, turn commits
 * on seat/<name>, review (worktrees, diff), merge (clean, conflicting, dirty, not fast-forward), discard, and
 * bad input — with the user's tree compared byte for byte (files, index, HEAD, status) around every step.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SEAT_MAIN, runSeat, type CliResult } from "../../support/cli.js";
import { gitIn, makeRepo, snapshotUserTree, writeFiles } from "../../support/git-repo.js";
import { commitTurn, createWorktree, type WorktreeRecord } from "../../../src/worktrees/index.js";
import { makeZombie } from "../../support/zombie.js";

interface World {
  dir: string;
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
  seat(args: string[], cwd?: string): Promise<CliResult>;
}

function world(t: { after(fn: () => void): void }): World {
  const dir = mkdtempSync(join(tmpdir(), "gs-worktrees-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\ntwo\nthree\n", "src/b.txt": "bee\n", ".gitignore": "*.log\n" });
  const home = join(dir, "seat-home");
  // A HOME with no git config: the seat's commits and merges must work without one.
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), GROK_SEAT_HOME: home };
  mkdirSync(env.HOME, { recursive: true });
  return { dir, repo, home, env, seat: (args, cwd = repo) => runSeat(args, { env, cwd }) };
}

function errorOf(result: CliResult): { code: string; message: string; context: Record<string, unknown> } {
  const line = result.stdout.trim().split("\n").pop() ?? "";
  return JSON.parse(line) as { code: string; message: string; context: Record<string, unknown> };
}

/** What an agent would do in its worktree during a turn, then the seat's end-of-turn commit. */
async function agentTurn(record: WorktreeRecord, files: Record<string, string>, promptId: string, prompt: string) {
  writeFiles(record.path, files);
  return commitTurn(record, { promptId, prompt });
}

test("a seat worktree lives under the seat home on seat/<name>; its turn commit lands there and the user's tree is untouched", async (t) => {
  const w = world(t);
  const before = snapshotUserTree(w.repo);
  const { record, reused } = await createWorktree({
    home: w.home,
    cwd: join(w.repo, "src"),
    name: "fix-1",
    owner: "run",
  });
  assert.equal(reused, false);
  assert.ok(record.path.startsWith(w.home), "the worktree is under the seat home, outside the user's tree");
  assert.equal(record.branch, "seat/fix-1");
  assert.equal(record.base_commit, gitIn(w.repo, ["rev-parse", "HEAD"]).trim());
  assert.equal(record.repository, w.repo);
  const turn = await agentTurn(
    record,
    { "a.txt": "one\nTWO\nthree\n", "new.txt": "new\n", "debug.log": "ignored\n" },
    "p-1",
    "make two loud\nplease",
  );
  assert.ok(turn.commit);
  assert.equal(
    gitIn(w.repo, ["log", "-1", "--format=%s|%an", "seat/fix-1"]).trim(),
    "seat: p-1 make two loud|grok-seat",
  );
  assert.deepEqual(gitIn(w.repo, ["show", "--name-only", "--format=", "seat/fix-1"]).trim().split("\n").sort(), [
    "a.txt",
    "new.txt",
  ]);
  // The agent's own commit is kept, and a turn that changed nothing makes no commit.
  writeFiles(record.path, { "own.txt": "mine\n" });
  gitIn(record.path, ["add", "own.txt"]);
  gitIn(record.path, ["commit", "--quiet", "-m", "agent's own commit"]);
  const quiet = await commitTurn(record, { promptId: "p-2", prompt: "commit it yourself" });
  assert.equal(quiet.commit, null);
  assert.equal(gitIn(w.repo, ["log", "-1", "--format=%s", "seat/fix-1"]).trim(), "agent's own commit");
  assert.deepEqual(snapshotUserTree(w.repo), before, "no file, index entry, HEAD or status of the user's tree changed");

  const list = await w.seat(["worktrees", "--json"]);
  assert.equal(list.code, 0, list.stderr);
  const rows = list.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(rows.length, 1);
  assert.deepEqual(
    {
      name: rows[0]!.name,
      branch: rows[0]!.branch,
      ahead: rows[0]!.ahead,
      behind: rows[0]!.behind,
      dirty: rows[0]!.dirty,
      missing: rows[0]!.missing,
      owner: rows[0]!.owner,
    },
    { name: "fix-1", branch: "seat/fix-1", ahead: 2, behind: 0, dirty: [], missing: false, owner: "run" },
  );
  const stat = await w.seat(["diff", "fix-1", "--stat"]);
  assert.equal(stat.code, 0, stat.stderr);
  assert.match(stat.stdout, /a\.txt/);
  assert.match(stat.stdout, /3 files changed/);
  const patch = await w.seat(["diff", "fix-1"]);
  assert.match(patch.stdout, /^-two$/m);
  assert.match(patch.stdout, /^\+TWO$/m);
  assert.deepEqual(snapshotUserTree(w.repo), before, "review reads only");

  // From inside the seat's own worktree the repository (and so its seat worktrees) is the same.
  const inside = await w.seat(["worktrees", "--json"], record.path);
  assert.equal((JSON.parse(inside.stdout.trim()) as { name: string }).name, "fix-1", inside.stdout + inside.stderr);
  const merged = await w.seat(["merge", "fix-1", "--json"]);
  assert.equal(merged.code, 0, merged.stderr);
  const result = JSON.parse(merged.stdout.trim()) as { into: string; files: string[]; head: string };
  assert.equal(result.into, "main");
  assert.deepEqual(result.files.sort(), ["a.txt", "new.txt", "own.txt"]);
  assert.equal(readFileSync(join(w.repo, "a.txt"), "utf8"), "one\nTWO\nthree\n");
  assert.equal(gitIn(w.repo, ["status", "--porcelain"]), "");
  assert.equal(
    gitIn(w.repo, ["rev-parse", "HEAD"]).trim(),
    gitIn(w.repo, ["rev-parse", "seat/fix-1"]).trim(),
    "a fast-forward",
  );
});

test("a conflicting merge changes nothing in the user's tree, in every mode, and names the files", async (t) => {
  const w = world(t);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "clash", owner: "run" });
  await agentTurn(record, { "a.txt": "one\nseat\nthree\n", "src/b.txt": "bee\nseat\n" }, "p-1", "edit");
  writeFiles(w.repo, { "a.txt": "one\nuser\nthree\n" });
  gitIn(w.repo, ["commit", "--quiet", "-am", "user edit"]);
  writeFiles(w.repo, { "untracked.txt": "keep me\n" });
  const before = snapshotUserTree(w.repo);
  const seatHead = gitIn(w.repo, ["rev-parse", "seat/clash"]).trim();
  for (const mode of [[], ["--squash"], ["--rebase"], ["--ff-only"]]) {
    const result = await w.seat(["merge", "clash", "--json", ...mode]);
    assert.equal(result.code, 1, `${mode.join(" ")}: ${result.stdout}${result.stderr}`);
    const error = errorOf(result);
    assert.equal(error.code, "WORKTREE_CONFLICT", `${mode.join(" ")}: ${error.message}`);
    assert.deepEqual(error.context.files, ["a.txt"]);
    assert.deepEqual(
      snapshotUserTree(w.repo),
      before,
      `${mode.join(" ") || "merge"}: the user's tree is byte-for-byte as it was`,
    );
    assert.equal(
      gitIn(w.repo, ["rev-parse", "seat/clash"]).trim(),
      seatHead,
      "the seat's branch is unchanged (a rebase was aborted)",
    );
    assert.equal(gitIn(record.path, ["status", "--porcelain"]), "", "the seat's worktree is clean after the abort");
  }
  const listed = await w.seat(["worktrees", "--json"]);
  const row = JSON.parse(listed.stdout.trim()) as { ahead: number; behind: number };
  assert.deepEqual([row.ahead, row.behind], [1, 1]);
});

test("merge refuses a dirty user tree and a non-fast-forward --ff-only; --rebase and --squash land what merges cleanly", async (t) => {
  const w = world(t);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "side", owner: "run" });
  await agentTurn(record, { "src/b.txt": "bee\nseat\n" }, "p-1", "edit b");
  writeFiles(w.repo, { "a.txt": "one\ntwo\nthree\nfour\n" });
  let before = snapshotUserTree(w.repo);
  const dirty = await w.seat(["merge", "side", "--json"]);
  assert.equal(errorOf(dirty).code, "WORKTREE_DIRTY");
  assert.deepEqual(errorOf(dirty).context.files, ["a.txt"]);
  assert.deepEqual(snapshotUserTree(w.repo), before);
  gitIn(w.repo, ["commit", "--quiet", "-am", "user adds four"]);
  before = snapshotUserTree(w.repo);
  const ff = await w.seat(["merge", "side", "--ff-only", "--json"]);
  assert.equal(errorOf(ff).code, "WORKTREE_NOT_FAST_FORWARD");
  assert.deepEqual(snapshotUserTree(w.repo), before);
  const rebased = await w.seat(["merge", "side", "--rebase", "--json"]);
  assert.equal(rebased.code, 0, rebased.stdout + rebased.stderr);
  assert.equal(gitIn(w.repo, ["rev-parse", "HEAD"]).trim(), gitIn(w.repo, ["rev-parse", "seat/side"]).trim());
  assert.equal(
    gitIn(w.repo, ["log", "--format=%s", "-2"]).trim(),
    "seat: p-1 edit b\nuser adds four",
    "linear history: the seat's commit replayed on the user's",
  );
  await agentTurn(record, { "c.txt": "sea\n" }, "p-2", "add c");
  const squashed = await w.seat(["merge", "side", "--squash", "-m", "take c", "--json"]);
  assert.equal(squashed.code, 0, squashed.stdout + squashed.stderr);
  assert.equal(gitIn(w.repo, ["log", "-1", "--format=%s|%P", "HEAD"]).split("|")[0], "take c");
  assert.equal(
    gitIn(w.repo, ["log", "-1", "--format=%P", "HEAD"]).trim().split(" ").length,
    1,
    "a squash is one ordinary commit",
  );
  assert.equal(readFileSync(join(w.repo, "c.txt"), "utf8"), "sea\n");
  assert.equal(gitIn(w.repo, ["status", "--porcelain"]), "");
});

test("discard refuses uncommitted changes without --force, removes worktree, branch and record, and prunes a vanished directory", async (t) => {
  const w = world(t);
  const before = snapshotUserTree(w.repo);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "gone", owner: "run" });
  writeFiles(record.path, { "half.txt": "a crash left this\n" });
  const listed = await w.seat(["worktrees", "--json"]);
  assert.deepEqual(
    (JSON.parse(listed.stdout.trim()) as { dirty: string[] }).dirty,
    ["?? half.txt"],
    "a crash mid-turn shows as dirty",
  );
  const refused = await w.seat(["discard", "gone", "--json"]);
  assert.equal(errorOf(refused).code, "WORKTREE_DIRTY");
  assert.ok(existsSync(join(record.path, "half.txt")), "nothing was thrown away");
  const forced = await w.seat(["discard", "gone", "--force"]);
  assert.equal(forced.code, 0, forced.stderr);
  assert.equal(existsSync(record.path), false);
  assert.equal(gitIn(w.repo, ["branch", "--list", "seat/gone"]), "");
  assert.equal((await w.seat(["diff", "gone"])).code, 1, "its record is gone too");

  const second = (await createWorktree({ home: w.home, cwd: w.repo, name: "vanish", owner: "run" })).record;
  rmSync(second.path, { recursive: true, force: true });
  const missing = await w.seat(["worktrees", "--json"]);
  assert.equal((JSON.parse(missing.stdout.trim()) as { missing: boolean }).missing, true);
  const pruned = await w.seat(["discard", "vanish", "--json"]);
  assert.equal(pruned.code, 0, pruned.stdout + pruned.stderr);
  assert.equal((JSON.parse(pruned.stdout.trim()) as { pruned: boolean }).pruned, true);
  assert.doesNotMatch(gitIn(w.repo, ["worktree", "list", "--porcelain"]), /vanish/);
  assert.equal((await w.seat(["worktrees"])).stdout.startsWith("no seat worktrees"), true);
  assert.deepEqual(snapshotUserTree(w.repo), before);
});

test("bad input is refused with a code before any agent starts: not a repo, bad names, a taken branch, git missing or too old", async (t) => {
  const w = world(t);
  // --grok names no binary: reaching the agent would fail with GROK_NOT_FOUND, so a WORKTREE_* code proves the
  // refusal came first.
  const run = (args: string[], cwd = w.repo, env = w.env) =>
    runSeat(["run", "--json", "--grok", join(w.dir, "no-grok"), ...args], { env, cwd });
  const plain = join(w.dir, "plain");
  mkdirSync(plain);
  assert.equal(errorOf(await run(["--worktree", "x", "hi there"], plain)).code, "WORKTREE_NOT_A_REPO");
  const notRepo = await run(["--worktree", "x", "hi there"], plain);
  assert.equal(notRepo.code, 2);
  for (const bad of ["../escape", "a/b", "x..y", ".hidden", "n.lock"]) {
    const result = await run([`--worktree=${bad}`, "hi there"]);
    assert.equal(errorOf(result).code, "WORKTREE_NAME_INVALID", bad);
  }
  gitIn(w.repo, ["branch", "seat/taken"]);
  const taken = await run(["--worktree", "taken", "hi there"]);
  assert.equal(errorOf(taken).code, "WORKTREE_EXISTS");
  assert.equal(existsSync(join(w.home, "worktrees")), false, "nothing was made");
  assert.equal(
    errorOf(await run(["--worktree", "b1", "--base", "no-such-ref", "hi there"])).code,
    "WORKTREE_BASE_INVALID",
  );
  assert.equal(errorOf(await run(["--base", "main", "hi there"])).code, "CLI_USAGE");
  // --reuse gets past the worktree step (to the missing agent) and works on the existing branch.
  const reused = await run(["--worktree", "taken", "--reuse", "hi there"]);
  const lines = reused.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; branch?: string; code?: string });
  assert.equal(reused.code, 3, reused.stdout);
  assert.equal(lines[0]!.type, "worktree");
  assert.equal(lines[0]!.branch, "seat/taken");
  assert.equal(lines.pop()!.code, "GROK_NOT_FOUND", "the run went on to start the agent");

  const noGit = join(w.dir, "bin-empty");
  mkdirSync(noGit);
  const missing = await run(["--worktree", "x", "hi there"], w.repo, { ...w.env, PATH: noGit });
  assert.equal(errorOf(missing).code, "WORKTREE_GIT_MISSING");
  assert.match(errorOf(missing).message, /2\.38\.0/);
  const oldGit = join(w.dir, "bin-old");
  mkdirSync(oldGit);
  writeFileSync(join(oldGit, "git"), "#!/bin/sh\necho 'git version 2.20.1'\n");
  chmodSync(join(oldGit, "git"), 0o755);
  const old = await run(["--worktree", "x", "hi there"], w.repo, { ...w.env, PATH: `${oldGit}:${w.env.PATH}` });
  assert.equal(errorOf(old).code, "WORKTREE_GIT_MISSING");
  assert.match(errorOf(old).message, /git version 2\.20\.1: worktrees need git 2\.38\.0 or newer/);
});

test("a word after --worktree that is not a valid name exits 2 with WORKTREE_NAME_INVALID; it never becomes prompt text for a generated worktree", async (t) => {
  const w = world(t);
  for (const args of [
    ["run", "--json", "--grok", join(w.dir, "no-grok"), "--worktree", "../x", "hi there"],
    ["run", "--json", "--grok", join(w.dir, "no-grok"), "-s", "s1", "--worktree", "a/b", "hi"],
    ["hire", "--visible", "--json", "--worktree", "../x"],
  ]) {
    const result = await w.seat(args);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stdout}${result.stderr}`);
    const error = errorOf(result);
    assert.equal(error.code, "WORKTREE_NAME_INVALID", args.join(" "));
    assert.match(error.message, /--worktree=NAME/);
  }
  assert.equal(existsSync(join(w.home, "worktrees")), false, "no worktree was made");
  assert.equal(gitIn(w.repo, ["branch", "--list", "seat/*"]), "");
});

test("with -f -, a worktree usage error is refused before stdin is read: a run whose stdin never ends still exits 2 at once", async (t) => {
  const w = world(t);
  const plain = join(w.dir, "plain");
  mkdirSync(plain);
  // stdin is a pipe this test never writes to nor closes: reading it would wait for ever (the old order did).
  const refused = (args: string[], cwd = w.repo) =>
    new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [SEAT_MAIN, "run", "--json", "--grok", join(w.dir, "no-grok"), "-f", "-", ...args],
        { env: w.env, cwd, stdio: ["pipe", "pipe", "ignore"] },
      );
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(
          new Error(`seat run ${args.join(" ")} was still waiting after 20 s: it read stdin before checking its flags`),
        );
      }, 20_000);
      child.on("close", (code) => {
        clearTimeout(timer);
        child.stdin.destroy();
        resolve({ code, stdout });
      });
    });
  for (const [args, cwd, code] of [
    [["--reuse"], w.repo, "CLI_USAGE"],
    [["--base", "main"], w.repo, "CLI_USAGE"],
    [["--worktree=a/b"], w.repo, "WORKTREE_NAME_INVALID"],
    [["--worktree", "x"], plain, "WORKTREE_NOT_A_REPO"],
  ] as const) {
    const result = await refused([...args], cwd);
    assert.equal(result.code, 2, `${args.join(" ")}: ${result.stdout}`);
    assert.equal((JSON.parse(result.stdout.trim()) as { code: string }).code, code, args.join(" "));
  }
  assert.equal(existsSync(join(w.home, "worktrees")), false, "nothing was made");
});

test("two seats never share a worktree: a live holder's lock refuses runs and discard, a dead or reused-pid holder's lock is taken over", async (t) => {
  const w = world(t);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "shared", owner: "run" });
  const lockModule = new URL("../../../src/worktrees/index.js", import.meta.url).href;
  const holder = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `import { lockWorktree } from ${JSON.stringify(lockModule)}; lockWorktree(${JSON.stringify(w.home)}, ${JSON.stringify(record)}, "run"); process.stdout.write("locked\\n"); setInterval(() => {}, 1000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  t.after(() => holder.kill("SIGKILL"));
  await new Promise<void>((resolve, reject) => {
    holder.stdout!.on("data", (d: Buffer) => d.toString().includes("locked") && resolve());
    holder.on("exit", () => reject(new Error("the lock holder exited")));
  });
  const run = () =>
    runSeat(["run", "--json", "--grok", join(w.dir, "no-grok"), "--worktree", "shared", "--reuse", "hi there"], {
      env: w.env,
      cwd: w.repo,
    });
  const busy = await run();
  assert.equal(busy.code, 75, busy.stdout);
  assert.equal(errorOf(busy).code, "WORKTREE_BUSY");
  assert.equal(errorOf(busy).context.pid, holder.pid);
  assert.equal(errorOf(await w.seat(["discard", "shared", "--force", "--json"])).code, "WORKTREE_BUSY");
  assert.equal(errorOf(await w.seat(["merge", "shared", "--rebase", "--json"])).code, "WORKTREE_BUSY");
  const listed = JSON.parse((await w.seat(["worktrees", "--json"])).stdout.trim()) as {
    in_use: { pid: number; holder: string } | null;
  };
  assert.deepEqual([listed.in_use?.pid, listed.in_use?.holder], [holder.pid, "run"]);

  // The holder dies mid-turn, leaving a half-written file: seat worktrees says the turn was interrupted and the
  // change is there, uncommitted.
  writeFiles(record.path, { "half.txt": "written before the crash\n" });
  holder.kill("SIGKILL");
  await new Promise((resolve) => holder.once("close", resolve));
  const crashed = JSON.parse((await w.seat(["worktrees", "--json"])).stdout.trim()) as {
    in_use: unknown;
    interrupted: { pid: number } | null;
    dirty: string[];
  };
  assert.deepEqual([crashed.in_use, crashed.interrupted?.pid, crashed.dirty], [null, holder.pid, ["?? half.txt"]]);
  assert.match(
    (await w.seat(["worktrees"])).stdout,
    new RegExp(`dirty \\(1 uncommitted\\), interrupted \\(pid ${holder.pid} died mid-turn\\)`),
  );
  const after = await run();
  assert.equal(after.code, 3, `past the lock, on to the missing agent: ${after.stdout}`);
  assert.equal(
    (JSON.parse((await w.seat(["worktrees", "--json"])).stdout.trim()) as { in_use: unknown }).in_use,
    null,
    "the run released its lock",
  );

  // A lock naming a live pid with another start time is a reused pid: its holder is proven gone.
  const lockFile = join(w.home, "worktrees", record.repo_key, "locks", "shared.lock");
  writeFileSync(
    lockFile,
    JSON.stringify({ pid: process.pid, start_ticks: "1", holder: "run", since: new Date().toISOString() }),
  );
  assert.equal((await run()).code, 3);
  assert.equal(existsSync(lockFile), false);

  // A holder that died and that its parent never reaps (a zombie, as under a pid 1 that does not reap) is gone too.
  const zombie = await makeZombie();
  t.after(() => zombie.end());
  writeFileSync(
    lockFile,
    JSON.stringify({ pid: zombie.pid, start_ticks: zombie.startTicks, holder: "run", since: new Date().toISOString() }),
  );
  const overZombie = await run();
  assert.equal(overZombie.code, 3, `past a zombie's lock: ${overZombie.stdout}`);
  assert.equal(existsSync(lockFile), false);
});
