/*
 * A visible seat in its own worktree: `seat hire --visible --worktree NAME` runs the real grok 1.0.41 TUI (real
 * private tmux, offline mock model) in a seat worktree; grok writes a file there with its own tool; the user's
 * tree stays untouched byte for byte; release (after the TUI exits) commits the work on seat/NAME, and then
 * `seat diff`, `seat merge` and `seat discard` work on it as they do for runs. A second seat cannot share it.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { resolveRepository, worktreePath } from "../../../src/worktrees/index.js";
import { queryUsage } from "../../../src/usage/index.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { alive } from "../../support/processes.js";
import { gotLive } from "../../support/requirements.js";
import { gitIn, makeRepo, snapshotUserTree } from "../../support/git-repo.js";
import { runSeat, type CliResult } from "../../support/cli.js";

/** What a test gets from `visibleWorktreeSeat`: the rig, the seat home, the user's repo, the seat worktree's path. */
interface VisibleWorktreeWorld {
  rig: LiveRig;
  seatHome: string;
  repo: string;
  /** Where the seat worktree NAME will be. */
  tree: string;
  /** The private tmux server's socket name. */
  tmux: string;
  /** Pids killed after the test (the controllers named in the seat home are added then). */
  pids: Set<number>;
  /** Runs `seat ARGS` in the repo; `json` is its last stdout line parsed, or null. */
  seat(args: string[]): Promise<CliResult & { json: any }>;
}

/**
 * A live rig (tmux required), a repo with a.txt, and a mock model whose rule `write.match` has grok's write tool
 * put `write.content` in `write.file` of the seat worktree `name`, then say `write.reply`. After the test: the private tmux
 * server, every controller, TUI and leader are killed and the rig is closed. Undefined when the test was skipped.
 */
