/*
 * The `seat` CLI in pipes and under interruptions (issue 15 §4): a closed stdout ends the turn as a cancel and
 * exits 141 with no stack trace; a fuzzer closes stdout or stdin and sends signals at random points of a turn
 * and checks every run ends with a documented exit code, no stack trace, no surviving agent and no `running` turn.
 * The agent is the fake (a real ACP process) for volume; test/live/cli/cli.test.ts repeats the key cases on real grok.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";
import { SEAT_HOOKED_MAIN, SEAT_MAIN, STACK, runSeat, type CliResult } from "../../support/cli.js";
import { alive } from "../../support/processes.js";
import { need } from "../../support/requirements.js";
import { redisMissing, startFleetRig } from "../../support/fleet-rig.js";
import { connectFleet } from "../../../src/fleet/index.js";

const work = mkdtempSync(join(tmpdir(), "cli-pipes-"));
after(() => rmSync(work, { recursive: true, force: true }));

/** The exit codes README documents for `seat run`. */
const DOCUMENTED = new Set([0, 1, 2, 3, 4, 5, 124, 130, 141]);

/** A stack trace line as node prints one (`    at fn (file:line:col)`) or a node-internal frame. */

/** A world: its own HOME, seat home, and a `grok` that runs the fake with a record file per process. */
function world(tag: string): { dir: string; grok: string; records: string; env: NodeJS.ProcessEnv } {
  const dir = mkdtempSync(join(work, `${tag}-`));
  const records = join(dir, "records");
  const grok = join(dir, "grok");
  // $$ is the shell's pid, which exec hands to node: one record file per fake process.
  writeFileSync(
    grok,
    `#!/bin/sh\nFAKE_GROK_RECORD_FILE=${JSON.stringify(records)}-$$.json exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(grok, 0o755);
  return {
    dir,
    grok,
    records,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      GROK_SEAT_HOME: join(dir, "seat"),
      XAI_API_KEY: "test-key",
      NO_COLOR: "1",
    },
  };
}

/** Pids of the fake agents a world started. */
function agentPids(w: { dir: string; records: string }): number[] {
  const prefix = `${w.records.split("/").pop()!}-`;
  return readdirSync(w.dir)
    .filter((f) => f.startsWith(prefix))
    .map((f) => (JSON.parse(readFileSync(join(w.dir, f), "utf8")) as { pid: number }).pid);
}

/** Waits until none of `pids` is alive (dispose has a grace period), or gives up after `ms`. */
async function survivors(pids: number[], ms = 5_000): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The recorded turns of a named session in world `w`. */
async function turns(
  w: { env: NodeJS.ProcessEnv; dir: string },
  name: string,
): Promise<{ state: string; stopReason: string | null }[]> {
  const history = await runSeat(["sessions", "history", name, "--json", "--cwd", w.dir], { env: w.env });
  assert.equal(history.code, 0, history.stderr);
  return history.stdout.trim() === ""
    ? []
    : history.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { state: string; stopReason: string | null });
}

type Action = {
  kind: "close-stdout" | "close-stdin" | "signal";
  signal?: NodeJS.Signals;
  afterMs: number;
  from: "spawn" | "first-line";
};

/**
 * Runs seat, performing `action` once (calling `beforeAct` right before it); stdin carries `stdinText` (then EOF)
 * unless the action closes it first.
 */
function seatWith(
  args: string[],
  env: NodeJS.ProcessEnv,
  action: Action | undefined,
  stdinText?: string,
  beforeAct?: () => void,
): Promise<CliResult> {
  const child = spawn(process.execPath, [SEAT_MAIN, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdin.on("error", () => undefined);
  let closed = false;
  const act = () => {
    if (!action || closed) return;
    beforeAct?.();
    if (action.kind === "close-stdout") child.stdout.destroy();
    else if (action.kind === "close-stdin") child.stdin.destroy();
    else child.kill(action.signal);
  };
  let timer = action?.from === "spawn" ? setTimeout(act, action.afterMs) : undefined;
  let sawLine = false;
  child.stdout.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (!sawLine && action?.from === "first-line" && stdout.includes("\n")) {
      sawLine = true;
      timer = setTimeout(act, action.afterMs);
    }
  });
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  if (stdinText !== undefined) child.stdin.end(stdinText);
  return new Promise((resolve) =>
    child.on("close", (code, signal) => {
      closed = true;
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

test("seat run --json into a reader that goes away cancels the named session's turn (recorded cancelled), exits 141 and prints no stack trace", async () => {
  const w = world("head");
  const result = await seatWith(
    ["run", "--json", "-s", "piped", "--grok", w.grok, "--cwd", w.dir, "scenario:slow-stream go"],
    w.env,
    { kind: "close-stdout", afterMs: 0, from: "first-line" },
  );
  assert.equal(result.code, 141, result.stderr);
  assert.doesNotMatch(result.stderr, STACK);
  assert.doesNotMatch(result.stderr, /EPIPE/);
  assert.deepEqual(await survivors(agentPids(w)), []);
  const recorded = await turns(w, "piped");
  assert.equal(recorded.length, 1);
  assert.deepEqual(
    [recorded[0]!.state, recorded[0]!.stopReason],
    ["interrupted", "cancelled"],
    "ended as a cancel, not left running or dead-holder interrupted",
  );
});

test("a Ctrl-C after the agent answered, while the run closes, says it is closing, not cancelling, and the answer stands", async () => {
  const w = world("closing");
  // A notification program that says it started, then takes its time: the run's close waits on it (its grace).
  const started = join(w.dir, "notify-started");
  const config = join(w.dir, ".config", "grok-seat", "config.json");
  mkdirSync(dirname(config), { recursive: true });
  const slow = `require('fs').writeFileSync(process.argv[1], ''); setTimeout(() => {}, 2000)`;
  writeFileSync(
    config,
    JSON.stringify({
      notify: { targets: { slow: { type: "command", command: [process.execPath, "-e", slow, started] } } },
    }),
  );
  const child = spawn(
    process.execPath,
    [SEAT_MAIN, "run", "--notify", "slow", "--grok", w.grok, "--cwd", w.dir, "hi"],
    {
      env: w.env,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const until = Date.now() + 15_000;
  while (!existsSync(started) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  assert.ok(existsSync(started), `the turn reached its close (the notification started); stderr: ${stderr}`);
  child.kill("SIGINT");
  const code = await exited;
  assert.match(stderr, /\^C the turn is over; closing it… \(Ctrl-C again to stop now\)/);
  assert.doesNotMatch(stderr, /cancelling/, "nothing was cancelled: the agent had answered");
  assert.doesNotMatch(stderr, STACK);
  assert.equal(code, 0, stderr);
  assert.notEqual(stdout.trim(), "", "the answer was printed");
  assert.deepEqual(await survivors(agentPids(w)), []);
});

test("listing verbs into a closed pipe exit 141 quietly: sessions list, agents, config, completion", async () => {
  const w = world("lists");
  const made = await runSeat(["run", "-s", "one", "--grok", w.grok, "--cwd", w.dir, "hi"], { env: w.env });
  assert.equal(made.code, 0, made.stderr);
  for (const args of [
    ["sessions", "list", "--json"],
    ["agents", "--json", "--no-probe"],
    ["config", "--json"],
    ["completion", "bash"],
    ["--help"],
  ]) {
    const result = await seatWith(args, w.env, { kind: "close-stdout", afterMs: 0, from: "spawn" });
    // The reader is gone before the first write: the write fails EPIPE and seat exits like a SIGPIPE'd tool.
    assert.ok(result.code === 141 || result.code === 0, `${args.join(" ")}: exit ${result.code}\n${result.stderr}`);
    assert.doesNotMatch(result.stderr, STACK, args.join(" "));
    assert.doesNotMatch(result.stderr, /EPIPE/, args.join(" "));
  }
  const list = await seatWith(["sessions", "list", "--json"], w.env, {
    kind: "close-stdout",
    afterMs: 0,
    from: "spawn",
  });
  assert.equal(list.code, 141, list.stderr);
});

test("a 5 MB prompt from -f - reaches the agent whole, and -f FILE works like send -f", async () => {
  const w = world("big");
  const line = "the quick brown fox jumps over the lazy dog. ";
  const big = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
  const fromStdin = await seatWith(
    ["run", "--json", "-s", "big", "--grok", w.grok, "--cwd", w.dir, "-f", "-"],
    w.env,
    undefined,
    big,
  );
  assert.equal(fromStdin.code, 0, fromStdin.stderr);
  const file = join(w.dir, "prompt.txt");
  writeFileSync(file, "from a file\n");
  const fromFile = await runSeat(["run", "-s", "big", "--grok", w.grok, "--cwd", w.dir, "-f", file], { env: w.env });
  assert.equal(fromFile.code, 0, fromFile.stderr);
  const history = await runSeat(["sessions", "history", "big", "--json", "--cwd", w.dir], { env: w.env });
  const prompts = history.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { prompt: string; state: string });
  assert.equal(prompts[0]!.prompt.length, big.length, "all 5 MB were sent");
  assert.equal(prompts[0]!.state, "completed");
  assert.equal(prompts[1]!.prompt, "from a file\n");
  const both = await runSeat(["run", "--grok", w.grok, "-f", file, "and words"], { env: w.env });
  assert.equal(both.code, 2);
  assert.match(both.stderr, /either as an argument or with -f, not both/);
  const missing = await runSeat(["run", "--grok", w.grok, "-f", join(w.dir, "nope.txt")], { env: w.env });
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read the prompt file .*nope\.txt \(ENOENT\)/);
  const empty = await seatWith(["run", "--grok", w.grok, "-f", "-"], w.env, undefined, "");
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /the prompt from stdin is empty/);
});

test("fuzz: closed stdout, closed stdin and signals at random points of a turn never leave a stack trace, an agent or a running turn", async () => {
  const seed = Number(process.env.CLI_FUZZ_SEED ?? Date.now() % 100_000);
  let state = seed;
  const random = () => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const w = world("fuzz");
  const runs = Number(process.env.CLI_FUZZ_RUNS ?? 24);
  for (let i = 0; i < runs; i += 1) {
    const kind = pick(["close-stdout", "close-stdin", "signal", "signal"] as const);
    const action: Action = {
      kind,
      afterMs: Math.floor(random() * 900),
      from: pick(["spawn", "first-line"] as const),
      ...(kind === "signal" ? { signal: pick(["SIGINT", "SIGTERM", "SIGHUP"] as const) } : {}),
    };
    const named = random() < 0.5;
    const json = random() < 0.6;
    const viaStdin = random() < 0.3;
    const args = [
      "run",
      ...(json ? ["--json"] : []),
      ...(named ? ["-s", `fz${i}`] : []),
      "--grok",
      w.grok,
      "--cwd",
      w.dir,
      ...(viaStdin ? ["-f", "-"] : ["scenario:slow-stream go"]),
    ];
    const label = `seed ${seed} run ${i}: ${JSON.stringify(action)} ${args.join(" ")}`;
    const before = new Set(agentPids(w));
    // The agents of this run alive when the action came (seat installs its handlers before it starts one).
    let runningAtAction: number[] = [];
    const result = await seatWith(args, w.env, action, viaStdin ? "scenario:slow-stream go" : undefined, () => {
      runningAtAction = agentPids(w).filter((p) => !before.has(p) && alive(p));
    });
    // Killed by the signal itself only where node has no handler: in its first milliseconds, before seat installs
    // one, or in its last, once the turn is over and its agent disposed (node tears its handlers down on exit).
    const killedBySignal = result.code === null && result.signal === action.signal;
    assert.ok(
      killedBySignal || DOCUMENTED.has(result.code ?? -1),
      `${label}: exit ${result.code}/${result.signal}\n${result.stderr}`,
    );
    assert.doesNotMatch(result.stderr, STACK, label);
    const started = agentPids(w).filter((p) => !before.has(p));
    if (killedBySignal) assert.deepEqual(runningAtAction, [], `${label}: seat died of the signal while its agent ran`);
    assert.deepEqual(await survivors(started), [], `${label}: agent survived`);
    if (named && existsSync(join(w.dir, "seat"))) {
      const recorded = await turns(w, `fz${i}`).catch(() => []);
      assert.ok(
        recorded.every((t) => t.state !== "running"),
        `${label}: ${JSON.stringify(recorded)}`,
      );
    }
  }
});

test("an exception or rejection no verb caught is one coded line (or one error object), exit 1, never a stack trace", async () => {
  const w = world("last-resort");
  for (const hook of ["throw-uncaught", "reject-unhandled"]) {
    const env = { ...w.env, GROK_SEAT_TEST_HOOKS: hook };
    const human = await runSeat(["run", "--grok", w.grok, "--cwd", w.dir, "scenario:slow-stream go"], {
      env,
      main: SEAT_HOOKED_MAIN,
    });
    assert.equal(human.code, 1, hook);
    assert.doesNotMatch(human.stderr, STACK, hook);
    assert.equal(human.stderr.trim(), `seat: internal error: test hook ${hook} [INTERNAL]`);
    const json = await runSeat(["sessions", "list", "--json"], { env, main: SEAT_HOOKED_MAIN });
    assert.equal(json.code, 1, hook);
    assert.deepEqual(JSON.parse(json.stdout.trim().split("\n").at(-1)!), {
      type: "error",
      code: "INTERNAL",
      message: `test hook ${hook}`,
    });
    assert.doesNotMatch(json.stderr, STACK, hook);
  }
});

test("seat submit -f FILE|- queues the file's or stdin's prompt; --wait into a reader that goes away cancels the job and exits 141", async (t) => {
  if (!need(t, redisMissing())) return;
  const rig = await startFleetRig();
  const client = await connectFleet(rig.redis.url);
  try {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: rig.root };
    const file = join(rig.root, "prompt.txt");
    writeFileSync(file, "from a file\n");
    const queued = await runSeat(["submit", "--redis", rig.redis.url, "--json", "-f", file], { env });
    assert.equal(queued.code, 0, queued.stderr);
    const id = (JSON.parse(queued.stdout.trim()) as { id: string }).id;
    assert.equal((await client.job(id).state()).prompt, "from a file\n");
    await client.job(id).cancel();
    await rig.startWorker("host-a");
    // 5 MB from stdin travel through Redis to a worker's agent, and the turn completes.
    const line = "the quick brown fox jumps over the lazy dog. ";
    const big = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    const fromStdin = await seatWith(["submit", "--redis", rig.redis.url, "--wait", "-f", "-"], env, undefined, big);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const bigId = (JSON.parse(fromStdin.stdout.split("\n")[0]!) as { id: string }).id;
    assert.equal((await client.job(bigId).state()).status, "completed");
    assert.ok((await client.job(bigId).state()).prompt?.startsWith(line), "the job carries the file's text");
    const waited = await seatWith(
      ["submit", "--redis", rig.redis.url, "--wait", "scenario:hang-on-prompt wait for cancel"],
      env,
      { kind: "close-stdout", afterMs: 0, from: "first-line" },
    );
    assert.equal(waited.code, 141, waited.stderr);
    assert.doesNotMatch(waited.stderr, STACK);
    const jobs = await runSeat(["jobs", "list", "--json", "--redis", rig.redis.url], { env });
    const statuses = jobs.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: string; status: string })
      .map((j) => j.status)
      .sort();
    assert.deepEqual(
      statuses,
      ["cancelled", "cancelled", "completed"],
      "the job whose stream nobody read was cancelled",
    );
  } finally {
    await client.close();
    await rig.close();
  }
});
