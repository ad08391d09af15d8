/*
 * Merge and discard touch only the seat's work — the same scenarios through both doors, the `seat` CLI and the
 * `merge` / `discard` tools of `seat mcp` (official MCP client over stdio), with real git in temp repositories:
 * a merge never writes over a path git does not track in the target tree (an ignored `.env`, an ignored file where
 * the seat needs a directory, an ignored directory where the seat puts a file, an untracked file), it lands in the
 * worktree where it is run, and discard removes only its own worktree's entry (a user's linked worktree whose
 * directory is missing for the moment keeps its entry and its staged index).
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { runSeat } from "../../support/cli.js";
import { gitIn, makeRepo, snapshotUserTree, writeFiles } from "../../support/git-repo.js";
import { createWorktree, discardWorktree, type WorktreeRecord } from "../../../src/worktrees/index.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";

interface World {
  dir: string;
  repo: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

function world(t: TestContext): World {
  const dir = mkdtempSync(join(tmpdir(), "gs-wt-merge-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const repo = join(dir, "project");
  makeRepo(repo, { "a.txt": "one\n", ".gitignore": ".env\nbuild\ncache/\n*.log\n" });
  const home = join(dir, "seat-home");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home"), GROK_SEAT_HOME: home };
  mkdirSync(env.HOME, { recursive: true });
  return { dir, repo, home, env };
}

/** What a merge or discard answered through a door: the error code (null on success) and its fields. */
interface Outcome {
  code: string | null;
  message: string;
  /** CLI: the exit status. */
  exit?: number | null;
  into?: string;
  files?: string[];
  pruned?: boolean;
}

interface Door {
  name: string;
  merge(name: string, cwd: string, mode?: string): Promise<Outcome>;
  discard(name: string, cwd: string, force?: boolean): Promise<Outcome>;
  /** The diff's text, or the error code. */
  diff(name: string, cwd: string): Promise<{ code: string | null; text: string }>;
}

function cliDoor(w: World): Door {
  const call = async (args: string[], cwd: string): Promise<Outcome> => {
    const result = await runSeat([...args, "--json"], { env: w.env, cwd });
    const last = JSON.parse(result.stdout.trim().split("\n").pop() || "{}") as Record<string, unknown>;
    if (result.code !== 0)
      return {
        code: String(last.code),
        message: String(last.message),
        exit: result.code,
        ...(Array.isArray((last.context as { files?: unknown } | undefined)?.files)
          ? { files: (last.context as { files: string[] }).files }
          : {}),
      };
    return { ...(last as Partial<Outcome>), code: null, message: "", exit: 0 };
  };
  return {
    name: "cli",
    merge: (name, cwd, mode) => call(["merge", name, ...(mode && mode !== "merge" ? [`--${mode}`] : [])], cwd),
    discard: (name, cwd, force) => call(["discard", name, ...(force ? ["--force"] : [])], cwd),
    diff: async (name, cwd) => {
      const result = await runSeat(["diff", name], { env: w.env, cwd });
      return result.code === 0
        ? { code: null, text: result.stdout }
        : { code: `exit ${result.code}`, text: result.stdout + result.stderr };
    },
  };
}

