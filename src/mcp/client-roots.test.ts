/*
 * Roots a client declares: one that names no local directory (another host, an encoded "/") is skipped on its
 * own, adds nothing, and does not make the client's other roots vanish. The official MCP client over an
 * in-memory transport, answering roots/list.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, ListRootsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createPolicy } from "../permissions/index.js";
import { createSeatMcpServer } from "./server.js";

const codeOf = (r: CallToolResult) => (r._meta?.["grok-seat/error"] as { code?: string } | undefined)?.code;

/** Connects a client that declares `uris` as its roots; answers a caller of session_history. */
async function connectDeclaring(
  t: { after(fn: () => Promise<void>): void },
  uris: string[],
): Promise<(args: Record<string, unknown>) => Promise<CallToolResult>> {
  const server = await createSeatMcpServer({
    policy: createPolicy({}),
    roots: [],
    agents: ["grok"],
    approvalTimeoutMs: 1_000,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "odd-roots-host", version: "1" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: uris.map((uri) => ({ uri })) }));
  await client.connect(clientSide);
  t.after(async () => {
    await client.close().catch(() => undefined);
    await server.close();
  });
  return async (args) =>
    (await client.callTool({ name: "session_history", arguments: args }, CallToolResultSchema)) as CallToolResult;
}

test("client roots: a root on another host or with an encoded slash is skipped alone; the client's good root still counts; a client with only unusable roots gets none, never the server's directory", async (t) => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "gs-mcp-client-roots-")));
  const declared = join(base, "declared");
  mkdirSync(declared);
  const previousHome = process.env.GROK_SEAT_HOME;
  process.env.GROK_SEAT_HOME = join(base, "seat-home");
  t.after(() => {
    if (previousHome === undefined) delete process.env.GROK_SEAT_HOME;
    else process.env.GROK_SEAT_HOME = previousHome;
    rmSync(base, { recursive: true, force: true });
  });
  const call = await connectDeclaring(t, [
    "file://elsewhere.example/srv",
    "file:///tmp%2F..%2F",
    pathToFileURL(declared).href,
  ]);

  // The cwd is accepted (under the declared root): the answer is about the session, not the directory.
  assert.equal(codeOf(await call({ name: "nothing-yet", cwd: declared })), "SESSION_NOT_FOUND");
  for (const cwd of ["/", "/srv", "/tmp", base, process.cwd()])
    assert.equal(codeOf(await call({ name: "nothing-yet", cwd })), "MCP_CWD_OUTSIDE_ROOTS", cwd);

  // A client whose every declared root is unusable gets no root at all, never the server's working directory.
  const onlyOdd = await connectDeclaring(t, ["file://elsewhere.example/srv", "https://example.com/repo"]);
  for (const args of [{ name: "nothing-yet" }, { name: "nothing-yet", cwd: process.cwd() }])
    assert.equal(codeOf(await onlyOdd(args)), "MCP_CWD_OUTSIDE_ROOTS", JSON.stringify(args));
});
