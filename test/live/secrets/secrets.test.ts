/*
 * Live secrets: a canary XAI_API_KEY on the real grok 1.0.41 — the visible TUI in a private tmux server driven
 * through the built `seat` CLI (dry-run, hire, send, status, a forced MUX_COMMAND_FAILED, release) and headless
 * (`seat run`, createSession with host tools). A separate sampler reads /proc/<pid>/cmdline of every process the
 * whole time; afterwards every file under the seat home and socket dirs, the journal, and every captured output
 * are grepped. The canary must reach grok's environment (positive control) and nothing else.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isTmuxAvailable } from "../../../src/mux/index.js";
import { createPermissionGate, parsePolicyFlags } from "../../../src/permissions/index.js";
import { createSession } from "../../../src/runtime/index.js";
import { snapshotTree } from "../../../src/grok/index.js";
import { CONTROLLER_ENV_ALLOW_LIST } from "../../../src/seat/controller.js";
import type { HostTool } from "../../../src/tools/index.js";
import { SEAT_MAIN, runSeat, startSeat } from "../../support/cli.js";
import { redisMissing, until } from "../../support/fleet-rig.js";
import { startRedisServer } from "../../../src/testing.js";
import { alive } from "../../support/processes.js";
import { filesHolding, startArgvSampler } from "../../support/secret-canary.js";
import { startLiveRig } from "../../support/live-rig.js";
import { visibleSeatFlags } from "../../support/visible-hire.js";
import { gotLive, need } from "../../support/requirements.js";

const newCanary = () => `xai-canary-${randomBytes(12).toString("hex")}`;
const environOf = (pid: number): string => {
  try {
    return readFileSync(`/proc/${pid}/environ`, "latin1");
  } catch {
    return "";
  }
};

function cli(
  env: NodeJS.ProcessEnv,
  args: string[],
  outputs: string[],
): { code: number; stdout: string; stderr: string; json: any } {
  const r = spawnSync(process.execPath, [SEAT_MAIN, ...args], { env, encoding: "utf8", timeout: 120_000 });
  outputs.push(r.stdout, r.stderr);
  let json: any = null;
  try {
    json = JSON.parse(r.stdout.trim().split("\n").filter(Boolean).pop() ?? "");
  } catch {
    /* text */
  }
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, json };
}

