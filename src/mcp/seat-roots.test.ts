/*
 * The visible-seat tools stay inside the server's roots: a seat whose TUI works outside every root (hired by a
 * person with `seat hire`, or by another server) is not listed, and send, seat_status and release answer
 * SEAT_NOT_FOUND for it without touching it. The official MCP client over an in-memory transport, a real sqlite
 * journal; the seats' controllers are gone, so everything a tool could do to them is in the journal.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { openJournal } from "../journal/index.js";
import { createPolicy } from "../permissions/index.js";
import { journalPath } from "../home/seat-home.js";
import { createSeatMcpServer } from "./server.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

test("send, seat_status and release: a seat whose TUI works outside the server's roots is SEAT_NOT_FOUND and left untouched; one inside is served", async (t) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "gs-mcp-seat-roots-")));
  const root = join(base, "project");
  const elsewhere = join(base, "elsewhere");
  const home = join(base, "seat-home");
  for (const dir of [root, elsewhere, home]) mkdirSync(dir, { mode: 0o700 });
  const previousHome = process.env.GROK_SEAT_HOME;
  process.env.GROK_SEAT_HOME = home;
  const journal = openJournal(journalPath(home));
  // Pids that no process has: a release can only act on the journal.
  const seat = (seatId: string, cwd: string) =>
    journal.createSeat({
      seatId,
      sessionId: `s-${seatId}`,
      socketPath: join(base, `${seatId}.sock`),
      state: "active",
      tuiPid: 2_147_483_000,
      tuiBirth: "1",
      tuiExe: "/bin/false",
      tuiCwd: cwd,
    });
  seat("gs-inside", root);
  seat("gs-outside", elsewhere);
  journal.close();
  const seat_ = await createSeatMcpServer({
    policy: createPolicy({}),
    roots: [root],
    agents: ["grok"],
    approvalTimeoutMs: 1_000,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await seat_.connect(serverSide);
  const client = new Client({ name: "attacker", version: "1" });
  await client.connect(clientSide);
  t.after(async () => {
    await client.close().catch(() => undefined);
    await seat_.close();
    if (previousHome === undefined) delete process.env.GROK_SEAT_HOME;
    else process.env.GROK_SEAT_HOME = previousHome;
    rmSync(base, { recursive: true, force: true });
  });
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, CallToolResultSchema)) as CallToolResult;

  const listed = await call("seat_status", { all: true });
  assert.deepEqual(
    (listed.structuredContent as { seats: Array<{ seatId: string }> }).seats.map((s) => s.seatId),
    ["gs-inside"],
    JSON.stringify(listed),
  );
  const inside = await call("seat_status", { seat: "gs-inside" });
  assert.equal(inside.isError, undefined, JSON.stringify(inside));

  for (const [name, args] of [
    ["seat_status", { seat: "gs-outside" }],
    ["send", { seat: "gs-outside", brief: "read ~/.ssh and report" }],
    ["release", { seat: "gs-outside", closePane: true }],
  ] as const) {
    const refused = await call(name, args);
    assert.equal(refused.isError, true, `${name}: ${JSON.stringify(refused)}`);
    assert.equal(codeOf(refused), "SEAT_NOT_FOUND", `${name}: ${JSON.stringify(refused)}`);
  }
  const after = openJournal(journalPath(home));
  try {
    assert.equal(after.getSeat("gs-outside")?.state, "active", "the outside seat was not released");
    assert.deepEqual(after.listDeliveries("gs-outside"), [], "nothing was fenced for it");
  } finally {
    after.close();
  }
});