async function mcpDoor(w: World, t: TestContext): Promise<Door> {
  const { client } = await connectSeatMcp(t, ["--root", w.dir], { env: w.env, cwd: w.repo });
  const call = async (tool: string, args: Record<string, unknown>): Promise<Outcome> => {
    const result = (await client.callTool({ name: tool, arguments: args }, CallToolResultSchema)) as CallToolResult;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    if (result.isError)
      return { code: (result._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code ?? "?", message: text };
    return { ...(result.structuredContent as Partial<Outcome>), code: null, message: text };
  };
  return {
    name: "mcp",
    merge: (name, cwd, mode) => call("merge", { name, cwd, ...(mode ? { mode } : {}) }),
    discard: (name, cwd, force) => call("discard", { name, cwd, ...(force ? { force } : {}) }),
    diff: async (name, cwd) => {
      const result = await call("diff", { name, cwd });
      return {
        code: result.code,
        text: result.code === null ? String((result as unknown as { diff: string }).diff) : result.message,
      };
    },
  };
}

const DOORS: Array<[string, (w: World, t: TestContext) => Door | Promise<Door>]> = [
  ["cli", cliDoor],
  ["mcp", mcpDoor],
];

/** The agent commits files itself, ignored ones too (`git add -f`), as an agent may. */
function agentCommits(record: WorktreeRecord, files: Record<string, string>): void {
  writeFiles(record.path, files);
  gitIn(record.path, ["add", "--force", "--", ...Object.keys(files)]);
  gitIn(record.path, ["commit", "--quiet", "-m", "agent's commit"]);
}

for (const [doorName, open] of DOORS) {
  test(`${doorName}: merge refuses, before changing anything and in every mode, to write over an ignored .env, an ignored file or directory in the way, or an untracked file; it names them`, async (t) => {
    const w = world(t);
    const door = await open(w, t);
    const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "w1", owner: "run" });
    agentCommits(record, {
      ".env": "PASSWORD=from-the-seat\n",
      "build/out.txt": "built\n",
      cache: "a file now\n",
      "b.txt": "bee\n",
    });
    // The user's branch moved on, so no mode is a plain fast-forward and --rebase has something to replay onto.
    writeFiles(w.repo, { "u.txt": "user\n" });
    gitIn(w.repo, ["add", "u.txt"]);
    gitIn(w.repo, ["commit", "--quiet", "-m", "user's commit"]);
    // What the user keeps out of git: a production .env, a build output file, a cache directory.
    writeFiles(w.repo, {
      ".env": "PASSWORD=production-hunter2\n",
      build: "the user's build output\n",
      "cache/secret": "the user's cache\n",
    });
    const before = snapshotUserTree(w.repo);
    const seatHead = gitIn(w.repo, ["rev-parse", "seat/w1"]).trim();
    for (const mode of ["merge", "squash", "ff-only", "rebase"]) {
      const refused = await door.merge("w1", w.repo, mode);
      assert.equal(refused.code, "WORKTREE_MERGE_WOULD_OVERWRITE", `${mode}: ${JSON.stringify(refused)}`);
      if (refused.exit !== undefined) assert.equal(refused.exit, 1, mode);
      if (refused.files) assert.deepEqual(refused.files, [".env", "build", "cache/secret"], mode);
      for (const path of [".env", "build", "cache/secret"])
        assert.ok(refused.message.includes(path), `${mode}: the message names ${path}: ${refused.message}`);
      assert.deepEqual(snapshotUserTree(w.repo), before, `${mode}: the user's tree is byte-for-byte as it was`);
      assert.equal(readFileSync(join(w.repo, ".env"), "utf8"), "PASSWORD=production-hunter2\n");
      assert.equal(
        gitIn(w.repo, ["rev-parse", "seat/w1"]).trim(),
        seatHead,
        `${mode}: the seat's branch is unchanged (no rebase ran)`,
      );
    }
    // An untracked file (not ignored) in the way is named too.
    rmSync(join(w.repo, "build"));
    rmSync(join(w.repo, "cache"), { recursive: true });
    writeFiles(w.repo, { "b.txt": "the user's own b\n" });
    const untracked = await door.merge("w1", w.repo);
    assert.equal(untracked.code, "WORKTREE_MERGE_WOULD_OVERWRITE", JSON.stringify(untracked));
    if (untracked.files) assert.deepEqual(untracked.files, [".env", "b.txt"]);
    assert.ok(untracked.message.includes("b.txt"), untracked.message);
    // Once nothing is in the way, the same merge lands.
    rmSync(join(w.repo, ".env"));
    rmSync(join(w.repo, "b.txt"));
    const merged = await door.merge("w1", w.repo);
    assert.equal(merged.code, null, JSON.stringify(merged));
    assert.equal(readFileSync(join(w.repo, ".env"), "utf8"), "PASSWORD=from-the-seat\n");
    assert.equal(readFileSync(join(w.repo, "build", "out.txt"), "utf8"), "built\n");
  });

  test(`${doorName}: merge lands in the worktree where it is run, not the linked worktree the seat was made from; the seat's own worktree is refused`, async (t) => {
    const w = world(t);
    const door = await open(w, t);
    const feature = join(w.dir, "feature");
    gitIn(w.repo, ["worktree", "add", "--quiet", "-b", "feature", feature]);
    const { record } = await createWorktree({ home: w.home, cwd: feature, name: "w1", owner: "run" });
    assert.equal(record.repository, feature);
    agentCommits(record, { "new.txt": "from the seat\n" });
    const featureBefore = snapshotUserTree(feature);
    const merged = await door.merge("w1", w.repo);
    assert.equal(merged.code, null, JSON.stringify(merged));
    assert.equal(merged.into, "main");
    assert.equal(
      gitIn(w.repo, ["rev-parse", "main"]).trim(),
      gitIn(w.repo, ["rev-parse", "seat/w1"]).trim(),
      "main moved",
    );
    assert.equal(readFileSync(join(w.repo, "new.txt"), "utf8"), "from the seat\n");
    assert.deepEqual(snapshotUserTree(feature), featureBefore, "the linked worktree the seat came from is untouched");
    // Run from inside the seat's own worktree there is no other branch to land in: refused, nothing changes.
    agentCommits(record, { "more.txt": "more\n" });
    const mainHead = gitIn(w.repo, ["rev-parse", "main"]).trim();
    const own = await door.merge("w1", record.path);
    assert.equal(own.code, "WORKTREE_MERGE_TARGET_INVALID", JSON.stringify(own));
    if (own.exit !== undefined) assert.equal(own.exit, 2);
    assert.equal(gitIn(w.repo, ["rev-parse", "main"]).trim(), mainHead);
  });

  test(`${doorName}: diff and discard work from the worktree where they run: diff shows what a merge there brings in, and both work after the linked worktree the seat was made from is gone`, async (t) => {
    const w = world(t);
    const door = await open(w, t);
    const feature = join(w.dir, "feature");
    gitIn(w.repo, ["worktree", "add", "--quiet", "-b", "feature", feature]);
    writeFiles(feature, { "f.txt": "feature work\n" });
    gitIn(feature, ["add", "f.txt"]);
    gitIn(feature, ["commit", "--quiet", "-m", "feature commit"]);
    const { record } = await createWorktree({ home: w.home, cwd: feature, name: "w1", owner: "run" });
    agentCommits(record, { "new.txt": "from the seat\n" });
    // From main, a merge would bring in the feature's commit and the seat's: the diff says so.
    const fromMain = await door.diff("w1", w.repo);
    assert.equal(fromMain.code, null, fromMain.text);
    assert.match(fromMain.text, /f\.txt/);
    assert.match(fromMain.text, /new\.txt/);
    const fromFeature = await door.diff("w1", feature);
    assert.doesNotMatch(fromFeature.text, /f\.txt/);
    assert.match(fromFeature.text, /new\.txt/);
    if (doorName === "cli") {
      const listed = await runSeat(["worktrees", "--json"], { env: w.env, cwd: w.repo });
      const row = JSON.parse(listed.stdout.trim()) as { ahead: number; behind: number };
      assert.deepEqual([row.ahead, row.behind], [2, 0], "ahead of main by the feature's commit and the seat's");
    }
    // The user removes the linked worktree the seat was made from; the seat's worktree is still reviewable.
    gitIn(w.repo, ["worktree", "remove", feature]);
    if (doorName === "cli") {
      const listed = await runSeat(["worktrees", "--json"], { env: w.env, cwd: w.repo });
      assert.equal(listed.code, 0, listed.stdout + listed.stderr);
      assert.equal((JSON.parse(listed.stdout.trim()) as { name: string }).name, "w1");
    }
    assert.equal((await door.diff("w1", w.repo)).code, null);
    const discarded = await door.discard("w1", w.repo);
    assert.equal(discarded.code, null, JSON.stringify(discarded));
    assert.equal(existsSync(record.path), false);
    assert.equal(gitIn(w.repo, ["branch", "--list", "seat/w1"]), "");
  });

  test(`${doorName}: discard removes only its own worktree's entry: the user's linked worktree whose directory is missing for the moment keeps its entry and staged index`, async (t) => {
    const w = world(t);
    const door = await open(w, t);
    const drive = join(w.dir, "drive");
    const mine = join(drive, "mine");
    gitIn(w.repo, ["worktree", "add", "--quiet", "-b", "mine", mine]);
    writeFiles(mine, { "staged.txt": "staged, not committed\n" });
    gitIn(mine, ["add", "staged.txt"]);
    const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "gone", owner: "run" });
    rmSync(record.path, { recursive: true, force: true });
    // The drive is unmounted: the user's worktree is missing for the moment, and comes back later.
    renameSync(drive, `${drive}.unmounted`);
    const discarded = await door.discard("gone", w.repo);
    assert.equal(discarded.code, null, JSON.stringify(discarded));
    assert.equal(discarded.pruned, true);
    assert.equal(gitIn(w.repo, ["branch", "--list", "seat/gone"]), "", "the seat's branch is gone");
    assert.doesNotMatch(gitIn(w.repo, ["worktree", "list", "--porcelain"]), /\/gone\n/, "the seat's entry is gone");
    assert.ok(existsSync(join(w.repo, ".git", "worktrees", "mine")), "the user's worktree entry is kept");
    renameSync(`${drive}.unmounted`, drive);
    assert.equal(
      gitIn(mine, ["status", "--porcelain"]),
      "A  staged.txt\n",
      "the user's staged index came back with the drive",
    );
    assert.equal(gitIn(mine, ["branch", "--show-current"]).trim(), "mine");
  });
}

