/*
 * Live visible seat: the real grok 1.0.41 TUI in a real private tmux server, offline against the mock
 * model, driven only through the built `seat` CLI (hire → send → status → release) and its detached
 * per-seat controller. The version floor is lowered explicitly to 1.0.41 (below the verified 1.0.46).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { callController } from "../../../src/seat/index.js";
import { seatDir } from "../../../src/home/index.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { alive } from "../../support/processes.js";
import { gotLive } from "../../support/requirements.js";
import { waitUntil } from "../../support/poll.js";
import { seatSync } from "../../support/seat-cli-sync.js";
import { SEAT_MAIN as MAIN } from "../../support/cli.js";
import { stopVisibleSeats } from "../../support/visible-seat-cleanup.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { visibleHireArgs } from "../../support/visible-hire.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  rig: LiveRig;
  tmux: string;
  seatHome: string;
  env: NodeJS.ProcessEnv;
  pids: Set<number>;
}

function seatCli(
  ctx: Ctx,
  args: string[],
  extraEnv: NodeJS.ProcessEnv = {},
  input?: string,
): { code: number; stdout: string; stderr: string; json: any } {
  return seatSync(ctx.env, args, { extraEnv, ...(input !== undefined ? { input } : {}) });
}

function statusOf(ctx: Ctx, seatId: string): any {
  const r = seatCli(ctx, ["status", seatId, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return r.json;
}

function seatFile(ctx: Ctx, seatId: string): any {
  return JSON.parse(readFileSync(join(ctx.seatHome, "seats", seatId, "seat.json"), "utf8"));
}

async function setup(chunkDelayMs: number, script: MockScript = {}): Promise<Ctx | string> {
  if (!(await isTmuxAvailable())) return "tmux (not found on PATH)";
  const rig = await startLiveRig({ chunkDelayMs, ...script });
  if (typeof rig === "string") return rig;
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const env = { ...rig.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" };
  return { rig, tmux, seatHome, env, pids: new Set() };
}

function hire(ctx: Ctx, extraEnv: NodeJS.ProcessEnv = {}): any {
  const r = seatCli(ctx, visibleHireArgs(ctx.rig, ctx.tmux), extraEnv);
  assert.equal(r.code, 0, `hire failed: ${r.stdout} ${r.stderr}`);
  assert.equal(r.json.type, "hired");
  const seat = statusOf(ctx, r.json.seatId);
  for (const pid of [seat.tui?.pid, seat.leader?.pid, seat.controller?.pid, r.json.controllerPid])
    if (pid) ctx.pids.add(pid);
  return r.json;
}

async function teardown(ctx: Ctx): Promise<void> {
  // Everything this test started: the controller, the TUI and its leader (own process group), tmux.
  await stopVisibleSeats(ctx);
  await ctx.rig.close();
}

function mainRequestsFor(ctx: Ctx, promptId: string): number {
  return ctx.rig.mock.requests.filter((r) => r.kind === "main" && r.reqId === promptId).length;
}

describe("visible seat on the real grok TUI in tmux", { concurrency: false }, () => {
  test("hire → send shows the turn in the TUI, consumed then completed with the echo; a second brief queues behind; release after the TUI exits stops only the proven leader", async (t) => {
    const ctx = await setup(700);
    if (!gotLive(t, ctx)) return;
    const bystander: ChildProcess = spawn("sleep", ["120"], { stdio: "ignore" });
    try {
      const hired = hire(ctx);
      assert.equal(hired.admission.version, "1.0.41");
      assert.equal(hired.admission.belowVerifiedFloor, true);
      const seatId: string = hired.seatId;
      const live = statusOf(ctx, seatId);
      assert.equal(live.source, "controller");
      assert.equal(live.tui.state, "running");
      assert.equal(live.tui.birthResolution, "clock-ticks");

      const a = seatCli(ctx, [
        "send",
        seatId,
        "first brief from the seat",
        "--prompt-id",
        `${seatId}-A`,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(a.json.state, "consumed");
      const b = seatCli(ctx, [
        "send",
        seatId,
        "second brief from the seat",
        "--prompt-id",
        `${seatId}-B`,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(b.code, 0, b.stderr);
      assert.equal(b.json.state, "consumed");
      // B was acknowledged as a queue entry while A was the running prompt.
      const bConsumed = b.json.evidence.find((e: any) => e.kind === "consumed");
      assert.equal(bConsumed.detail, "queue entry");

      const pane = statusOf(ctx, seatId).tui.pane;
      const screen = await waitUntil("the TUI to show the brief", () => {
        const cap = spawnSync("tmux", ["-L", ctx.tmux, "capture-pane", "-p", "-t", pane.paneId], {
          encoding: "utf8",
        }).stdout;
        return /first brief from the seat|second brief from the seat/.test(cap) ? cap : null;
      });
      assert.match(screen, /brief from the seat/);

      const done = await waitUntil("both deliveries to complete", () => {
        const s = statusOf(ctx, seatId);
        const states = s.deliveries.map((d: any) => d.state);
        return states.length === 2 && states.every((x: string) => x === "completed") ? s : null;
      });
      for (const d of done.deliveries) {
        const completed = d.evidence.find((e: any) => e.kind === "completed");
        assert.equal(completed.sessionId, hired.sessionId);
        assert.equal(completed.promptId, d.promptId);
        assert.equal(completed.source, "session/prompt result");
        assert.equal(mainRequestsFor(ctx, d.promptId), 1, "each brief reached the model exactly once");
      }

      // The owner closes the TUI; the leader outlives it until release re-proves and stops it.
      const tuiPid: number = done.tui.pid;
      const leaderPid: number = done.leader.pid;
      spawnSync("tmux", ["-L", ctx.tmux, "kill-session", "-t", pane.sessionName]);
      await waitUntil("the TUI to exit", () => !alive(tuiPid));
      assert.ok(alive(leaderPid), "the leader outlives the TUI");
      const rel = seatCli(ctx, ["release", seatId, "--json"]);
      assert.equal(rel.code, 0, rel.stderr);
      assert.equal(rel.json.tuiExit, "exited");
      assert.equal(rel.json.leaderStopped, true);
      await waitUntil("the leader to exit", () => !alive(leaderPid));
      assert.ok(alive(bystander.pid!), "release signalled nothing but the leader");
      await waitUntil("the controller to exit", () => !alive(hired.controllerPid));
      assert.equal(existsSync(done.leader.socketPath), false, "the private socket directory is removed");
    } finally {
      bystander.kill("SIGKILL");
      await teardown(ctx);
    }
  });

  test("a controller killed after the fence and before dispatch reports never-dispatched, sends nothing, and send then refuses", async (t) => {
    const ctx = await setup(0);
    if (!gotLive(t, ctx)) return;
    try {
      const hired = hire(ctx, { GROK_SEAT_TEST_HOOKS: "hold-before-dispatch" });
      const seatId: string = hired.seatId;
      const promptId = `${seatId}-held`;
      const sender = spawn(process.execPath, [MAIN, "send", seatId, "held brief", "--prompt-id", promptId, "--json"], {
        env: ctx.env,
        stdio: "ignore",
      });
      const exited = new Promise<number | null>((r) => sender.on("exit", (code) => r(code)));
      await waitUntil("the fence to be held", () =>
        existsSync(join(ctx.seatHome, "seats", seatId, `held-${promptId}`)),
      );
      process.kill(hired.controllerPid, "SIGKILL");
      assert.notEqual(await exited, 0, "the interrupted send does not claim success");
      await waitUntil("the controller to die", () => !alive(hired.controllerPid));
      const s = statusOf(ctx, seatId);
      assert.equal(s.source, "journal");
      assert.deepEqual(s.recovered.neverSent, [promptId]);
      const d = s.deliveries.find((x: any) => x.promptId === promptId);
      assert.equal(d.state, "failed");
      assert.match(d.failureReason, /never dispatched/);
      assert.equal(mainRequestsFor(ctx, promptId), 0, "nothing reached the model");
      const again = seatCli(ctx, ["send", seatId, "another brief", "--json"]);
      assert.equal(again.code, 6);
      assert.equal(again.json.code, "SEAT_NOT_ADMITTED");
      const rel = seatCli(ctx, ["release", seatId, "--close-pane", "--json"]);
      assert.equal(rel.code, 0, rel.stderr);
      assert.equal(rel.json.leaderStopped, true);
    } finally {
      await teardown(ctx);
    }
  });

  test("a controller killed after dispatch reports the delivery uncertain, never re-sends it, and late session-file evidence reconciles the original receipt", async (t) => {
    const ctx = await setup(1500);
    if (!gotLive(t, ctx)) return;
    try {
      const hired = hire(ctx);
      const seatId: string = hired.seatId;
      const promptId = `${seatId}-inflight`;
      const sent = seatCli(ctx, [
        "send",
        seatId,
        "slow brief",
        "--prompt-id",
        promptId,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(sent.json.state, "consumed");
      process.kill(hired.controllerPid, "SIGKILL");
      await waitUntil("the controller to die", () => !alive(hired.controllerPid));
      const first = statusOf(ctx, seatId);
      assert.deepEqual(first.recovered.uncertain, [promptId]);
      const late = await waitUntil(
        "late evidence to complete the delivery",
        () => {
          const d = statusOf(ctx, seatId).deliveries.find((x: any) => x.promptId === promptId);
          return d.state === "completed" ? d : null;
        },
        { timeoutMs: 60_000 },
      );
      const completed = late.evidence.find((e: any) => e.kind === "completed");
      assert.match(completed.source, /grok session file/);
      assert.equal(completed.sessionId, hired.sessionId);
      assert.ok(
        late.evidence.some((e: any) => e.kind === "note" && e.source === "recovery"),
        "the recovery note stays on the original receipt",
      );
      assert.equal(mainRequestsFor(ctx, promptId), 1, "the brief reached the model once and was never re-sent");
      assert.equal(statusOf(ctx, seatId).deliveries.length, 1, "evidence created no new delivery");
      const rel = seatCli(ctx, ["release", seatId, "--close-pane", "--json"]);
      assert.equal(rel.code, 0, rel.stderr);
      assert.equal(rel.json.leaderStopped, true);
    } finally {
      await teardown(ctx);
    }
  });

  test("when the proven leader dies and grok's TUI respawns one on the same socket, status names the change, send refuses with exit 6, and release after the TUI exits proves and stops the respawned leader", async (t) => {
    const ctx = await setup(0);
    if (!gotLive(t, ctx)) return;
    try {
      const hired = hire(ctx);
      const seatId: string = hired.seatId;
      const before = statusOf(ctx, seatId);
      assert.equal(before.condition, "active");
      assert.equal(before.leader.identity, "proven");
      const { pid: leaderPid, socketPath } = before.leader;
      const tuiPid: number = before.tui.pid;
      process.kill(leaderPid, "SIGKILL");
      const respawned = await waitUntil("grok's TUI to respawn a leader on the socket", () => {
        const lock = existsSync(`${socketPath}.lock`) ? Number(readFileSync(`${socketPath}.lock`, "utf8").trim()) : 0;
        return lock && lock !== leaderPid && alive(lock) ? lock : null;
      });
      ctx.pids.add(respawned);
      const changed = await waitUntil("status to report the new holder", () => {
        const s = statusOf(ctx, seatId);
        return s.leader.current.pid === respawned && s.leader.current.holdsSocket === "match" ? s : null;
      });
      assert.equal(changed.leader.pid, leaderPid, "status still says which leader was bound");
      assert.equal(changed.leader.state, "exited");
      assert.equal(changed.leader.identity, "changed");
      assert.match(
        changed.condition,
        new RegExp(
          `^leader-changed: the bound leader pid ${leaderPid} is exited; the socket is now named by pid ${respawned}`,
        ),
      );
      assert.notEqual(
        changed.leader.current.socketInode,
        before.leader.socketInode,
        "the respawned leader listens on a new socket",
      );
      const text = seatCli(ctx, ["status", seatId]);
      assert.match(text.stdout, /leader-changed/);

      const refused = seatCli(ctx, ["send", seatId, "a brief after the respawn", "--json"]);
      assert.equal(refused.code, 6, refused.stdout);
      assert.equal(refused.json.code, "LEADER_SOCKET_GONE");

      const pane = changed.tui.pane;
      spawnSync("tmux", ["-L", ctx.tmux, "kill-session", "-t", pane.sessionName]);
      await waitUntil("the TUI to exit", () => !alive(tuiPid));
      assert.ok(alive(respawned), "the respawned leader outlives the TUI like the original");
      const rel = seatCli(ctx, ["release", seatId, "--json"]);
      assert.equal(rel.code, 0, rel.stdout + rel.stderr);
      assert.equal(rel.json.leaderStopped, true, rel.json.reason);
      assert.match(rel.json.reason, new RegExp(`respawned leader pid ${respawned} .*it was stopped`));
      await waitUntil("the respawned leader to exit (no orphan)", () => !alive(respawned));
      assert.equal(existsSync(socketPath), false, "the private socket directory is removed");
    } finally {
      await teardown(ctx);
    }
  });

  test("a bad brief is refused before anything is fenced (CLI exit 2, controller socket SEAT_BRIEF_INVALID), -f FILE and -f - deliver from a file and stdin, and a socket no longer served by the proven leader refuses the dispatch with IDENTITY_MISMATCH and sends nothing", async (t) => {
    const ctx = await setup(0);
    if (!gotLive(t, ctx)) return;
    try {
      const hired = hire(ctx);
      const seatId: string = hired.seatId;
      const badFile = join(ctx.rig.sandbox.root, "bad-brief.txt");
      writeFileSync(badFile, "a NUL \u0000 inside");
      for (const args of [
        ["send", seatId, ""],
        ["send", seatId, "  \n\t "],
        ["send", seatId, "bell \u0007"],
        ["send", seatId, "-f", badFile],
      ]) {
        const r = seatCli(ctx, [...args, "--json"]);
        assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.stdout}`);
        assert.equal(r.json.code, "CLI_USAGE");
      }
      const direct = await callController(seatDir(ctx.seatHome, seatId), { op: "send", text: "escape \u001b[31m red" });
      assert.equal(direct.ok, false);
      assert.equal((direct.error as { code: string }).code, "SEAT_BRIEF_INVALID");
      // An operation the controller does not know is its own code, not the CLI's usage error.
      const unknownOp = await callController(seatDir(ctx.seatHome, seatId), { op: "reboot" } as never);
      assert.equal((unknownOp.error as { code: string }).code, "SEAT_CONTROL_REQUEST_INVALID");
      assert.equal(statusOf(ctx, seatId).deliveries.length, 0, "no refused brief was fenced");

      const goodFile = join(ctx.rig.sandbox.root, "brief.txt");
      writeFileSync(goodFile, "a brief from a file\nwith\ttabs and a second line\n");
      const fromFile = seatCli(ctx, ["send", seatId, "-f", goodFile, "--prompt-id", `${seatId}-file`, "--json"]);
      assert.equal(fromFile.code, 0, fromFile.stdout + fromFile.stderr);
      assert.equal(fromFile.json.state, "consumed");
      const fromStdin = seatCli(
        ctx,
        ["send", seatId, "-f", "-", "--prompt-id", `${seatId}-stdin`, "--json"],
        {},
        "a brief from stdin\n",
      );
      assert.equal(fromStdin.code, 0, fromStdin.stdout + fromStdin.stderr);
      assert.equal(fromStdin.json.state, "consumed");
      const done = await waitUntil(
        "both briefs to complete",
        () => {
          const ds = statusOf(ctx, seatId).deliveries;
          return ds.length === 2 && ds.every((d: any) => d.state === "completed") ? ds : null;
        },
        { timeoutMs: 90_000 },
      );
      assert.deepEqual(done.map((d: any) => d.text).sort(), [
        "a brief from a file\nwith\ttabs and a second line\n",
        "a brief from stdin\n",
      ]);
      assert.equal(mainRequestsFor(ctx, `${seatId}-file`), 1);
      assert.equal(mainRequestsFor(ctx, `${seatId}-stdin`), 1);

      // The socket file is removed under the live connection: the path is no longer served by the proven leader.
      const { socketPath } = statusOf(ctx, seatId).leader;
      rmSync(socketPath);
      const promptId = `${seatId}-unproven`;
      const refused = seatCli(ctx, [
        "send",
        seatId,
        "a brief to an unproven socket",
        "--prompt-id",
        promptId,
        "--json",
      ]);
      assert.equal(refused.code, 6, refused.stdout);
      assert.equal(refused.json.code, "IDENTITY_MISMATCH");
      assert.match(refused.json.message, /socket-file/);
      const d = statusOf(ctx, seatId).deliveries.find((x: any) => x.promptId === promptId);
      assert.equal(d.state, "failed");
      assert.match(d.failureReason, /^never dispatched: /);
      assert.equal(mainRequestsFor(ctx, promptId), 0, "nothing reached the model");
    } finally {
      await teardown(ctx);
    }
  });

  test("a released seat's journal row edited to name another seat's live leader cannot stop it: offline release refuses and leaves that leader and its socket untouched", async (t) => {
    const ctx = await setup(0);
    if (!gotLive(t, ctx)) return;
    try {
      const a = hire(ctx);
      const b = hire(ctx);
      const sa = statusOf(ctx, a.seatId);
      const sb = statusOf(ctx, b.seatId);
      const relA = seatCli(ctx, ["release", a.seatId, "--close-pane", "--json"]);
      assert.equal(relA.code, 0, relA.stdout + relA.stderr);
      assert.equal(relA.json.leaderStopped, true);
      await waitUntil("A's controller to exit", () => !alive(a.controllerPid));
      assert.ok(!alive(sa.tui.pid));
      // The attack: A's row now names B's leader (pid, birth, socket).
      const db = new Database(join(ctx.seatHome, "seats.db"));
      db.prepare("UPDATE seats SET leader_pid = ?, leader_birth = ?, socket_path = ? WHERE seat_id = ?").run(
        sb.leader.pid,
        sb.leader.birth,
        sb.leader.socketPath,
        a.seatId,
      );
      db.close();
      const forged = seatCli(ctx, ["release", a.seatId, "--json"]);
      assert.equal(forged.code, 6, forged.stdout + forged.stderr);
      assert.equal(forged.json.code, "SEAT_RELEASE_REFUSED");
      assert.match(
        forged.json.message,
        new RegExp(`session: pid ${sb.leader.pid} is in session ${sb.tui.pid}, the original TUI is ${sa.tui.pid}`),
      );
      assert.match(forged.json.message, /socket-inode/);
      assert.ok(alive(sb.leader.pid), "B's leader was not signalled");
      assert.ok(existsSync(sb.leader.socketPath), "B's socket directory is untouched");
      const stillServes = seatCli(ctx, ["send", b.seatId, "B still works", "--json"]);
      assert.equal(stillServes.code, 0, stillServes.stdout);
      assert.equal(stillServes.json.state, "consumed", "B's leader still takes briefs");
      const relB = seatCli(ctx, ["release", b.seatId, "--close-pane", "--json"]);
      assert.equal(relB.json.leaderStopped, true);
    } finally {
      await teardown(ctx);
    }
  });

  test("a hire refused after its leader was proven (version floor) leaves nothing behind: SeatError, pane closed, leader stopped, socket directory removed, controller gone", async (t) => {
    const ctx = await setup(0);
    if (!gotLive(t, ctx)) return;
    try {
      const r = seatCli(ctx, [
        "hire",
        "--visible",
        "--grok",
        ctx.rig.binary,
        "--cwd",
        ctx.rig.sandbox.project,
        "--version-floor",
        "1.0.46",
        "--tmux-socket",
        ctx.tmux,
        "--json",
      ]);
      assert.equal(r.code, 6, r.stdout + r.stderr);
      assert.equal(r.json.code, "LEADER_VERSION_REFUSED");
      const [seatId] = readdirSync(join(ctx.seatHome, "seats"));
      const file = seatFile(ctx, seatId!);
      assert.equal(file.state, "refused");
      const db = new Database(join(ctx.seatHome, "seats.db"), { readonly: true });
      const row = db.prepare("SELECT leader_pid, tui_pid FROM seats WHERE seat_id = ?").get(seatId) as {
        leader_pid: number;
        tui_pid: number;
      };
      db.close();
      assert.ok(row.leader_pid > 0, "the leader had been proven before the refusal");
      for (const pid of [row.leader_pid, row.tui_pid, file.controller_pid]) ctx.pids.add(pid);
      await waitUntil("the controller to exit", () => !alive(file.controller_pid));
      assert.ok(!alive(row.tui_pid), "the TUI is gone");
      assert.ok(!alive(row.leader_pid), "the proven leader was stopped");
      assert.equal(existsSync(file.socket_dir), false, "the gs-* socket directory was removed");
      const panes = spawnSync("tmux", ["-L", ctx.tmux, "list-sessions"], { encoding: "utf8" });
      assert.ok(panes.status !== 0 || panes.stdout.trim() === "", `no pane is left: ${panes.stdout}`);
    } finally {
      await teardown(ctx);
    }
  });
  test("a seat whose TUI asks its owner for permission is waiting in seat ps and seat status, never answered by the seat; the owner's key in the TUI runs the command once and the seat goes on working, then idle", async (t) => {
    const ctx = await setup(0, {
      rules: [
        {
          match: "needs a shell",
          replies: [
            // grok 1.0.41 refuses run_terminal_command without `description`.
            {
              toolCalls: [
                {
                  name: "run_terminal_command",
                  arguments: { command: "echo ran >> marker-seat.txt", description: "append to marker-seat.txt" },
                },
              ],
            },
            // Slow, so the seat is seen working again after the owner's answer.
            { text: "the owner allowed it and the turn went on for a while longer", chunkDelayMs: 300 },
          ],
        },
      ],
    });
    if (!gotLive(t, ctx)) return;
    const marker = join(ctx.rig.sandbox.project, "marker-seat.txt");
    const watch = spawn(process.execPath, [MAIN, "ps", "--watch", "--json", "--interval", "0.2"], {
      env: ctx.env,
      stdio: ["ignore", "pipe", "ignore"],
    });
    let watched = "";
    watch.stdout!.on("data", (d: Buffer) => (watched += d.toString()));
    try {
      const hired = hire(ctx);
      const seatId: string = hired.seatId;
      const psItem = () => {
        const r = seatCli(ctx, ["ps", "--json"]);
        assert.equal(r.code, 0, r.stderr);
        return r.stdout
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((i: any) => i.kind === "seat" && i.id === seatId);
      };
      const promptId = `${seatId}-ask`;
      const sent = seatCli(ctx, [
        "send",
        seatId,
        "please do what needs a shell",
        "--prompt-id",
        promptId,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(sent.code, 0, sent.stderr);
      const pane = statusOf(ctx, seatId).tui.pane;
      const capture = () =>
        spawnSync("tmux", ["-L", ctx.tmux, "capture-pane", "-p", "-t", pane.paneId], { encoding: "utf8" }).stdout;
      const waiting = await waitUntil(
        "seat ps to show the seat waiting on an approval",
        () => {
          const item = psItem();
          return item?.state === "waiting" ? item : null;
        },
        { timeoutMs: 60_000 },
      ).catch((error: Error) => assert.fail(`${error.message}; the pane shows:\n${capture()}`));
      assert.equal(waiting.waitingOn, "approval");
      const status = statusOf(ctx, seatId);
      assert.deepEqual([status.attention.state, status.attention.waitingOn], ["waiting", "approval"]);
      assert.equal(status.interactions.length, 1);
      const text = seatCli(ctx, ["status", seatId]);
      assert.match(text.stdout, new RegExp(`^${seatId}  active  waiting\\(approval\\)`, "m"));
      // The seat answers nothing: still waiting a while later, and the command has not run.
      await sleep(1_500);
      assert.equal(psItem()?.state, "waiting");
      assert.equal(existsSync(marker), false, "nothing ran while the owner was asked");
      // The owner answers in the TUI: the highlighted first option is the allow.
      spawnSync("tmux", ["-L", ctx.tmux, "send-keys", "-t", pane.paneId, "Enter"]);
      const ran = await waitUntil("the allowed command to run", () => existsSync(marker), { timeoutMs: 30_000 }).catch(
        (error: Error) => assert.fail(`${error.message}; the pane shows:\n${capture()}`),
      );
      assert.ok(ran);
      const done = await waitUntil(
        "the delivery to complete",
        () => {
          const s = statusOf(ctx, seatId);
          return s.deliveries.find((d: any) => d.promptId === promptId)?.state === "completed" ? s : null;
        },
        { timeoutMs: 60_000 },
      );
      assert.equal(done.attention.state, "idle");
      assert.equal(readFileSync(marker, "utf8"), "ran\n", "the command ran exactly once");
      await waitUntil(
        "seat ps --watch to see the seat idle after working",
        () => {
          const states = watched
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l))
            .filter((c: any) => c.id === seatId)
            .map((c: any) => c.state);
          const at = states.indexOf("waiting");
          return at >= 0 && states.slice(at + 1).includes("working") && states.at(-1) === "idle" ? states : null;
        },
        { timeoutMs: 30_000 },
      ).catch((error: Error) => assert.fail(`${error.message}: ${watched}`));
      const rel = seatCli(ctx, ["release", seatId, "--close-pane", "--json"]);
      assert.equal(rel.code, 0, rel.stderr);
    } finally {
      watch.kill("SIGKILL");
      await teardown(ctx);
    }
  });
});