test("visible seat: a canary XAI_API_KEY reaches the TUI's environment only — never an argv, a file, the tmux server, a log or any output", async (t) => {
  if (!need(t, (await isTmuxAvailable()) ? false : "tmux (not found on PATH)")) return;
  const rig = await startLiveRig({ fallback: { text: "canary-free answer" } });
  if (!gotLive(t, rig)) return;
  const canary = newCanary();
  const seatHome = join(rig.sandbox.root, "sh");
  const tmux = `gs-test-${randomBytes(4).toString("hex")}`;
  const env = {
    ...rig.sandbox.env,
    GROK_SEAT_HOME: seatHome,
    TERM: "xterm-256color",
    XAI_API_KEY: canary,
    TMPDIR: rig.sandbox.root,
  };
  const base = visibleSeatFlags(rig, tmux);
  const outputs: string[] = [];
  const pids = new Set<number>();
  const sampler = startArgvSampler(canary);
  let socketDir: string | null = null;
  let socketFiles = { checked: 0, hits: [] as string[] };
  try {
    const dry = cli(env, ["hire", ...base, "--dry-run", "--json"], outputs);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(dry.json.plan.env.XAI_API_KEY, "[redacted]", "the dry run shows the name, not the value");
    assert.equal(cli(env, ["hire", ...base, "--dry-run"], outputs).code, 0);

    const hired = cli(env, ["hire", ...base, "--json"], outputs);
    assert.equal(hired.code, 0, `${hired.stdout} ${hired.stderr}`);
    const seatId: string = hired.json.seatId;
    pids.add(hired.json.controllerPid);
    const status = cli(env, ["status", seatId, "--json"], outputs);
    assert.equal(status.code, 0, status.stderr);
    const tuiPid: number = status.json.tui.pid;
    pids.add(tuiPid);
    if (status.json.leader?.pid) pids.add(status.json.leader.pid);
    assert.ok(
      environOf(tuiPid).includes(`XAI_API_KEY=${canary}`),
      "positive control: the TUI's environment holds the key",
    );
    const controllerNames = environOf(hired.json.controllerPid)
      .split("\0")
      .filter(Boolean)
      .map((e) => e.split("=")[0]!);
    assert.deepEqual(
      controllerNames.filter(
        (n) => n !== "XAI_API_KEY" && !(CONTROLLER_ENV_ALLOW_LIST as readonly string[]).includes(n),
      ),
      [],
      "the controller's env is the allow-list plus the secret",
    );

    const tmuxOut = (args: string[]) =>
      spawnSync("tmux", ["-L", tmux, ...args], { encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } })
        .stdout;
    const serverPid = Number(tmuxOut(["display-message", "-p", "#{pid}"]).trim());
    assert.ok(serverPid > 0);
    assert.ok(!environOf(serverPid).includes(canary), "the tmux server's environment");
    for (const args of [
      ["show-environment", "-g"],
      ["show-environment", "-t", status.json.tui.pane.sessionName],
      ["list-panes", "-a", "-F", "#{pane_start_command}"],
    ]) {
      assert.ok(!tmuxOut(args).includes(canary), `tmux ${args.join(" ")}`);
    }

    const sent = cli(env, ["send", seatId, "a brief with no secret", "--wait", "consumed", "--json"], outputs);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(cli(env, ["status", seatId, "--json"], outputs).code, 0);
    assert.equal(cli(env, ["status", seatId], outputs).code, 0);

    // A forced MUX_COMMAND_FAILED from the real tmux: its socket directory cannot be created.
    const notADir = join(rig.sandbox.root, "not-a-dir");
    writeFileSync(notADir, "x");
    const failedJson = cli({ ...env, TMUX_TMPDIR: notADir }, ["hire", ...base, "--json"], outputs);
    assert.notEqual(failedJson.code, 0);
    assert.equal(failedJson.json?.code, "MUX_COMMAND_FAILED", failedJson.stdout);
    const failedText = cli({ ...env, TMUX_TMPDIR: notADir }, ["hire", ...base], outputs);
    assert.match(failedText.stderr, /MUX_COMMAND_FAILED/);

    socketDir = JSON.parse(readFileSync(join(seatHome, "seats", seatId, "seat.json"), "utf8")).socket_dir;
    assert.ok(socketDir && existsSync(socketDir));
    socketFiles = filesHolding([socketDir], canary);
    const released = cli(env, ["release", seatId, "--close-pane", "--json"], outputs);
    assert.equal(released.code, 0, released.stderr);
  } finally {
    const seen = await sampler.stop();
    spawnSync("tmux", ["-L", tmux, "kill-server"]);
    for (const dir of existsSync(join(seatHome, "seats")) ? readdirSync(join(seatHome, "seats")) : []) {
      try {
        pids.add(JSON.parse(readFileSync(join(seatHome, "seats", dir, "seat.json"), "utf8")).controller_pid);
      } catch {
        /* none */
      }
    }
    for (const pid of pids)
      if (pid && alive(pid))
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
    for (let i = 0; i < 100 && [...pids].some((pid) => pid && alive(pid)); i += 1)
      await new Promise((r) => setTimeout(r, 50));
    const files = filesHolding([seatHome, ...(socketDir ? [socketDir] : [])], canary);
    await rig.close();
    assert.ok(seen.samples > 10, `the sampler swept /proc ${seen.samples} times`);
    assert.deepEqual(seen.hits, [], "no process ever carried the canary on its argv");
    assert.ok(files.checked >= 4, `grepped ${files.checked} files (seat.json, hire.json, controller.log, seats.db)`);
    assert.deepEqual(
      [...files.hits, ...socketFiles.hits],
      [],
      "no file under the seat home or the socket dir holds the canary",
    );
    assert.deepEqual(
      outputs.filter((o) => o.includes(canary)),
      [],
      "no CLI output holds the canary",
    );
  }
});

const echo = (runs: unknown[]): HostTool => ({
  name: "echo",
  description: "returns its text",
  inputSchema: { type: "object", properties: { text: { type: "string" } } },
  execute: (args: { text: string }) => (runs.push(args), args.text),
});

