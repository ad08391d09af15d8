import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import type { AnyMessage } from "@agentclientprotocol/sdk";
import { isSeatError } from "../errors.js";
import { spawnAgent } from "./process.js";
import { hasProcFs, isAlive, killProcessTree, readProcStat, type ProcessRef } from "./process-tree.js";
import { need } from "../../test/support/requirements.js";

const IGNORER = fileURLToPath(new URL("../../test/fakes/sigterm-ignorer.js", import.meta.url));
const root = mkdtempSync(join(tmpdir(), "gs-grok-process-"));
after(() => rmSync(root, { recursive: true, force: true }));
const linuxOnly = hasProcFs() ? false : "needs /proc (Linux)";

async function firstMessage(readable: ReadableStream<AnyMessage>): Promise<AnyMessage> {
  const reader = readable.getReader();
  const { value, done } = await reader.read();
  reader.releaseLock();
  assert.ok(!done && value, "stream ended before the first message");
  return value;
}

function refs(pids: number[]): ProcessRef[] {
  return pids.map((pid) => ({ pid, startTime: readProcStat(pid)!.startTicks }));
}

test("a missing binary rejects with GROK_SPAWN_FAILED carrying the command", async () => {
  const argv = [join(root, "no-such-grok"), "agent", "stdio"];
  await assert.rejects(spawnAgent({ argv, env: {} }), (e) => {
    assert.ok(isSeatError(e, "GROK_SPAWN_FAILED"));
    assert.deepEqual(e.context.command, argv);
    assert.equal(e.context.errno, "ENOENT");
    return true;
  });
});

test("a missing cwd rejects with GROK_SPAWN_FAILED instead of an unhandled error", async () => {
  await assert.rejects(
    spawnAgent({ argv: [process.execPath, "-e", ""], env: {}, cwd: join(root, "gone") }),
    (e) => isSeatError(e, "GROK_SPAWN_FAILED") && e.context.cwd === join(root, "gone"),
  );
});

test("the stream carries ndjson both ways and stderr is drained into the tail", async () => {
  const echo = join(root, "echo.mjs");
  writeFileSync(
    echo,
    `process.stderr.write("x".repeat(300000) + "tail-marker\\n");
import { createInterface } from "node:readline";
for await (const line of createInterface({ input: process.stdin })) {
  const m = JSON.parse(line); process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: m.id, result: { echoed: m.method } }) + "\\n");
}`,
  );
  const agent = await spawnAgent({ argv: [process.execPath, echo], env: {}, cwd: root });
  try {
    const writer = agent.stream.writable.getWriter();
    await writer.write({ jsonrpc: "2.0", id: 0, method: "ping", params: {} });
    writer.releaseLock();
    assert.deepEqual(await firstMessage(agent.stream.readable), { jsonrpc: "2.0", id: 0, result: { echoed: "ping" } });
    while (!agent.stderrTail().includes("tail-marker")) await new Promise((r) => setTimeout(r, 20));
    assert.match(agent.stderrTail(64), /tail-marker\n$/);
  } finally {
    assert.deepEqual(await agent.terminate({ graceMs: 1000 }), { survivors: [] });
  }
});

test("terminate kills a SIGTERM-ignoring tree, including a setsid grandchild, and is idempotent", async (t) => {
  if (!need(t, linuxOnly)) return;
  const agent = await spawnAgent({
    argv: [process.execPath, IGNORER, "--children", "3", "--detach-one"],
    env: {},
    cwd: root,
  });
  const hello = (await firstMessage(agent.stream.readable)) as unknown as { pid: number; children: number[] };
  assert.equal(hello.pid, agent.pid);
  assert.equal(hello.children.length, 3);
  const tree = refs([agent.pid, ...hello.children]);
  assert.notEqual(readProcStat(hello.children[0]!)!.pgid, agent.pid, "the first grandchild should be in its own group");
  const first = await agent.terminate({ graceMs: 200 });
  assert.deepEqual(first, { survivors: [] });
  for (const r of tree) assert.equal(isAlive(r), false, `pid ${r.pid} survived`);
  assert.deepEqual(await agent.exited, { code: null, signal: "SIGKILL" });
  assert.deepEqual(await agent.terminate({ graceMs: 200 }), first);
});

test("killProcessTree stops a tree spawned outside spawnAgent", async (t) => {
  if (!need(t, linuxOnly)) return;
  const child = spawn(process.execPath, [IGNORER, "--children", "2"], {
    stdio: ["ignore", "pipe", "ignore"],
    detached: true,
  });
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (c: Buffer) => resolve(c.toString())));
  const hello = JSON.parse(line) as { pid: number; children: number[] };
  const tree = refs([hello.pid, ...hello.children]);
  assert.deepEqual(await killProcessTree(hello.pid, { graceMs: 200 }), { survivors: [] });
  for (const r of tree) assert.equal(isAlive(r), false, `pid ${r.pid} survived`);
});

test("a recycled root pid is left alone when its start time does not match", async (t) => {
  if (!need(t, linuxOnly)) return;
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore", detached: true });
  await new Promise((r) => child.once("spawn", r));
  try {
    const r = await killProcessTree(child.pid!, { graceMs: 50, rootStartTime: "not-its-start-time" });
    assert.deepEqual(r, { survivors: [] });
    assert.equal(isAlive({ pid: child.pid!, startTime: readProcStat(child.pid!)!.startTicks }), true);
  } finally {
    child.kill("SIGKILL");
  }
});