async function visibleWorktreeSeat(
  t: TestContext,
  name: string,
  write: { match: string; file: string; content: string; reply: string },
): Promise<VisibleWorktreeWorld | undefined> {
  const rigOrReason = (await isTmuxAvailable()) ? await startLiveRig({ rules: [] }) : "tmux (not found on PATH)";
  if (!gotLive(t, rigOrReason)) return undefined;
  const rig = rigOrReason;
  const seatHome = join(rig.sandbox.root, "sh");
  const repo = join(rig.sandbox.root, "repo");
  makeRepo(repo, { "a.txt": "one\n" });
  const tree = worktreePath(seatHome, (await resolveRepository(repo)).key, name);
  rig.mock.setScript({
    rules: [
      {
        match: write.match,
        replies: [
          { toolCalls: [{ name: "write", arguments: { file_path: join(tree, write.file), content: write.content } }] },
          { text: write.reply },
        ],
      },
    ],
  });
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const env = { ...rig.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" };
  const pids = new Set<number>();
  // Asynchronous on purpose: the mock model answers grok from this process, so a blocking spawn would starve it.
  const seat = async (args: string[]) => {
    const r = await runSeat(args, { env, cwd: repo });
    const last = r.stdout.trim().split("\n").filter(Boolean).pop() ?? "null";
    let json: any = null;
    try {
      json = JSON.parse(last);
    } catch {
      /* text */
    }
    return { ...r, json };
  };
  t.after(async () => {
    for (const dir of existsSync(join(seatHome, "seats")) ? readdirSync(join(seatHome, "seats")) : []) {
      try {
        pids.add(JSON.parse(readFileSync(join(seatHome, "seats", dir, "seat.json"), "utf8")).controller_pid);
      } catch {
        /* none */
      }
    }
    spawnSync("tmux", ["-L", tmux, "kill-server"]);
    for (const pid of pids)
      if (pid && alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    for (let i = 0; i < 100 && [...pids].some((pid) => pid && alive(pid)); i += 1)
      await new Promise((r) => setTimeout(r, 50));
    await rig.close();
  });
  return { rig, seatHome, repo, tree, tmux, pids, seat };
}

test("seat hire --visible --worktree: the TUI writes in its seat worktree, release commits it on seat/NAME, then seat diff, merge and discard work on it", async (t) => {
  const world = await visibleWorktreeSeat(t, "vis1", {
    match: "write the visible file",
    file: "visible.txt",
    content: "written in the TUI\n",
    reply: "visible file written",
  });
  if (!world) return;
  const { rig, seatHome, repo, tree, tmux, pids, seat } = world;
  const before = snapshotUserTree(repo);
  // --always-approve (passed through to grok): the TUI runs its write tool without a person answering in the pane.
  const hireArgs = [
    "hire",
    "--visible",
    "--grok",
    rig.binary,
    "--cwd",
    repo,
    "--version-floor",
    "1.0.41",
    "--tmux-socket",
    tmux,
    "--grok-arg=--always-approve",
    "--json",
  ];
  const hired = await seat([...hireArgs, "--worktree", "vis1"]);
  assert.equal(hired.code, 0, hired.stdout + hired.stderr);
  const seatId: string = hired.json.seatId;
  pids.add(hired.json.controllerPid);
  const status = (await seat(["status", seatId, "--json"])).json;
  for (const pid of [status.tui?.pid, status.leader?.pid]) if (pid) pids.add(pid);
  assert.equal(readFileSync(`/proc/${status.tui.pid}/cwd/a.txt`, "utf8"), "one\n");
  assert.equal(
    spawnSync("readlink", [`/proc/${status.tui.pid}/cwd`], { encoding: "utf8" }).stdout.trim(),
    tree,
    "the TUI's cwd is the seat worktree",
  );

  // Two seats never share a worktree: a second hire on it is refused before any TUI starts.
  const second = await seat([...hireArgs, "--worktree", "vis1", "--reuse"]);
  assert.equal(second.code, 75, second.stdout + second.stderr);
  assert.equal(second.json.code, "WORKTREE_BUSY");

  const sent = await seat([
    "send",
    seatId,
    "please write the visible file",
    "--wait",
    "completed",
    "--timeout",
    "90",
    "--json",
  ]);
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  const pane = spawnSync("tmux", ["-L", tmux, "capture-pane", "-p", "-t", status.tui.pane.paneId], {
    encoding: "utf8",
  }).stdout;
  assert.ok(
    existsSync(join(tree, "visible.txt")),
    `grok's write tool wrote in the seat worktree: ${sent.stdout}\n${JSON.stringify(
      rig.mock.requests.map((r) => [r.kind, r.reqId, (r.body as any)?.messages?.at?.(-1)]),
      null,
      1,
    ).slice(0, 4000)}\n${pane}`,
  );
  assert.equal(readFileSync(join(tree, "visible.txt"), "utf8"), "written in the TUI\n");
  assert.deepEqual(snapshotUserTree(repo), before, "the user's tree is untouched");
  // The delivery's usage, from the prompt result the leader forwarded, is in the seat home's ledger (source seat).
  const [row] = queryUsage({ journalFile: join(seatHome, "seats.db"), by: "agent" });
  const calls = rig.mock.requests.filter((q) => q.kind === "main" || q.kind === "tool_followup").length;
  // The TUI runs without the metering point, so its turn summary is one estimated call (the last call's 11 + 3 in).
  const log = () =>
    readFileSync(join(seatHome, "seats", seatId, "controller.log"), "utf8")
      .split("\n")
      .filter((l) => /ledger|usage|grok-seat:/.test(l))
      .join("\n")
      .slice(0, 3000);
  assert.equal(row?.estimatedCalls, 1, `the turn summary is estimated: ${JSON.stringify(row)} ${log()}`);
  const reported = (row?.modelCalls ?? 0) - 1;
  assert.deepEqual(
    [row?.key, row?.turns, row?.inputTokens, row?.outputTokens],
    ["grok", 1, 11 * reported + (11 + 3), 1 + 3 + 16],
    `the ledger holds the delivery's turn: ${JSON.stringify(row)} ${log()}`,
  );
  assert.ok(reported >= calls, `every model call of the turn is counted (${calls} seen by the mock)`);
  assert.equal(
    gitIn(repo, ["rev-parse", "seat/vis1"]),
    gitIn(repo, ["rev-parse", "main"]),
    "nothing is committed while the TUI runs",
  );

  const released = await seat(["release", seatId, "--close-pane", "--json"]);
  assert.equal(released.code, 0, released.stdout + released.stderr);
  assert.equal(released.json.tuiExit, "exited");
  assert.equal(released.json.worktree.branch, "seat/vis1");
  assert.ok(released.json.worktree.commit, `release committed the seat's work: ${released.stdout}`);
  assert.equal(
    gitIn(repo, ["log", "-1", "--format=%s", "seat/vis1"]).trim(),
    `seat: ${seatId} work of the visible seat`,
  );
  assert.deepEqual(snapshotUserTree(repo), before);

  const listed = JSON.parse((await seat(["worktrees", "--json"])).stdout.trim());
  assert.deepEqual(
    [listed.name, listed.owner, listed.ahead, listed.dirty, listed.in_use],
    ["vis1", `seat:${seatId}`, 1, [], null],
  );
  const diff = await seat(["diff", "vis1", "--stat"]);
  assert.equal(diff.code, 0, diff.stderr);
  assert.match(diff.stdout, /visible\.txt/);
  const merged = await seat(["merge", "vis1", "--json"]);
  assert.equal(merged.code, 0, merged.stdout + merged.stderr);
  assert.equal(readFileSync(join(repo, "visible.txt"), "utf8"), "written in the TUI\n");
  const discarded = await seat(["discard", "vis1", "--json"]);
  assert.equal(discarded.code, 0, discarded.stdout + discarded.stderr);
  assert.equal(existsSync(tree), false);
  assert.throws(() => gitIn(repo, ["rev-parse", "--verify", "seat/vis1"]), "the branch is gone");
});

test("a release while the TUI still runs commits nothing and says why; once the TUI is gone, the next (offline) release commits the work", async (t) => {
  const world = await visibleWorktreeSeat(t, "vis2", {
    match: "write the late file",
    file: "late.txt",
    content: "late\n",
    reply: "late file written",
  });
  if (!world) return;
  const { rig, repo, tmux, pids, seat } = world;
  const hired = await seat([
    "hire",
    "--visible",
    "--grok",
    rig.binary,
    "--cwd",
    repo,
    "--version-floor",
    "1.0.41",
    "--tmux-socket",
    tmux,
    "--grok-arg=--always-approve",
    "--json",
    "--worktree",
    "vis2",
  ]);
  assert.equal(hired.code, 0, hired.stdout + hired.stderr);
  const seatId: string = hired.json.seatId;
  pids.add(hired.json.controllerPid);
  const status = (await seat(["status", seatId, "--json"])).json;
  for (const pid of [status.tui?.pid, status.leader?.pid]) if (pid) pids.add(pid);
  const sent = await seat([
    "send",
    seatId,
    "please write the late file",
    "--wait",
    "completed",
    "--timeout",
    "90",
    "--json",
  ]);
  assert.equal(sent.code, 0, sent.stdout + sent.stderr);
  const early = await seat(["release", seatId, "--json"]);
  assert.equal(early.code, 0, early.stdout + early.stderr);
  assert.equal(early.json.tuiExit, "running");
  assert.deepEqual(
    [early.json.worktree.commit, typeof early.json.worktree.uncommitted],
    [null, "string"],
    JSON.stringify(early.json),
  );
  assert.equal(
    gitIn(repo, ["rev-parse", "seat/vis2"]),
    gitIn(repo, ["rev-parse", "main"]),
    "nothing committed while the TUI runs",
  );
  // The person closes the TUI; the controller is gone, so this release works from the journal.
  spawnSync("tmux", ["-L", tmux, "kill-server"]);
  const deadline = Date.now() + 30_000;
  while (alive(status.tui.pid) || alive(hired.json.controllerPid)) {
    if (Date.now() > deadline) assert.fail("the TUI and the controller did not exit");
    await new Promise((r) => setTimeout(r, 100));
  }
  const late = await seat(["release", seatId, "--json"]);
  assert.equal(late.code, 0, late.stdout + late.stderr);
  assert.equal(late.json.tuiExit, "exited");
  assert.ok(late.json.worktree.commit, JSON.stringify(late.json));
  assert.equal(gitIn(repo, ["show", "seat/vis2:late.txt"]), "late\n");
});