test("headless: `seat run` with a canary XAI_API_KEY never puts it on an argv or in any output", async (t) => {
  const rig = await startLiveRig({ fallback: { text: "pong" } });
  if (!gotLive(t, rig)) return;
  const canary = newCanary();
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    XAI_API_KEY: canary,
  };
  const sampler = startArgvSampler(canary);
  const outputs: string[] = [];
  try {
    const json = await runSeat(["run", "--json", "say pong"], { env, cwd: rig.sandbox.project });
    const text = await runSeat(["run", "say pong"], { env, cwd: rig.sandbox.project });
    const failed = await runSeat(["run", "--json", "--grok", join(rig.sandbox.root, "no-grok"), "say pong"], {
      env,
      cwd: rig.sandbox.project,
    });
    outputs.push(json.stdout, json.stderr, text.stdout, text.stderr, failed.stdout, failed.stderr);
    assert.equal(json.code, 0, json.stderr);
    assert.match(text.stdout, /pong/);
    assert.notEqual(failed.code, 0);
  } finally {
    const seen = await sampler.stop();
    await rig.close();
    assert.ok(seen.samples > 10, `the sampler swept /proc ${seen.samples} times`);
    assert.deepEqual(seen.hits, [], "no process ever carried the canary on its argv");
    assert.deepEqual(
      outputs.filter((o) => o.includes(canary)),
      [],
      "no output holds the canary",
    );
  }
});

for (const [label, flags] of [
  ["blocks", { block: ["mcp"] }],
  ["asks for (no approver)", { ask: ["mcp"] }],
] as const) {
  test(`headless: the host-tools MCP server gets no secret, and its bridge token cannot run a tool under a policy that ${label} mcp`, async (t) => {
    const rig = await startLiveRig({ fallback: { text: "pong" } });
    if (!gotLive(t, rig)) return;
    const canary = newCanary();
    const runs: unknown[] = [];
    const session = await createSession({
      ...rig.sessionOptions,
      agentEnv: { ...rig.sessionOptions.agentEnv, XAI_API_KEY: canary },
      tools: [echo(runs)],
      permissions: createPermissionGate({ policy: parsePolicyFlags(flags as never) }),
    });
    try {
      assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
      assert.ok(environOf(session.agent!.pid!).includes(canary), "positive control: grok holds the key");
      let server: { pid: number; env: string } | undefined;
      for (let i = 0; i < 100 && !server; i += 1) {
        server = snapshotTree([session.agent!.pid!])
          .map(({ pid }) => ({ pid, env: environOf(pid) }))
          .find((p) => p.env.includes("GROK_SEAT_BRIDGE_TOKEN="));
        if (!server) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(server, "grok started the host-tools MCP server");
      assert.ok(!server.env.includes(canary), "the MCP server's environment holds no secret");
      const vars = Object.fromEntries(
        server.env
          .split("\0")
          .filter(Boolean)
          .map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]),
      );
      const call = await fetch(`${vars.GROK_SEAT_BRIDGE_URL}/call`, {
        method: "POST",
        headers: { authorization: `Bearer ${vars.GROK_SEAT_BRIDGE_TOKEN}` },
        body: JSON.stringify({ name: "echo", arguments: { text: "stolen" } }),
      });
      assert.equal(call.status, 403);
      assert.equal(((await call.json()) as { code: string }).code, "PERMISSION_DENIED");
      assert.deepEqual(runs, [], "execute never ran");
    } finally {
      await session.dispose();
      await rig.close();
    }
  });
}

/** Canaries for every secret name grok-seat knows besides xAI's: each agent's keys and the fleet's Redis password. */
function otherAgentCanaries(): { prefix: string; env: Record<string, string> } {
  const prefix = `canary-${randomBytes(8).toString("hex")}`;
  const names = [
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GROK_SEAT_REDIS_PASSWORD",
  ];
  return {
    prefix,
    env: Object.fromEntries(names.map((name) => [name, `${prefix}-${name.toLowerCase().replace(/_/g, "-")}`])),
  };
}

const shellCall = (command: string) => ({
  name: "run_terminal_command",
  arguments: { command, description: "print the environment" },
});

