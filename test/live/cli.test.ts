/*
 * The `seat` CLI against the real grok 1.0.41 and the scripted model: probe, models, run (human and --json),
 * and Ctrl-C during a turn.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat, startSeat } from "../support/cli.js";
import { startLiveRig, type LiveRig } from "../support/live-rig.js";
import { gotLive } from "../support/requirements.js";

function envFor(rig: LiveRig): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: rig.sandbox.home, GROK_HOME: rig.sandbox.grokHome, GROK_BIN: rig.binary };
}

/** Pids of live processes whose cwd is `dir` (grok and anything it started there). */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, "utf8"))) continue;
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes("grok") && existsSync(`/proc/${name}/cwd`)) {
        const cwd = readFileSync(`/proc/${name}/environ`, "utf8");
        if (cwd.includes(dir)) pids.push(Number(name));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

test("seat probe reports the binary, its version and the advertised auth methods", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  try {
    const result = await runSeat(["probe", "--json"], { env: envFor(rig), cwd: rig.sandbox.project });
    assert.equal(result.code, 0, result.stderr);
    const probe = JSON.parse(result.stdout.trim()) as Record<string, any>;
    assert.equal(probe.type, "probe");
    assert.equal(probe.binary.source, "env");
    assert.equal(probe.binaryReady, true);
    assert.equal(probe.version, "1.0.41");
    assert.equal(probe.sha, "4220f3b224a6");
    assert.ok(probe.acp.authMethods.includes("xai.api_key"));
    assert.equal(probe.acp.acpReady, true);
    assert.equal(probe.acp.agentVersion, "1.0.41");
  } finally {
    await rig.close();
  }
});

test("seat models lists grok's models as grok-cli/<id>", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  try {
    const result = await runSeat(["models", "--json"], { env: envFor(rig) });
    assert.equal(result.code, 0, result.stderr);
    const models = JSON.parse(result.stdout.trim()) as { models: string[]; defaultModel: string };
    assert.ok(models.models.includes("grok-cli/mock"), models.models.join(","));
    assert.equal(models.defaultModel, "mock");
  } finally {
    await rig.close();
  }
});

test("seat run --json prints one typed object per line, ending with done, and exits 0", async (t) => {
  const rig = await startLiveRig({
    rules: [{ match: "list it", replies: [{ text: "looking ", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] }, { text: "all listed" }] }],
  });
  if (!gotLive(t, rig)) return;
  try {
    const result = await runSeat(["run", "--json", "--cwd", rig.sandbox.project, "please list it"], { env: envFor(rig) });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
    for (const line of lines) assert.equal(typeof line.type, "string");
    const types = lines.map((l) => l.type);
    assert.ok(types.includes("text"));
    assert.ok(types.includes("tool_start"));
    assert.ok(types.includes("tool_end"));
    const done = lines.at(-1);
    assert.equal(done?.type, "done");
    assert.equal(done?.stopReason, "end_turn");
    assert.equal(done?.text, "looking all listed");
  } finally {
    await rig.close();
  }
});

test("seat run streams plain text to stdout and tool lines to stderr", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  try {
    const result = await runSeat(["run", "--cwd", rig.sandbox.project, "say pong"], { env: { ...envFor(rig), NO_COLOR: "1" } });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "pong from mock\n");
    assert.doesNotMatch(result.stderr, /\u001b\[/, "no colour codes with NO_COLOR and no TTY");
  } finally {
    await rig.close();
  }
});

test("Ctrl-C during a turn cancels it, exits 130 and leaves no grok process behind", async (t) => {
  const long = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
  const rig = await startLiveRig({ rules: [{ match: "slowly", replies: [{ text: long, chunkDelayMs: 200 }] }] });
  if (!gotLive(t, rig)) return;
  try {
    const run = startSeat(["run", "--cwd", rig.sandbox.project, "answer slowly"], { env: envFor(rig) });
    while (!run.stdout().includes("w1")) {
      await new Promise((r) => setTimeout(r, 50));
      if (run.child.exitCode !== null) break;
    }
    assert.ok(processesIn(rig.sandbox.grokHome).length > 0, "grok was running mid-turn");
    run.child.kill("SIGINT");
    const result = await run.done;
    assert.equal(result.code, 130, result.stderr);
    assert.match(result.stderr, /cancelling the turn/);
    assert.ok(result.stdout.length < long.length, "the turn stopped early");
    assert.deepEqual(processesIn(rig.sandbox.grokHome), []);
  } finally {
    await rig.close();
  }
});

test("seat demo runs the whole stack offline and the model quotes the host tool's real result", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  await rig.close(); // only needed to know the binary can be provisioned; the demo brings its own mock and home
  const home = mkdtempSync(join(tmpdir(), "seat-demo-home-"));
  const result = await runSeat(["demo", "--json"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home } }).finally(() => rmSync(home, { recursive: true, force: true }));
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.trim().split("\n").map((l) => JSON.parse(l) as { type: string; [k: string]: any });
  assert.match(lines[0]?.message ?? "", /OFFLINE DEMO MODE/);
  const end = lines.find((l) => l.type === "tool_end");
  assert.equal(end?.status, "completed");
  assert.equal(end?.title, "host-tools__word_count");
  const done = lines.find((l) => l.type === "done");
  assert.equal(done?.stopReason, "end_turn");
  assert.match(done?.text ?? "", /The host tool answered: 5 words\./, "the answer quotes what the tool returned");
});
