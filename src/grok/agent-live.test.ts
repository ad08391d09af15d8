import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { AGENT_METHODS, PROTOCOL_VERSION, type AnyMessage } from "@agentclientprotocol/sdk";
import { isSeatError } from "../errors.js";
import { ensureGrokBinary } from "./binary.js";
import { buildAgentArgv, buildAgentEnv } from "./launch.js";
import { spawnAgent } from "./process.js";
import { hasProcFs, isAlive, readProcStat, snapshotTree } from "./process-tree.js";
import { listGrokModels } from "./models.js";
import { needGrok } from "../../test/support/requirements.js";

const root = mkdtempSync(join(tmpdir(), "gs-grok-live-"));
after(() => rmSync(root, { recursive: true, force: true }));

async function provision(): Promise<string | undefined> {
  try {
    return (await ensureGrokBinary()).path;
  } catch (err) {
    if (isSeatError(err, "GROK_NOT_FOUND")) return undefined;
    throw err;
  }
}
const binary = await provision();
const skip = binary ? (hasProcFs() ? false : "needs /proc (Linux)") : "the pinned grok npm package is not installed";

function hermeticEnv(): Record<string, string> {
  const home = mkdtempSync(join(root, "home-"));
  mkdirSync(join(home, ".grok"));
  return buildAgentEnv({ PATH: process.env.PATH, HOME: home, GROK_HOME: join(home, ".grok") });
}

test("real grok answers initialize over the spawned stream and terminate leaves no process behind", async (t) => {
  if (!needGrok(t, skip)) return;
  const agent = await spawnAgent({ argv: buildAgentArgv({ binary: binary! }), env: hermeticEnv(), cwd: root });
  try {
    const writer = agent.stream.writable.getWriter();
    await writer.write({
      jsonrpc: "2.0",
      id: 1,
      method: AGENT_METHODS.initialize,
      params: { protocolVersion: PROTOCOL_VERSION, clientCapabilities: {} },
    });
    writer.releaseLock();
    const reader = agent.stream.readable.getReader();
    let reply: AnyMessage | undefined;
    while (!reply) {
      const { value, done } = await reader.read();
      assert.ok(!done, `grok closed stdout before answering; stderr: ${agent.stderrTail(2000)}`);
      if ("id" in value && value.id === 1) reply = value;
    }
    reader.releaseLock();
    assert.ok("result" in reply, JSON.stringify(reply));
    assert.equal((reply.result as { protocolVersion?: number }).protocolVersion, PROTOCOL_VERSION);
  } finally {
    const tree = snapshotTree([agent.pid], agent.pid);
    assert.deepEqual(await agent.terminate({ graceMs: 2000 }), { survivors: [] });
    for (const r of tree) assert.equal(isAlive(r), false, `pid ${r.pid} (${readProcStat(r.pid)?.state}) survived`);
  }
});

test("real grok models parses under a hermetic home", async (t) => {
  if (!needGrok(t, skip)) return;
  const r = await listGrokModels({ binary: binary!, env: hermeticEnv() });
  assert.equal(r.auth, "not-authenticated");
  assert.ok(r.models.length > 0, r.reason);
  assert.ok(r.defaultModel);
});