test("headless: canaries in every other agent's key and the Redis password never reach grok (its shell's env goes to the model), an argv, a file, an output or the model; a key the seat was never given that grok's shell prints is shown as it is", async (t) => {
  const rig = await startLiveRig({
    rules: [
      {
        match: "show the env",
        replies: [
          { toolCalls: [shellCall("env")] },
          { toolCalls: [shellCall("cat vendor.env")] },
          { text: "env shown" },
        ],
      },
    ],
  });
  if (!gotLive(t, rig)) return;
  const { prefix, env: canaries } = otherAgentCanaries();
  // A project file grok's shell prints: its bytes come back in tool_end rawOutput. The seat was never given this
  // key, so nothing says it is a secret: it is shown as it is (only known values are masked, never a shape).
  const vendorKey = `sk-live-${randomBytes(12).toString("hex")}`;
  writeFileSync(join(rig.sandbox.project, "vendor.env"), `STRIPE_API_KEY=${vendorKey}\n`);
  const marker = `tz-marker-${randomBytes(4).toString("hex")}`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: rig.sandbox.home,
    GROK_HOME: rig.sandbox.grokHome,
    GROK_BIN: rig.binary,
    TZ: marker,
    ...canaries,
  };
  const sampler = startArgvSampler(prefix);
  const outputs: string[] = [];
  let files = { checked: 0, hits: [] as string[] };
  let failed: unknown;
  try {
    const json = await runSeat(["run", "--json", "--allow", "execute", "please show the env"], {
      env,
      cwd: rig.sandbox.project,
    });
    const text = await runSeat(["run", "--allow", "execute", "please show the env"], { env, cwd: rig.sandbox.project });
    outputs.push(json.stdout, json.stderr, text.stdout, text.stderr);
    assert.equal(json.code, 0, json.stderr);
    assert.equal(text.code, 0, text.stderr);
    const shown = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; rawOutput?: { output?: number[] } })
      .filter((l) => l.type === "tool_end" && Array.isArray(l.rawOutput?.output));
    assert.ok(
      shown.some((l) => Buffer.from(l.rawOutput!.output!).toString("utf8").includes(`STRIPE_API_KEY=${vendorKey}`)),
      "positive control: the shell output came back, exactly as it ran",
    );
    files = filesHolding([rig.sandbox.root], prefix);
  } catch (error) {
    failed = error;
  }
  const seen = await sampler.stop();
  const modelSaw = JSON.stringify(rig.mock.requests.map((r) => r.body));
  await rig.close();
  if (failed) throw failed;
  assert.ok(modelSaw.includes(`TZ=${marker}`), "positive control: grok's shell environment reached the model");
  assert.ok(!modelSaw.includes(prefix), "no canary reached grok's environment or the model");
  assert.ok(seen.samples > 10, `the sampler swept /proc ${seen.samples} times`);
  assert.deepEqual(seen.hits, [], "no process ever carried a canary on its argv");
  assert.ok(files.checked >= 3, `grepped ${files.checked} files (grok's session record, config, logs)`);
  assert.deepEqual(files.hits, [], "no file under HOME/GROK_HOME or the project holds a canary");
  assert.deepEqual(
    outputs.filter((o) => o.includes(prefix)),
    [],
    "no output holds a canary",
  );
});

/** Every key's value in the Redis at `port` (strings, hashes, lists, sets, sorted sets, streams) as one text. */
async function redisContents(port: number, password: string): Promise<{ keys: number; text: string }> {
  const { Redis } = await import("ioredis");
  const redis = new Redis({ host: "127.0.0.1", port, password, lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  try {
    const keys = await redis.keys("*");
    const parts: unknown[] = [];
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === "string") parts.push(await redis.getBuffer(key).then((b) => b?.toString("latin1")));
      else if (type === "hash") parts.push(await redis.hgetall(key));
      else if (type === "list") parts.push(await redis.lrange(key, 0, -1));
      else if (type === "set") parts.push(await redis.smembers(key));
      else if (type === "zset") parts.push(await redis.zrange(key, 0, -1));
      else if (type === "stream") parts.push(await redis.xrange(key, "-", "+"));
      else parts.push(`(${type} ${key})`);
    }
    return { keys: keys.length, text: JSON.stringify({ keys, parts }) };
  } finally {
    redis.disconnect();
  }
}

const LEAKY_TOOLS = `export const tools = [
  { name: "vendor", description: "Calls a vendor.", inputSchema: { type: "object", properties: {} },
    execute: () => { throw new Error("anthropic refused key " + process.env.ANTHROPIC_API_KEY + " for this call"); } },
  { name: "upstream", description: "Calls upstream.", inputSchema: { type: "object", properties: {} },
    execute: () => { throw new Error("upstream refused: api_key=" + process.env.GROK_SEAT_REDIS_PASSWORD); } },
];
`;

