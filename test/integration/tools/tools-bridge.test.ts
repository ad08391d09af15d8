// The loopback bridge over real HTTP: bearer auth, body limits, bad JSON, calls and cancellation.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isSeatError } from "../../../src/errors.js";
import {
  bridgeFailureAudit,
  bridgeFailureReason,
  createToolBridge,
  createToolRegistry,
  resolveServerEntry,
  startBridge,
  type HostTool,
} from "../../../src/tools/index.js";

const echo: HostTool = {
  name: "echo",
  description: "echoes text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  execute: (args: { text: string }) => args.text,
};

async function withBridge(
  tools: HostTool[],
  run: (url: string, token: string) => Promise<void>,
  maxBodyBytes?: number,
) {
  const bridge = await startBridge(createToolRegistry(tools), maxBodyBytes === undefined ? {} : { maxBodyBytes });
  try {
    assert.match(bridge.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    await run(bridge.url, bridge.token);
  } finally {
    await bridge.close();
  }
}

test("refuses requests without the bearer token or with a wrong one, and serves the right one", async () => {
  await withBridge([echo], async (url, token) => {
    assert.equal((await fetch(`${url}/tools`)).status, 401);
    const wrong = await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${token.slice(0, -1)}x` } });
    assert.equal(wrong.status, 401);
    const call = await fetch(`${url}/call`, {
      method: "POST",
      body: JSON.stringify({ name: "echo", arguments: { text: "x" } }),
    });
    assert.equal(call.status, 401);
    const right = await fetch(`${url}/tools`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(right.status, 200);
    const body = (await right.json()) as { tools: Array<{ name: string; inputSchema: { type: string } }> };
    assert.deepEqual(
      body.tools.map((t) => [t.name, t.inputSchema.type]),
      [["echo", "object"]],
    );
  });
});

test("runs a call, and answers bad JSON with 400 and an oversized body with 413", async () => {
  await withBridge(
    [echo],
    async (url, token) => {
      const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
      const ok = await fetch(`${url}/call`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "echo", arguments: { text: "hi" } }),
      });
      assert.deepEqual(await ok.json(), { content: [{ type: "text", text: "hi" }] });
      const bad = await fetch(`${url}/call`, { method: "POST", headers, body: "{nope" });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: string }).error, /not valid JSON/);
      const noName = await fetch(`${url}/call`, { method: "POST", headers, body: "{}" });
      assert.equal(noName.status, 400);
      const big = await fetch(`${url}/call`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "echo", arguments: { text: "x".repeat(2000) } }),
      });
      assert.equal(big.status, 413);
      const chunked = await fetch(`${url}/call`, {
        method: "POST",
        headers,
        body: new Blob(['{"name":"echo","arguments":{"text":"', "y".repeat(4000), '"}}']).stream(),
        duplex: "half",
      } as RequestInit);
      assert.equal(chunked.status, 413, "a streamed body without content-length is capped too");
      assert.equal((await fetch(`${url}/nowhere`, { headers })).status, 404);
    },
    1024,
  );
});

test("aborts the tool's signal when the caller abandons the request", async () => {
  let aborted!: () => void;
  const sawAbort = new Promise<void>((resolve) => (aborted = resolve));
  let started!: () => void;
  const sawStart = new Promise<void>((resolve) => (started = resolve));
  const slow: HostTool = {
    name: "slow",
    description: "waits for abort",
    inputSchema: { type: "object" },
    execute: (_args, { signal }) =>
      new Promise((resolve) => {
        started();
        signal.addEventListener("abort", () => {
          aborted();
          resolve("aborted");
        });
      }),
  };
  await withBridge([slow], async (url, token) => {
    const controller = new AbortController();
    const pending = fetch(`${url}/call`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: "slow", arguments: {} }),
      signal: controller.signal,
    }).catch(() => "caller aborted");
    await sawStart;
    controller.abort();
    assert.equal(await pending, "caller aborted");
    await sawAbort;
  });
});

test("reports bridge-start-failed with a fixed reason and an ids-only audit record", async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen({ host: "127.0.0.1", port: 0 }, resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const failure = await createToolBridge({ tools: [echo], port }).then(
      () => assert.fail("expected the bridge not to start"),
      (error: unknown) => error,
    );
    assert.ok(isSeatError(failure, "TOOL_BRIDGE_FAILED"));
    assert.match(failure.message, /^GROK_SEAT_TOOL_BRIDGE_FAILED: bridge-start-failed/);
    assert.equal(bridgeFailureReason(failure), "bridge-start-failed");
    assert.deepEqual(bridgeFailureAudit("bridge-start-failed", 1), {
      event: "session:runtime-resolved",
      toolBridgeFailed: true,
      reason: "bridge-start-failed",
      requestedToolCount: 1,
    });
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});

test("resolves the server script beside a built module, falls back from .ts sources to dist, else mcp-schema-server-missing", () => {
  const root = mkdtempSync(join(tmpdir(), "gs-tools-entry-"));
  try {
    mkdirSync(join(root, "src", "tools"), { recursive: true });
    mkdirSync(join(root, "dist", "src", "tools"), { recursive: true });
    const sourceModule = pathToFileURL(join(root, "src", "tools", "tool-bridge.ts")).href;
    const builtModule = pathToFileURL(join(root, "dist", "src", "tools", "tool-bridge.js")).href;
    for (const moduleUrl of [sourceModule, builtModule]) {
      assert.throws(
        () => resolveServerEntry(moduleUrl),
        (e) =>
          isSeatError(e, "TOOL_BRIDGE_FAILED") &&
          e.context.reason === "mcp-schema-server-missing" &&
          e.message.startsWith("GROK_SEAT_TOOL_BRIDGE_FAILED: mcp-schema-server-missing"),
      );
    }
    const compiled = join(root, "dist", "src", "tools", "mcp-server.js");
    writeFileSync(compiled, "// compiled server\n");
    assert.equal(resolveServerEntry(builtModule), compiled);
    assert.equal(resolveServerEntry(sourceModule), compiled);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("a configured server entry that does not exist fails before any bridge starts", async () => {
  await assert.rejects(
    createToolBridge({ tools: [echo], serverEntry: join(tmpdir(), "gs-no-such-dir", "mcp-server.js") }),
    (e) => bridgeFailureReason(e) === "mcp-schema-server-missing",
  );
});

test("a call the authorize check refuses gets 403 with code PERMISSION_DENIED and the tool's execute never runs", async () => {
  const runs: unknown[] = [];
  const tool: HostTool = { ...echo, execute: (args: { text: string }) => (runs.push(args), args.text) };
  let allow = false;
  const asked: string[] = [];
  const bridge = await startBridge(createToolRegistry([tool]), { authorize: (name) => (asked.push(name), allow) });
  try {
    const call = () =>
      fetch(`${bridge.url}/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${bridge.token}` },
        body: JSON.stringify({ name: "echo", arguments: { text: "x" } }),
      });
    const refused = await call();
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, "PERMISSION_DENIED");
    assert.deepEqual(runs, []);
    allow = true;
    const served = await call();
    assert.equal(served.status, 200);
    assert.deepEqual(runs, [{ text: "x" }]);
    assert.deepEqual(asked, ["echo", "echo"], "asked on every call");
  } finally {
    await bridge.close();
  }
});