test("making a vanished seat worktree again forgets only its own entry: a user's missing linked worktree keeps its entry", async (t) => {
  const w = world(t);
  const mine = join(w.dir, "drive", "mine");
  gitIn(w.repo, ["worktree", "add", "--quiet", "-b", "mine", mine]);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "again", owner: "run" });
  rmSync(record.path, { recursive: true, force: true });
  renameSync(join(w.dir, "drive"), join(w.dir, "drive.unmounted"));
  const { reused } = await createWorktree({ home: w.home, cwd: w.repo, name: "again", owner: "run" });
  assert.equal(reused, true);
  assert.ok(existsSync(join(record.path, ".git")), "the seat's worktree is checked out again");
  assert.ok(existsSync(join(w.repo, ".git", "worktrees", "mine")), "the user's worktree entry is kept");
});

test("a tracked symlink the seat replaces with a directory is no obstacle, and the merge never writes through it", async (t) => {
  const w = world(t);
  const outside = join(w.dir, "outside");
  writeFiles(outside, { "x.txt": "outside the repository\n" });
  symlinkSync("../outside", join(w.repo, "lnk"));
  gitIn(w.repo, ["add", "lnk"]);
  gitIn(w.repo, ["commit", "--quiet", "-m", "a symlink"]);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "w1", owner: "run" });
  gitIn(record.path, ["rm", "--quiet", "lnk"]);
  agentCommits(record, { "lnk/x.txt": "the seat's own file\n" });
  const merged = await runSeat(["merge", "w1", "--json"], { env: w.env, cwd: w.repo });
  assert.equal(merged.code, 0, merged.stdout + merged.stderr);
  assert.equal(readFileSync(join(w.repo, "lnk", "x.txt"), "utf8"), "the seat's own file\n");
  assert.equal(readFileSync(join(outside, "x.txt"), "utf8"), "outside the repository\n");
});

