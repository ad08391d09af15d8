/*
 * Seats that come back after a reboot, on the real grok 1.0.41 TUI in a real private tmux server, offline against
 * the mock: hire, one turn, then a simulated reboot (the tmux server killed with everything in it, and every
 * process of the seat SIGKILLed). `seat ps` shows the seat lost; `seat restore` brings it back under the same id
 * with its grok session resumed, and a second turn's model request carries the first turn's answer. Nothing is
 * re-sent: the mock sees each brief once. A missing binary or tmux fails (gotLive), never skips.
 */
import { describe, test } from "node:test";
import { spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { alive } from "../../support/processes.js";
import { gotLive } from "../../support/requirements.js";
import { waitUntil } from "../../support/poll.js";
import { seatSync } from "../../support/seat-cli-sync.js";
import { stopVisibleSeats } from "../../support/visible-seat-cleanup.js";
import { visibleHireArgs } from "../../support/visible-hire.js";

interface Ctx {
  rig: LiveRig;
  tmux: string;
  seatHome: string;
  env: NodeJS.ProcessEnv;
  pids: Set<number>;
}

function seatCli(ctx: Ctx, args: string[]): { code: number; stdout: string; stderr: string; json: any; lines: any[] } {
  const r = seatSync(ctx.env, args, { timeoutMs: 150_000 });
  const lines = r.lines;
  return { code: r.code, stdout: r.stdout, stderr: r.stderr, json: lines.at(-1) ?? null, lines };
}

async function setup(): Promise<Ctx | string> {
  if (!(await isTmuxAvailable())) return "tmux (not found on PATH)";
  const rig = await startLiveRig({
    rules: [
      { match: "remember the code word", replies: [{ text: "noted: the code word is PLUM-7731" }] },
      { match: "which code word", replies: [{ text: "the code word was PLUM-7731" }] },
    ],
  });
  if (typeof rig === "string") return rig;
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  return {
    rig,
    tmux,
    seatHome,
    env: { ...rig.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" },
    pids: new Set(),
  };
}

/** Every process of the seat now: controller, TUI, leader (from status and the lock file). */
function seatPids(ctx: Ctx, seatId: string): number[] {
  const status = seatCli(ctx, ["status", seatId, "--json"]).json;
  const file = JSON.parse(readFileSync(join(ctx.seatHome, "seats", seatId, "seat.json"), "utf8"));
  const lock = join(file.socket_dir ?? "/nonexistent", "s.lock");
  const pids = [
    status?.tui?.pid,
    status?.leader?.pid,
    status?.controller?.pid,
    file.controller_pid,
    existsSync(lock) ? Number(readFileSync(lock, "utf8").trim()) : undefined,
  ];
  return pids.filter((p): p is number => typeof p === "number" && p > 0);
}

async function teardown(ctx: Ctx): Promise<void> {
  for (const dir of existsSync(join(ctx.seatHome, "seats")) ? readdirSync(join(ctx.seatHome, "seats")) : []) {
    try {
      for (const pid of seatPids(ctx, dir)) ctx.pids.add(pid);
    } catch {
      /* no seat file */
    }
  }
  await stopVisibleSeats(ctx);
  await ctx.rig.close();
}

/** Everything grok saved of session `id` (its chat history files under GROK_HOME/sessions/<cwd>/<id>/). */
function savedHistory(ctx: Ctx, id: string): string {
  const root = join(ctx.rig.sandbox.grokHome, "sessions");
  let text = "";
  for (const cwd of existsSync(root) ? readdirSync(root) : []) {
    const file = join(root, cwd, id, "chat_history.jsonl");
    if (existsSync(file)) text += readFileSync(file, "utf8");
  }
  return text;
}

function mainQueries(ctx: Ctx, text: string): Array<{ body: unknown }> {
  return ctx.rig.mock.requests.filter(
    (r) => r.kind === "main" && typeof r.query === "string" && r.query.includes(text),
  ) as Array<{ body: unknown }>;
}

describe("seat restore on the real grok TUI in tmux", { concurrency: false }, () => {
  test("a simulated reboot: seat ps shows the seat lost, seat restore resumes its grok session under the same id, and the next turn's model request carries the first turn's answer", async (t) => {
    const ctx = await setup();
    if (!gotLive(t, ctx)) return;
    try {
      const hired = seatCli(ctx, visibleHireArgs(ctx.rig, ctx.tmux));
      assert.equal(hired.code, 0, `hire failed: ${hired.stdout} ${hired.stderr}`);
      const seatId: string = hired.json.seatId;
      const sessionId: string = hired.json.sessionId;
      const first = seatCli(ctx, [
        "send",
        seatId,
        "please remember the code word",
        "--prompt-id",
        `${seatId}-A`,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(first.code, 0, first.stderr);
      await waitUntil(
        "the first turn to complete",
        () =>
          seatCli(ctx, ["status", seatId, "--json"]).json?.deliveries?.find(
            (d: any) => d.promptId === `${seatId}-A` && d.state === "completed",
          ),
        { timeoutMs: 60_000, everyMs: 200 },
      );
      // grok writes its conversation to disk after the turn: a reboot before that write would resume without the
      // answer, so the simulated one comes once grok's own history has it (a loaded machine delays the write).
      await waitUntil(
        "grok to save the first turn's answer",
        () => savedHistory(ctx, sessionId).includes("PLUM-7731"),
        { timeoutMs: 30_000, everyMs: 200 },
      );
      // The reboot: tmux dies with everything in it, and every process of the seat is SIGKILLed.
      const before = seatPids(ctx, seatId);
      for (const pid of before) ctx.pids.add(pid);
      spawnSync("tmux", ["-L", ctx.tmux, "kill-server"]);
      for (const pid of before)
        if (alive(pid))
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            /* gone */
          }
      await waitUntil("every process of the seat to be gone", () => before.every((pid) => !alive(pid)), {
        timeoutMs: 10_000,
        everyMs: 200,
      });

      const ps = seatCli(ctx, ["ps", "--json"]);
      assert.equal(ps.code, 0, ps.stderr);
      const listed = ps.lines.find((l) => l.kind === "seat" && l.id === seatId);
      assert.equal(listed?.state, "lost", ps.stdout);

      const restored = seatCli(ctx, ["restore", seatId, "--json"]);
      assert.equal(restored.code, 0, `restore failed: ${restored.stdout} ${restored.stderr}`);
      assert.deepEqual(
        { type: restored.json.type, id: restored.json.id, sessionId: restored.json.sessionId },
        { type: "restored", id: seatId, sessionId },
      );
      for (const pid of seatPids(ctx, seatId)) ctx.pids.add(pid);
      const again = seatCli(ctx, ["restore", seatId, "--json"]);
      assert.equal(again.code, 1, "a live seat is not restored twice");
      assert.equal(again.json.code, "SEAT_NOT_LOST");

      const second = seatCli(ctx, [
        "send",
        seatId,
        "which code word did I give you",
        "--prompt-id",
        `${seatId}-B`,
        "--wait",
        "consumed",
        "--json",
      ]);
      assert.equal(second.code, 0, second.stderr);
      await waitUntil(
        "the second turn to complete",
        () =>
          seatCli(ctx, ["status", seatId, "--json"]).json?.deliveries?.find(
            (d: any) => d.promptId === `${seatId}-B` && d.state === "completed",
          ),
        { timeoutMs: 60_000, everyMs: 200 },
      );
      const asked = mainQueries(ctx, "which code word");
      assert.ok(asked.length >= 1, "the second brief reached the model");
      assert.match(
        JSON.stringify(asked[0]!.body),
        /noted: the code word is PLUM-7731/,
        "the model saw the earlier conversation",
      );
      // Nothing re-sent: the first brief reached the model as a query once (its own turn), the second once.
      assert.equal(
        ctx.rig.mock.requests.filter((r) => r.kind === "main" && r.query?.includes("please remember the code word"))
          .length,
        1,
      );
      const deliveries = seatCli(ctx, ["status", seatId, "--json"]).json.deliveries.map((d: any) => d.promptId);
      assert.deepEqual(deliveries, [`${seatId}-A`, `${seatId}-B`], "the journal shows both turns once");
    } finally {
      await teardown(ctx);
    }
  });
});