test("fleet: a worker's tool errors carrying an agent key or the Redis password reach neither the model, Redis, the submitter nor the worker's log; no canary reaches grok, an argv or a file", async (t) => {
  if (!need(t, redisMissing())) return;
  const useTool = (name: string) => ({
    name: "use_tool",
    arguments: { tool_name: `host-tools__${name}`, tool_input: {} },
  });
  const live = await startLiveRig({
    rules: [
      {
        match: "call the vendors",
        replies: [
          { toolCalls: [useTool("vendor")] },
          { toolCalls: [useTool("upstream")] },
          { toolCalls: [shellCall("env")] },
          { text: "vendors called" },
        ],
      },
    ],
  });
  if (!gotLive(t, live)) return;
  const { prefix, env: canaries } = otherAgentCanaries();
  const marker = `tz-marker-${randomBytes(4).toString("hex")}`;
  const redis = await startRedisServer({ password: canaries.GROK_SEAT_REDIS_PASSWORD });
  const url = `redis://127.0.0.1:${redis.port}`; // the password travels in GROK_SEAT_REDIS_PASSWORD, never argv
  const modulePath = join(live.sandbox.root, "tools.mjs");
  writeFileSync(modulePath, LEAKY_TOOLS);
  const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...canaries };
  const sampler = startArgvSampler(prefix);
  const outputs: string[] = [];
  const worker = startSeat(["worker", "--redis", url, "--name", "host-a", "--tools", modulePath], {
    env: {
      ...base,
      HOME: live.sandbox.home,
      GROK_HOME: live.sandbox.grokHome,
      GROK_BIN: live.binary,
      GROK_SEAT_HOME: join(live.sandbox.root, "seat-home"),
      TZ: marker,
    },
    cwd: live.sandbox.root,
  });
  let stored = { keys: 0, text: "" };
  let files = { checked: 0, hits: [] as string[] };
  let failed: unknown;
  try {
    await until(() => (worker.stdout().includes('"type":"worker"') ? true : undefined), 20_000, "the worker to start");
    const result = await runSeat(
      [
        "submit",
        "--redis",
        url,
        "--wait",
        "--allow",
        "mcp,execute",
        "--cwd",
        live.sandbox.project,
        "please call the vendors",
      ],
      { env: base },
    );
    outputs.push(result.stdout, result.stderr);
    assert.equal(
      result.code,
      0,
      `the turn completes; the tool failures are diagnostics: ${result.stdout} ${result.stderr}`,
    );
    const lines = result.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; [k: string]: any });
    assert.equal(lines.find((l) => l.type === "done")?.text, "vendors called");
    const diagnostics = lines.filter((l) => l.type === "diagnostic").map((l) => l.diagnostic.message as string);
    assert.ok(
      diagnostics.some((m) => /upstream refused: api_key=\[redacted\]/.test(m)),
      `the submitter sees the failure, masked: ${diagnostics.join(" | ")}`,
    );
    assert.ok(
      diagnostics.some((m) => /anthropic refused key \[redacted\] for this call/.test(m)),
      diagnostics.join(" | "),
    );
    stored = await redisContents(redis.port, canaries.GROK_SEAT_REDIS_PASSWORD!);
    files = filesHolding([live.sandbox.root, redis.dir], prefix);
  } catch (error) {
    failed = error;
  }
  worker.child.kill("SIGTERM");
  const ended = await worker.done;
  outputs.push(ended.stdout, ended.stderr);
  const seen = await sampler.stop();
  const modelSaw = JSON.stringify(live.mock.requests.map((r) => r.body));
  await redis.stop();
  await live.close();
  if (failed) throw failed;
  assert.ok(
    modelSaw.includes(`TZ=${marker}`),
    "positive control: the worker's grok shell environment reached the model",
  );
  assert.match(modelSaw, /Host tool \\+"vendor\\+" failed \[TOOL_EXECUTE_FAILED\]/);
  for (const secret of [prefix, "anthropic refused", "upstream refused"])
    assert.ok(!modelSaw.includes(secret), `${secret} never reached the model`);
  assert.ok(stored.keys >= 3, `read ${stored.keys} Redis keys`);
  assert.ok(!stored.text.includes(prefix), "no canary is anywhere in Redis (state, events, BullMQ)");
  assert.ok(seen.samples > 10, `the sampler swept /proc ${seen.samples} times`);
  assert.deepEqual(seen.hits, [], "no process ever carried a canary on its argv");
  assert.deepEqual(files.hits, [], "no file (grok home, seat home, Redis AOF) holds a canary");
  assert.deepEqual(
    outputs.filter((o) => o.includes(prefix)),
    [],
    "no submitter or worker output holds a secret",
  );
});
