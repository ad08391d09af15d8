/*
 * A visible seat tells the person's targets, on the real grok 1.0.41 TUI in a real private tmux server, offline
 * against the mock: `seat hire --notify hook` records the name only; the seat's controller resolves it from the
 * user config (the secret from its own environment) and a loopback webhook receiver — signature and schema
 * verified — gets `waiting` while the TUI asks its owner, `done` when the delivered turn ends, and `lost` when the
 * TUI goes away without a release; each once, subject {"kind": "seat", "name": <seat id>}. An unknown name refuses
 * the hire before anything launches. A missing binary or tmux fails (gotLive), never skips.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { startNotifyReceiver, type NotifyReceiver } from "../../support/notify-receiver.js";
import { gotLive } from "../../support/requirements.js";
import { waitUntil } from "../../support/poll.js";
import { seatSync } from "../../support/seat-cli-sync.js";
import { stopVisibleSeats } from "../../support/visible-seat-cleanup.js";
import { visibleHireArgs } from "../../support/visible-hire.js";

/** A canary: the webhook's secret, only ever in a process environment. */
const SECRET = `seat-notify-canary-${randomBytes(8).toString("hex")}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Ctx {
  rig: LiveRig;
  receiver: NotifyReceiver;
  tmux: string;
  seatHome: string;
  env: NodeJS.ProcessEnv;
  pids: Set<number>;
}

function seatCli(
  ctx: Ctx,
  args: string[],
  hooked = false,
): { code: number; stdout: string; stderr: string; json: any } {
  return seatSync(ctx.env, args, hooked ? { extraEnv: { GROK_SEAT_TEST_HOOKS: "notify-no-coalesce" } } : {});
}

async function setup(): Promise<Ctx | string> {
  if (!(await isTmuxAvailable())) return "tmux (not found on PATH)";
  const rig = await startLiveRig({
    rules: [
      {
        match: "needs a shell",
        replies: [
          {
            toolCalls: [
              {
                name: "run_terminal_command",
                arguments: { command: "echo ran >> marker-notify.txt", description: "append to marker-notify.txt" },
              },
            ],
          },
          { text: "the owner allowed it" },
        ],
      },
    ],
  });
  if (typeof rig === "string") return rig;
  const receiver = await startNotifyReceiver(SECRET);
  const xdg = join(rig.sandbox.root, "xdg");
  mkdirSync(join(xdg, "grok-seat"), { recursive: true });
  writeFileSync(
    join(xdg, "grok-seat", "config.json"),
    JSON.stringify({
      notify: { targets: { hook: { type: "webhook", url: `${receiver.url}/hook`, secretEnv: "SEAT_HOOK_SECRET" } } },
    }),
  );
  const seatHome = join(rig.sandbox.root, "sh");
  const env = {
    ...rig.sandbox.env,
    GROK_SEAT_HOME: seatHome,
    XDG_CONFIG_HOME: xdg,
    SEAT_HOOK_SECRET: SECRET,
    TERM: "xterm-256color",
    GROK_SEAT_VERSION_FLOOR: "",
  };
  return { rig, receiver, tmux: `gs-${randomBytes(4).toString("hex")}`, seatHome, env, pids: new Set() };
}

async function teardown(ctx: Ctx): Promise<void> {
  await stopVisibleSeats(ctx);
  await ctx.receiver.close();
  await ctx.rig.close();
}

const hireArgs = (ctx: Ctx, ...more: string[]) => visibleHireArgs(ctx.rig, ctx.tmux, ...more);

/** Accepted events about `seatId`, oldest first. */
function eventsOf(ctx: Ctx, seatId: string): any[] {
  return [...ctx.receiver.accepted.values()].filter(
    (e: any) => e.subject?.kind === "seat" && e.subject.name === seatId,
  );
}

describe("a visible seat notifies", { concurrency: false }, () => {
  test("seat hire --notify hook: waiting while the TUI asks its owner, done when the delivered turn ends, lost when its TUI goes — each once, signed, names only recorded, the secret in no file", async (t) => {
    const ctx = await setup();
    if (!gotLive(t, ctx)) return;
    try {
      const refused = seatCli(ctx, hireArgs(ctx, "--notify", "nosuch"));
      assert.equal(refused.code, 2, `an unknown target is a usage error: ${refused.stdout} ${refused.stderr}`);
      assert.match(refused.stdout + refused.stderr, /NOTIFY_TARGET_UNKNOWN/);
      assert.equal(existsSync(join(ctx.seatHome, "seats")), false, "nothing was launched for a refused hire");

      const hired = seatCli(ctx, hireArgs(ctx, "--notify", "hook"), true);
      assert.equal(hired.code, 0, `hire failed: ${hired.stdout} ${hired.stderr}`);
      const seatId: string = hired.json.seatId;
      ctx.pids.add(hired.json.controllerPid);
      const hireJson = readFileSync(join(ctx.seatHome, "seats", seatId, "hire.json"), "utf8");
      const recorded = JSON.parse(hireJson);
      assert.deepEqual(recorded.notify, ["hook"], "the target is recorded by name");
      assert.deepEqual(recorded.notifySecretEnvNames, ["SEAT_HOOK_SECRET"]);
      assert.ok(!hireJson.includes(ctx.receiver.url), "no URL is recorded with the seat");
      assert.ok(!hireJson.includes(SECRET), "no secret is recorded with the seat");

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
      const status = seatCli(ctx, ["status", seatId, "--json"]).json;
      const pane = status.tui.pane;
      // The notify secret is the controller's alone: neither the TUI nor its leader has it in its environment.
      for (const pid of [status.tui.pid, status.leader.pid]) {
        const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
        assert.ok(
          !environ.includes(SECRET) && !environ.includes("SEAT_HOOK_SECRET"),
          `pid ${pid} has no notify secret`,
        );
      }
      const controllerEnviron = readFileSync(`/proc/${hired.json.controllerPid}/environ`, "utf8");
      assert.ok(controllerEnviron.includes(`SEAT_HOOK_SECRET=${SECRET}`), "the controller has it, by its variable");
      const capture = () =>
        spawnSync("tmux", ["-L", ctx.tmux, "capture-pane", "-p", "-t", pane.paneId], { encoding: "utf8" }).stdout;
      const waiting = await waitUntil(
        "the webhook to receive waiting",
        () => eventsOf(ctx, seatId).find((e) => e.event === "waiting"),
        { timeoutMs: 60_000 },
      ).catch((error: Error) => assert.fail(`${error.message}; the pane shows:\n${capture()}`));
      assert.match(waiting.text, /waits for you in its TUI: a permission request/);
      assert.equal(
        existsSync(join(ctx.rig.sandbox.project, "marker-notify.txt")),
        false,
        "nothing answered for the owner",
      );
      // The owner answers in the TUI; the turn ends and is told.
      spawnSync("tmux", ["-L", ctx.tmux, "send-keys", "-t", pane.paneId, "Enter"]);
      const done = await waitUntil(
        "the webhook to receive done",
        () => eventsOf(ctx, seatId).find((e) => e.event === "done"),
        { timeoutMs: 60_000 },
      ).catch((error: Error) => assert.fail(`${error.message}; the pane shows:\n${capture()}`));
      assert.match(done.text, new RegExp(`finished the turn of delivery ${promptId}`));

      // The TUI goes away without a release: the seat is lost, told once.
      spawnSync("tmux", ["-L", ctx.tmux, "kill-server"]);
      const lost = await waitUntil(
        "the webhook to receive lost",
        () => eventsOf(ctx, seatId).find((e) => e.event === "lost"),
        { timeoutMs: 30_000 },
      );
      assert.match(lost.text, /lost its TUI/);
      await sleep(1_000);
      const told = eventsOf(ctx, seatId).map((e) => e.event);
      assert.deepEqual(told, ["waiting", "done", "lost"], "each change told once, in order");
      for (const r of ctx.receiver.requests) {
        assert.equal(r.refused, undefined, `the receiver refused a request: ${r.refused}`);
        assert.ok(!r.body.includes(SECRET), "the secret is never in a payload");
      }
      const log = readFileSync(join(ctx.seatHome, "seats", seatId, "controller.log"), "utf8");
      assert.ok(!log.includes(SECRET), "the secret is never in the controller's log");
    } finally {
      await teardown(ctx);
    }
  });
});
