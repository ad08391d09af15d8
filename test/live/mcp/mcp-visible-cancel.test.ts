/*
 * A host that cancels `hire_visible` (or goes away) while the hire runs never learns the seat's id: the server
 * finishes the hire (a half-made seat is worse) and then releases the seat with its pane closed, so no TUI, leader
 * or controller is left behind for nobody. A host that goes away while `send` follows a delivery does not keep the
 * server alive until the follow's timeout. The real grok 1.0.41 TUI in a real private tmux server, offline against the mock model,
 * driven by the official MCP Client over stdio; the seat's state read from the real sqlite journal.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import Database from "better-sqlite3";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { CallToolResultSchema, type CallToolResult, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { SEAT_MAIN } from "../../support/cli.js";
import { need, needGrok, tmuxMissing } from "../../support/requirements.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { alive } from "../../support/processes.js";
import type { MockScript } from "../../../src/mock-model/index.js";
import { stopVisibleSeats } from "../../support/visible-seat-cleanup.js";

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

/**
 * The client side of stdio over a server process we spawned ourselves: unlike the SDK's StdioClientTransport,
 * whose close() signals and then kills the server, goneHost() only closes its stdin — a host that simply left.
 */
class PipeTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  constructor(readonly child: ChildProcess) {}
  async start(): Promise<void> {
    this.child.stdout!.on("data", (chunk: Buffer) => {
      this.#buffer.append(chunk);
      for (let message = this.#buffer.readMessage(); message !== null; message = this.#buffer.readMessage())
        this.onmessage?.(message);
    });
    this.child.once("close", () => this.onclose?.());
    this.child.stdin!.on("error", () => undefined);
  }
  async send(message: JSONRPCMessage): Promise<void> {
    this.child.stdin!.write(serializeMessage(message));
  }
  async close(): Promise<void> {
    this.goneHost();
  }
  goneHost(): void {
    this.child.stdin!.end();
  }
}

interface VisibleServer {
  rig: LiveRig;
  seatHome: string;
  tmux: string;
  client: Client;
  transport: PipeTransport;
  serverPid: number;
  /** Processes to be sure are gone at the end (seat processes found on the way). */
  pids: Set<number>;
  controllerPids(): number[];
}

