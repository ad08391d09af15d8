/*
 * A host that cancels `hire_visible` while the hire runs never learns the seat's id: the server finishes the hire
 * (a half-made seat is worse) and then releases the seat with its pane closed, so no TUI, leader or controller is
 * left behind for nobody. The real grok 1.0.41 TUI in a real private tmux server, offline against the mock model,
 * driven by the official MCP Client over stdio; the seat's state read from the real sqlite journal.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { SEAT_MAIN } from "../support/cli.js";
import { need, needGrok, tmuxMissing } from "../support/requirements.js";
import { startLiveRig } from "../support/live-rig.js";
import { alive } from "../support/processes.js";

type SeatRow = { seat_id: string; state: string; tui_pid: number | null; leader_pid: number | null };

function seats(home: string): SeatRow[] {
  if (!existsSync(join(home, "seats.db"))) return [];
  const db = new Database(join(home, "seats.db"), { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT seat_id, state, tui_pid, leader_pid FROM seats").all() as SeatRow[];
  } catch {
    return []; // the schema is still being made
  } finally {
    db.close();
  }
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test("hire_visible cancelled mid-hire: the seat is finished, then released with its pane closed; no TUI, leader or controller is left", async (t) => {
  if (!need(t, tmuxMissing())) return;
  const rig = await startLiveRig({});
  if (typeof rig === "string") assert.fail(`the real grok binary is required: ${rig}`);
  needGrok(t, false);
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const pids = new Set<number>();
  const controllerPids = () => {
    const found: number[] = [];
    for (const dir of existsSync(join(seatHome, "seats")) ? readdirSync(join(seatHome, "seats")) : []) {
      try {
        const file = JSON.parse(readFileSync(join(seatHome, "seats", dir, "seat.json"), "utf8")) as { controller_pid?: number };
        if (file.controller_pid) found.push(file.controller_pid);
      } catch {
        // no seat file yet
      }
    }
    return found;
  };
  t.after(async () => {
    for (const pid of controllerPids()) pids.add(pid);
    spawnSync("tmux", ["-L", tmux, "kill-server"]);
    for (const pid of pids) if (pid && alive(pid)) process.kill(pid, "SIGKILL");
    await rig.close();
  });
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...rig.sandbox.env, GROK_SEAT_HOME: seatHome, TERM: "xterm-256color", GROK_SEAT_VERSION_FLOOR: "" };
  const transport = new StdioClientTransport({ command: process.execPath, args: [SEAT_MAIN, "mcp", "--root", rig.sandbox.project, "--grok", rig.binary, "--version-floor", "1.0.41", "--tmux-socket", tmux], env, stderr: "pipe" });
  const client = new Client({ name: "impatient-host", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());

  const abort = new AbortController();
  const pending = client.callTool({ name: "hire_visible", arguments: {} }, CallToolResultSchema, { timeout: 120_000, signal: abort.signal }).then(
    () => "answered",
    () => "cancelled",
  );
  await until("the hire to start (its seat row)", () => seats(seatHome).length > 0, 60_000);
  abort.abort(); // the client sends notifications/cancelled
  assert.equal(await pending, "cancelled");

  await until("the seat to be hired and then released", () => seats(seatHome)[0]?.state === "released", 90_000);
  const [seat] = seats(seatHome);
  assert.ok(seat?.tui_pid, "positive control: the hire got as far as a TUI");
  for (const pid of [seat!.tui_pid, seat!.leader_pid, ...controllerPids()]) if (pid) pids.add(pid);
  await until("the TUI, leader and controller to exit", () => [...pids].every((pid) => !alive(pid)), 30_000);
  const panes = spawnSync("tmux", ["-L", tmux, "list-panes", "-a"], { encoding: "utf8" });
  assert.equal(panes.stdout.trim(), "", "no pane is left on the seat's tmux server");

  // The server is still there for the next call.
  assert.ok(Array.isArray((await client.listTools()).tools));
});
