/*
 * Live visible seat: the real grok 1.0.41 TUI in a real private tmux server, offline against the mock
 * model, driven only through the built `seat` CLI (hire → send → status → release) and its detached
 * per-seat controller. The version floor is lowered explicitly to 1.0.41 (below the verified 1.0.46).
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { isTmuxAvailable } from "../../src/mux/index.js";
import { startLiveRig, type LiveRig } from "../support/live-rig.js";
import { alive } from "../support/processes.js";
import { gotLive } from "../support/requirements.js";

const MAIN = join(process.cwd(), "dist", "src", "cli", "main.js");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx { rig: LiveRig; tmux: string; seatHome: string; env: NodeJS.ProcessEnv; pids: Set<number> }

function seatCli(ctx: Ctx, args: string[], extraEnv: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string; json: any } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env: { ...ctx.env, ...extraEnv }, encoding: "utf8", timeout: 120_000 });
  const line = r.stdout.trim().split("\n").filter(Boolean).pop() ?? "";
  let json: any = null;
  try { json = JSON.parse(line); } catch { /* text output */ }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

async function waitUntil<T>(what: string, fn: () => T | Promise<T>, timeoutMs = 30_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(150);
  }
}

function statusOf(ctx: Ctx, seatId: string): any {
  const r = seatCli(ctx, ["status", seatId, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  return r.json;
}

function seatFile(ctx: Ctx, seatId: string): any {
  return JSON.parse(readFileSync(join(ctx.seatHome, "seats", seatId, "seat.json"), "utf8"));
}

async function setup(chunkDelayMs: number): Promise<Ctx | string> {
  if (!(await isTmuxAvailable())) return "tmux (not found on PATH)";
  const rig = await startLiveRig({ chunkDelayMs });
  if (typeof rig === "string") return rig;
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const env = { ...rig.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" };
  return { rig, tmux, seatHome, env, pids: new Set() };
}

function hire(ctx: Ctx, extraEnv: NodeJS.ProcessEnv = {}): any {
  const r = seatCli(ctx, ["hire", "--visible", "--grok", ctx.rig.binary, "--cwd", ctx.rig.sandbox.project, "--version-floor", "1.0.41", "--tmux-socket", ctx.tmux, "--json"], extraEnv);
  assert.equal(r.code, 0, `hire failed: ${r.stdout} ${r.stderr}`);
  assert.equal(r.json.type, "hired");
  const seat = statusOf(ctx, r.json.seatId);
  for (const pid of [seat.tui?.pid, seat.leader?.pid, seat.controller?.pid, r.json.controllerPid]) if (pid) ctx.pids.add(pid);
  return r.json;
}

async function teardown(ctx: Ctx): Promise<void> {
  // Everything this test started: the controller, the TUI and its leader (own process group), tmux.
  for (const dir of existsSync(join(ctx.seatHome, "seats")) ? readdirSync(join(ctx.seatHome, "seats")) : []) {
    try {
      const file = seatFile(ctx, dir);
      ctx.pids.add(file.controller_pid);
      const lock = join(file.socket_dir ?? "/nonexistent", "s.lock");
      if (existsSync(lock)) ctx.pids.add(Number(readFileSync(lock, "utf8").trim()));
    } catch { /* no seat file */ }
  }
  spawnSync("tmux", ["-L", ctx.tmux, "kill-server"]);
  for (const pid of ctx.pids) if (pid && alive(pid)) try { process.kill(pid, "SIGKILL"); } catch { /* gone */ }
  // The TUI exits on tmux's SIGHUP and still writes into GROK_HOME while it goes: wait for every process
  // before the sandbox is removed, or the removal races those writes.
  for (let i = 0; i < 100 && [...ctx.pids].some((pid) => pid && alive(pid)); i += 1) await new Promise((r) => setTimeout(r, 50));
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

      const a = seatCli(ctx, ["send", seatId, "first brief from the seat", "--prompt-id", `${seatId}-A`, "--wait", "consumed", "--json"]);
      assert.equal(a.code, 0, a.stderr);
      assert.equal(a.json.state, "consumed");
      const b = seatCli(ctx, ["send", seatId, "second brief from the seat", "--prompt-id", `${seatId}-B`, "--wait", "consumed", "--json"]);
      assert.equal(b.code, 0, b.stderr);
      assert.equal(b.json.state, "consumed");
      // B was acknowledged as a queue entry while A was the running prompt.
      const bConsumed = b.json.evidence.find((e: any) => e.kind === "consumed");
      assert.equal(bConsumed.detail, "queue entry");

      const pane = statusOf(ctx, seatId).tui.pane;
      const screen = await waitUntil("the TUI to show the brief", () => {
        const cap = spawnSync("tmux", ["-L", ctx.tmux, "capture-pane", "-p", "-t", pane.paneId], { encoding: "utf8" }).stdout;
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
      const sender = spawn(process.execPath, [MAIN, "send", seatId, "held brief", "--prompt-id", promptId, "--json"], { env: ctx.env, stdio: "ignore" });
      const exited = new Promise<number | null>((r) => sender.on("exit", (code) => r(code)));
      await waitUntil("the fence to be held", () => existsSync(join(ctx.seatHome, "seats", seatId, `held-${promptId}`)));
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
      const sent = seatCli(ctx, ["send", seatId, "slow brief", "--prompt-id", promptId, "--wait", "consumed", "--json"]);
      assert.equal(sent.json.state, "consumed");
      process.kill(hired.controllerPid, "SIGKILL");
      await waitUntil("the controller to die", () => !alive(hired.controllerPid));
      const first = statusOf(ctx, seatId);
      assert.deepEqual(first.recovered.uncertain, [promptId]);
      const late = await waitUntil("late evidence to complete the delivery", () => {
        const d = statusOf(ctx, seatId).deliveries.find((x: any) => x.promptId === promptId);
        return d.state === "completed" ? d : null;
      }, 60_000);
      const completed = late.evidence.find((e: any) => e.kind === "completed");
      assert.match(completed.source, /grok session file/);
      assert.equal(completed.sessionId, hired.sessionId);
      assert.ok(late.evidence.some((e: any) => e.kind === "note" && e.source === "recovery"), "the recovery note stays on the original receipt");
      assert.equal(mainRequestsFor(ctx, promptId), 1, "the brief reached the model once and was never re-sent");
      assert.equal(statusOf(ctx, seatId).deliveries.length, 1, "evidence created no new delivery");
      const rel = seatCli(ctx, ["release", seatId, "--close-pane", "--json"]);
      assert.equal(rel.code, 0, rel.stderr);
      assert.equal(rel.json.leaderStopped, true);
    } finally {
      await teardown(ctx);
    }
  });
});
