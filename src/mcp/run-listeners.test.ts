/*
 * A long-lived `seat mcp` takes many `run` calls: each call's hold on the server's shutdown signal ends with the
 * call, so nothing piles up on it (no MaxListenersExceededWarning, which the CLI would print on stderr). The
 * official MCP client over an in-memory transport; every turn fails to start fast (the grok binary is missing).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPolicy } from "../permissions/index.js";
import { createSeatMcpServer } from "./server.js";

test("run: fifteen calls in a row leave no listener behind on the server's shutdown signal (no MaxListenersExceededWarning)", async (t) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "gs-mcp-listeners-")));
  const root = join(base, "project");
  mkdirSync(root);
  const previousHome = process.env.GROK_SEAT_HOME;
  process.env.GROK_SEAT_HOME = join(base, "seat-home");
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  const server = await createSeatMcpServer({
    policy: createPolicy({}),
    roots: [root],
    agents: ["grok"],
    approvalTimeoutMs: 1_000,
    grokCliBinaryPath: join(base, "no-such-grok"),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "busy-host", version: "1" });
  await client.connect(clientSide);
  t.after(async () => {
    process.off("warning", onWarning);
    await client.close().catch(() => undefined);
    await server.close();
    if (previousHome === undefined) delete process.env.GROK_SEAT_HOME;
    else process.env.GROK_SEAT_HOME = previousHome;
    rmSync(base, { recursive: true, force: true });
  });
  for (let i = 0; i < 15; i++) {
    const result = (await client.callTool(
      { name: "run", arguments: { prompt: `turn ${i}` } },
      CallToolResultSchema,
    )) as CallToolResult;
    assert.equal(result.isError, true, "positive control: the call reached the turn and it failed (no grok)");
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    warnings.filter((w) => w.includes("MaxListenersExceeded")),
    [],
  );
});
