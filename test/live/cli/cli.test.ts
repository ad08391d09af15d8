/*
 * The `seat` CLI against the real grok 1.0.41 and the scripted model: probe, models, run (human and --json),
 * and Ctrl-C during a turn.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { SEAT_MAIN, STACK, runSeat, startSeat } from "../../support/cli.js";
import { startLiveRig, type LiveRig } from "../../support/live-rig.js";
import { gotLive } from "../../support/requirements.js";

function envFor(rig: LiveRig): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
  };
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
    rules: [
      {
        match: "list it",
        replies: [
          { text: "looking ", toolCalls: [{ name: "list_dir", arguments: { path: "." } }] },
          { text: "all listed" },
        ],
      },
    ],
  });
  if (!gotLive(t, rig)) return;
  try {
    const result = await runSeat(["run", "--json", "--cwd", rig.sandbox.project, "please list it"], {
      env: envFor(rig),
    });
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; [k: string]: unknown });
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
    const result = await runSeat(["run", "--cwd", rig.sandbox.project, "say pong"], {
      env: { ...envFor(rig), NO_COLOR: "1" },
    });
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
  const result = await runSeat(["demo", "--json"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
  }).finally(() => rmSync(home, { recursive: true, force: true }));
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { type: string; [k: string]: any });
  assert.match(lines[0]?.message ?? "", /OFFLINE DEMO MODE/);
  const end = lines.find((l) => l.type === "tool_end");
  assert.equal(end?.status, "completed");
  assert.equal(end?.title, "host-tools__word_count");
  const done = lines.find((l) => l.type === "done");
  assert.equal(done?.stopReason, "end_turn");
  assert.match(done?.text ?? "", /The host tool answered: 5 words\./, "the answer quotes what the tool returned");
});

/** Runs seat with stdin fed `input` (then closed); `onLine` sees each stdout line and may act on the child. */
function seatPiped(
  args: string[],
  env: NodeJS.ProcessEnv,
  input: string | undefined,
  onLine: (line: string, child: ChildProcess) => void = () => undefined,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [SEAT_MAIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  let seen = 0;
  child.stdin.on("error", () => undefined);
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    const lines = stdout.split("\n").slice(0, -1);
    for (; seen < lines.length; seen += 1) onLine(lines[seen]!, child);
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  if (input !== undefined) child.stdin.end(input);
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
}

test("seat run --json -s NAME into a reader that goes away (| head -1) cancels grok's turn, records it cancelled, exits 141 quietly", async (t) => {
  const long = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
  const rig = await startLiveRig({ rules: [{ match: "slowly", replies: [{ text: long, chunkDelayMs: 150 }] }] });
  if (!gotLive(t, rig)) return;
  try {
    const env = { ...envFor(rig), GROK_SEAT_HOME: join(rig.sandbox.home, "seat") };
    const result = await seatPiped(
      ["run", "--json", "-s", "piped", "--cwd", rig.sandbox.project, "answer slowly"],
      env,
      undefined,
      (line, child) => {
        if (line.includes('"type":"text"')) child.stdout!.destroy();
      },
    );
    assert.equal(result.code, 141, result.stderr);
    assert.doesNotMatch(result.stderr, STACK);
    assert.deepEqual(processesIn(rig.sandbox.grokHome), []);
    const history = await runSeat(["sessions", "history", "piped", "--json", "--cwd", rig.sandbox.project], { env });
    const turns = history.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { state: string; stopReason: string | null; text: string });
    assert.deepEqual(
      turns.map((x) => [x.state, x.stopReason]),
      [["interrupted", "cancelled"]],
    );
    assert.ok(turns[0]!.text.length < long.length, "grok stopped early");
  } finally {
    await rig.close();
  }
});

test("SIGHUP, SIGTERM or a closed stdin at a random point of a real grok turn: no stack trace, exit 130 or 0, no grok left, no running turn", async (t) => {
  const long = Array.from({ length: 40 }, (_, i) => `w${i}`).join(" ");
  const rig = await startLiveRig({ rules: [{ match: "slowly", replies: [{ text: long, chunkDelayMs: 100 }] }] });
  if (!gotLive(t, rig)) return;
  try {
    const env = { ...envFor(rig), GROK_SEAT_HOME: join(rig.sandbox.home, "seat") };
    for (const [i, action] of (["SIGHUP", "stdin", "SIGTERM"] as const).entries()) {
      const delayMs = Math.floor(Math.random() * 1500);
      const result = await seatPiped(
        ["run", "--json", "-s", `r${i}`, "--cwd", rig.sandbox.project, "answer slowly"],
        env,
        undefined,
        (line, child) => {
          if (line.includes('"type":"session"'))
            setTimeout(() => (action === "stdin" ? child.stdin!.destroy() : child.kill(action)), delayMs);
        },
      );
      const label = `${action} after ${delayMs} ms`;
      assert.ok(
        action === "stdin" ? result.code === 0 : result.code === 130 || result.code === 0,
        `${label}: exit ${result.code}\n${result.stderr}`,
      );
      assert.doesNotMatch(result.stderr, STACK, label);
      assert.deepEqual(processesIn(rig.sandbox.grokHome), [], label);
      const history = await runSeat(["sessions", "history", `r${i}`, "--json", "--cwd", rig.sandbox.project], { env });
      for (const line of history.stdout.trim().split("\n").filter(Boolean))
        assert.notEqual((JSON.parse(line) as { state: string }).state, "running", label);
    }
  } finally {
    await rig.close();
  }
});

test("a 5 MB prompt from `seat run -f -` reaches the real grok and the model, and the turn ends", async (t) => {
  const rig = await startLiveRig();
  if (!gotLive(t, rig)) return;
  try {
    const line = "the quick brown fox jumps over the lazy dog. ";
    const big = `${line.repeat(Math.ceil((5 * 1024 * 1024) / line.length))}END-OF-BIG-PROMPT`;
    const result = await seatPiped(["run", "--json", "--cwd", rig.sandbox.project, "-f", "-"], envFor(rig), big);
    assert.equal(result.code, 0, result.stderr);
    const done = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; stopReason?: string })
      .find((l) => l.type === "done");
    assert.equal(done?.stopReason, "end_turn");
    const reached = rig.mock.requests.some((r) => JSON.stringify(r.body ?? "").includes("END-OF-BIG-PROMPT"));
    assert.ok(reached, "the end of the 5 MB prompt reached the model");
  } finally {
    await rig.close();
  }
});
