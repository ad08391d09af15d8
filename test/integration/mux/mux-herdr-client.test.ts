// HerdrClient against raw Unix-socket peers that misbehave in specific ways, and against the simulator.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server, type Socket } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HerdrClient, isHerdrError } from "../../../src/mux/index.js";
import { isSeatError } from "../../../src/errors.js";

/** A peer that answers each connection's first line with `answer(request)` (undefined = stay silent). */
async function withPeer(
  answer: (request: { id: string; method: string }, socket: Socket) => string | undefined,
  body: (client: HerdrClient, seen: string[]) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "gs-herdr-client-"));
  const socketPath = join(dir, "herdr.sock");
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buffer = "";
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      const newline = buffer.indexOf("\n");
      if (newline === -1) return;
      const line = buffer.slice(0, newline);
      seen.push(line);
      const reply = answer(JSON.parse(line), socket);
      if (reply !== undefined) socket.end(reply);
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  try {
    await body(new HerdrClient(socketPath, { timeoutMs: 300 }), seen);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  }
}

const protocolError = (e: unknown): boolean => isSeatError(e, "HERDR_PROTOCOL_ERROR");

test("sends one request per connection, always with params, and returns the typed result", async () => {
  await withPeer(
    (r) =>
      `${JSON.stringify({ id: r.id, result: { type: "pong", version: "0.8.2", protocol: 20, capabilities: {} } })}\n`,
    async (client, seen) => {
      assert.equal((await client.ping()).protocol, 20);
      assert.equal((await client.ping()).version, "0.8.2");
      assert.equal(seen.length, 2);
      for (const line of seen) assert.deepEqual(JSON.parse(line).params, {});
      assert.notEqual(JSON.parse(seen[0]!).id, JSON.parse(seen[1]!).id);
    },
  );
});

test("rejects a reply that is not JSON", async () => {
  await withPeer(
    () => "hello there\n",
    async (client) => {
      await assert.rejects(client.ping(), protocolError);
    },
  );
});

test("rejects a reply whose id does not echo the request", async () => {
  await withPeer(
    (r) => `${JSON.stringify({ id: `${r.id}x`, result: { type: "pong" } })}\n`,
    async (client) => {
      await assert.rejects(client.ping(), (e) => protocolError(e) && /id/.test((e as Error).message));
    },
  );
});

test("rejects a result of the wrong type", async () => {
  await withPeer(
    (r) => `${JSON.stringify({ id: r.id, result: { type: "ok" } })}\n`,
    async (client) => {
      await assert.rejects(client.ping(), protocolError);
    },
  );
});

test("rejects a line longer than 1 MiB", async () => {
  await withPeer(
    (r) => `${JSON.stringify({ id: r.id, result: { type: "pong", pad: "x".repeat(1024 * 1024 + 10) } })}\n`,
    async (client) => {
      await assert.rejects(client.ping(), (e) => protocolError(e) && /longer than/.test((e as Error).message));
    },
  );
});

test("rejects a server that never answers, and one that closes without a line", async () => {
  await withPeer(
    () => undefined,
    async (client) => {
      await assert.rejects(client.ping(), (e) => protocolError(e) && /did not answer/.test((e as Error).message));
    },
  );
  await withPeer(
    () => "",
    async (client) => {
      await assert.rejects(client.ping(), protocolError);
    },
  );
});

test('turns an invalid_request with id "" into a protocol error and an app error into MUX_COMMAND_FAILED', async () => {
  await withPeer(
    () =>
      `${JSON.stringify({ id: "", error: { code: "invalid_request", message: "invalid request: unknown variant" } })}\n`,
    async (client) => {
      await assert.rejects(client.ping(), protocolError);
    },
  );
  await withPeer(
    (r) => `${JSON.stringify({ id: r.id, error: { code: "pane_not_found", message: "pane w1:p9 not found" } })}\n`,
    async (client) => {
      await assert.rejects(client.getPane("w1:p9"), (e) => isHerdrError(e, "pane_not_found"));
    },
  );
});

test("reports a missing socket as MUX_UNAVAILABLE", async () => {
  const client = new HerdrClient(join(tmpdir(), `gs-missing-${process.pid}-${Date.now()}.sock`));
  await assert.rejects(client.ping(), (e) => isSeatError(e, "MUX_UNAVAILABLE"));
});

test("streams subscription events after the ack and ends when the server closes", async () => {
  await withPeer(
    (r, socket) => {
      socket.write(`${JSON.stringify({ id: r.id, result: { type: "subscription_started" } })}\n`);
      socket.write(
        `${JSON.stringify({ event: "pane_exited", data: { type: "pane_exited", pane_id: "w1:p2" } })}\n{"event":"pane.agent_status_changed","data":{"pane_id":"w1:p2","agent_status":"idle"}}\n`,
      );
      socket.end();
      return undefined;
    },
    async (client) => {
      const stream = await client.subscribe([{ type: "pane.exited" }]);
      const events = [];
      for await (const event of stream) events.push(event.event);
      assert.deepEqual(events, ["pane_exited", "pane.agent_status_changed"]);
    },
  );
});