/** `seat mcp` for visible seats on a private tmux server, connected as a host would; everything is killed after. */
async function visibleServer(t: TestContext, script: MockScript = {}): Promise<VisibleServer | undefined> {
  if (!need(t, tmuxMissing())) return undefined;
  const rig = await startLiveRig(script);
  if (typeof rig === "string") assert.fail(`the real grok binary is required: ${rig}`);
  needGrok(t, false);
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-${randomBytes(4).toString("hex")}`;
  const pids = new Set<number>();
  const controllerPids = () => {
    const found: number[] = [];
    for (const dir of existsSync(join(seatHome, "seats")) ? readdirSync(join(seatHome, "seats")) : []) {
      try {
        const file = JSON.parse(readFileSync(join(seatHome, "seats", dir, "seat.json"), "utf8")) as {
          controller_pid?: number;
        };
        if (file.controller_pid) found.push(file.controller_pid);
      } catch {
        // no seat file yet
      }
    }
    return found;
  };
  t.after(async () => {
    for (const pid of controllerPids()) pids.add(pid);
    for (const seat of seats(seatHome)) for (const pid of [seat.tui_pid, seat.leader_pid]) if (pid) pids.add(pid);
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
  const child = spawn(
    process.execPath,
    [
      SEAT_MAIN,
      "mcp",
      "--root",
      rig.sandbox.project,
      "--grok",
      rig.binary,
      "--version-floor",
      "1.0.41",
      "--tmux-socket",
      tmux,
    ],
    { env, stdio: ["pipe", "pipe", "ignore"] },
  );
  pids.add(child.pid!);
  const transport = new PipeTransport(child);
  const client = new Client({ name: "impatient-host", version: "1.0.0" });
  await client.connect(transport);
  t.after(() => client.close());
  return { rig, seatHome, tmux, client, transport, serverPid: child.pid!, pids, controllerPids };
}

/** Waits until the seat is released and its TUI, leader and controller have exited, and no pane is left. */
async function assertSeatGone(v: VisibleServer): Promise<void> {
  await until("the seat to be hired and then released", () => seats(v.seatHome)[0]?.state === "released", 90_000);
  const [seat] = seats(v.seatHome);
  assert.ok(seat?.tui_pid, "positive control: the hire got as far as a TUI");
  const seatPids = [seat!.tui_pid, seat!.leader_pid, ...v.controllerPids()].filter(
    (pid): pid is number => typeof pid === "number" && pid > 0,
  );
  for (const pid of seatPids) v.pids.add(pid);
  await until("the TUI, leader and controller to exit", () => seatPids.every((pid) => !alive(pid)), 30_000);
  const panes = spawnSync("tmux", ["-L", v.tmux, "list-panes", "-a"], { encoding: "utf8" });
  assert.equal(panes.stdout.trim(), "", "no pane is left on the seat's tmux server");
}

test("hire_visible cancelled mid-hire: the seat is finished, then released with its pane closed; no TUI, leader or controller is left", async (t) => {
  const v = await visibleServer(t);
  if (!v) return;
  const abort = new AbortController();
  const pending = v.client
    .callTool({ name: "hire_visible", arguments: {} }, CallToolResultSchema, { timeout: 120_000, signal: abort.signal })
    .then(
      () => "answered",
      () => "cancelled",
    );
  await until("the hire to start (its seat row)", () => seats(v.seatHome).length > 0, 60_000);
  abort.abort(); // the client sends notifications/cancelled
  assert.equal(await pending, "cancelled");
  await assertSeatGone(v);
  // The server is still there for the next call.
  assert.ok(Array.isArray((await v.client.listTools()).tools));
});

test("a host that goes away mid-hire: the server finishes the hire, releases the seat with its pane closed, and exits; nothing is left", async (t) => {
  const v = await visibleServer(t);
  if (!v) return;
  const pending = v.client
    .callTool({ name: "hire_visible", arguments: {} }, CallToolResultSchema, { timeout: 120_000 })
    .catch((error: unknown) => error);
  await until("the hire to start (its seat row)", () => seats(v.seatHome).length > 0, 60_000);
  v.transport.goneHost(); // stdin closes: the host is gone
  await until("the server to exit", () => !alive(v.serverPid), 90_000);
  await pending;
  await assertSeatGone(v);
});

test("a host that goes away while send follows a delivery: the server exits at once (not after the follow's timeout); the brief was delivered once", async (t) => {
  const v = await visibleServer(t, { rules: [{ match: "a long brief", replies: [{ hang: true }] }] });
  if (!v) return;
  const hired = (await v.client.callTool({ name: "hire_visible", arguments: {} }, CallToolResultSchema, {
    timeout: 120_000,
  })) as CallToolResult;
  assert.equal(hired.isError, undefined, JSON.stringify(hired));
  const pending = v.client
    .callTool(
      {
        name: "send",
        arguments: {
          seat: (hired.structuredContent as { seatId: string }).seatId,
          brief: "a long brief to follow",
          wait: "completed",
          timeoutSeconds: 600,
        },
      },
      CallToolResultSchema,
      { timeout: 700_000 },
    )
    .catch((error: unknown) => error);
  await until("the brief to reach the model", () => v.rig.mock.requests.some((q) => q.kind === "main"), 60_000);
  v.transport.goneHost();
  await until("the server to exit", () => !alive(v.serverPid), 20_000);
  await pending;
  assert.equal(v.rig.mock.requests.filter((q) => q.kind === "main").length, 1, "the brief reached the model once");
});
