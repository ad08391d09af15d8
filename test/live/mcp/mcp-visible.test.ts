/*
 * `seat mcp` visible-seat tools on the real grok 1.0.41 TUI in a real private tmux server, offline against the
 * mock model, driven by the official MCP Client over stdio: hire_visible → send (fenced, consumed, then completed
 * with the echo) → seat_status (live from the controller) → release (the proven leader stopped), and the refusals.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { need, needGrok, tmuxMissing } from "../../support/requirements.js";
import { startLiveRig } from "../../support/live-rig.js";
import { connectSeatMcp } from "../../support/seat-mcp-client.js";
import { stopVisibleSeats } from "../../support/visible-seat-cleanup.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("hire_visible, send, seat_status and release drive a real grok TUI with the fence, echo and proof of the CLI; bad seats and briefs are coded refusals", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const rig = await startLiveRig({ chunkDelayMs: 300 });
  if (typeof rig === "string") assert.fail(`the real grok binary is required: ${rig}`);
  needGrok(t, false);
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const pids = new Set<number>();
  t.after(async () => {
    await stopVisibleSeats({ seatHome, tmux, pids });
    await rig.close();
  });
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...rig.sandbox.env,
    GROK_SEAT_HOME: seatHome,
    TERM: "xterm-256color",
    GROK_SEAT_VERSION_FLOOR: "",
  };
  const { call } = await connectSeatMcp(
    t,
    ["--root", rig.sandbox.project, "--grok", rig.binary, "--version-floor", "1.0.41", "--tmux-socket", tmux],
    { env, callTimeoutMs: 120_000 },
  );

  assert.equal(codeOf(await call("hire_visible", { cwd: rig.sandbox.root })), "MCP_CWD_OUTSIDE_ROOTS");
  const hired = await call("hire_visible", {});
  assert.equal(hired.isError, undefined, JSON.stringify(hired));
  const seatId = (hired.structuredContent as { seatId: string }).seatId;
  const controllerPid = (hired.structuredContent as { controllerPid?: number }).controllerPid;
  if (controllerPid) pids.add(controllerPid);

  const status = await call("seat_status", { seat: seatId });
  const live = (
    status.structuredContent as {
      seats: Array<{ source: string; tui?: { state: string; pid?: number }; leader?: { pid?: number } }>;
    }
  ).seats[0]!;
  assert.equal(live.source, "controller");
  assert.equal(live.tui?.state, "running");
  for (const pid of [live.tui?.pid, live.leader?.pid]) if (pid) pids.add(pid);

  const sent = await call("send", {
    seat: seatId,
    brief: "a brief from an MCP host",
    wait: "completed",
    timeoutSeconds: 90,
  });
  assert.equal(sent.isError, undefined, JSON.stringify(sent));
  const delivery = (sent.structuredContent as { delivery: { promptId: string; state: string } }).delivery;
  assert.equal(delivery.state, "completed");
  assert.equal(
    rig.mock.requests.filter((q) => q.kind === "main" && q.reqId === delivery.promptId).length,
    1,
    "the brief reached the model once, with its own prompt id",
  );

  assert.equal(codeOf(await call("send", { seat: "../x", brief: "hi" })), "MCP_ARGUMENT_INVALID");
  assert.equal(codeOf(await call("send", { seat: "gs-00000000", brief: "hi" })), "SEAT_NOT_FOUND");
  assert.equal(codeOf(await call("send", { seat: seatId, brief: "  \u0007 " })), "SEAT_BRIEF_INVALID");

  const released = await call("release", { seat: seatId, closePane: true });
  assert.equal(released.isError, undefined, JSON.stringify(released));
  assert.equal((released.structuredContent as { release: { leaderStopped?: boolean } }).release.leaderStopped, true);
  const after = await call("seat_status", { seat: seatId });
  assert.equal(
    (after.structuredContent as { seats: Array<{ seat?: { state: string } }> }).seats[0]?.seat?.state,
    "released",
  );
});