test("discard finds its own entry when the seat home is reached through a symlink and the whole trees directory is gone", async (t) => {
  const w = world(t);
  const realHome = join(w.dir, "real-home");
  mkdirSync(realHome);
  const linkedHome = join(w.dir, "linked-home");
  symlinkSync(realHome, linkedHome);
  const { record } = await createWorktree({ home: linkedHome, cwd: w.repo, name: "far", owner: "run" });
  assert.ok(record.path.startsWith(linkedHome));
  rmSync(join(realHome, "worktrees", record.repo_key, "trees"), { recursive: true, force: true });
  const result = await discardWorktree(linkedHome, record, { from: w.repo });
  assert.equal(result.pruned, true);
  assert.doesNotMatch(gitIn(w.repo, ["worktree", "list", "--porcelain"]), /\/far\n/, "the seat's entry is gone");
  assert.equal(gitIn(w.repo, ["branch", "--list", "seat/far"]), "");
});

test("cli: merge --into DIR lands in that worktree; a directory of another repository is refused with exit 2", async (t) => {
  const w = world(t);
  const feature = join(w.dir, "feature");
  gitIn(w.repo, ["worktree", "add", "--quiet", "-b", "feature", feature]);
  const { record } = await createWorktree({ home: w.home, cwd: w.repo, name: "w1", owner: "run" });
  agentCommits(record, { "new.txt": "from the seat\n" });
  const other = join(w.dir, "other");
  makeRepo(other, { "x.txt": "x\n" });
  const mainBefore = snapshotUserTree(w.repo);
  const foreign = await runSeat(["merge", "w1", "--into", other, "--json"], { env: w.env, cwd: w.repo });
  assert.equal(foreign.code, 2, foreign.stdout + foreign.stderr);
  assert.equal((JSON.parse(foreign.stdout.trim()) as { code: string }).code, "WORKTREE_MERGE_TARGET_INVALID");
  const missing = await runSeat(["merge", "w1", "--into", join(w.dir, "nowhere"), "--json"], {
    env: w.env,
    cwd: w.repo,
  });
  assert.equal((JSON.parse(missing.stdout.trim()) as { code: string }).code, "CLI_USAGE");
  const into = await runSeat(["merge", "w1", "--into", feature, "--json"], { env: w.env, cwd: w.repo });
  assert.equal(into.code, 0, into.stdout + into.stderr);
  assert.equal((JSON.parse(into.stdout.trim()) as { into: string }).into, "feature");
  assert.equal(readFileSync(join(feature, "new.txt"), "utf8"), "from the seat\n");
  assert.deepEqual(snapshotUserTree(w.repo), mainBefore, "the checkout it was run in is untouched");
});
