/*
 * The `seat` CLI as a user runs it: flags, exit codes, NDJSON output, and bad input that must fail clearly
 * without running anything.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat } from "../../support/cli.js";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";

const baseEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin" };

test("an unknown verb, an unknown flag, a missing prompt or a malformed number exit 2 with a message naming it", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-usage-"));
  try {
    const env = { ...baseEnv, HOME: home };
    const verb = await runSeat(["frobnicate"], { env });
    assert.equal(verb.code, 2);
    assert.match(verb.stderr, /unknown command "frobnicate"/);
    const flag = await runSeat(["run", "--frob", "hi"], { env });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /--frob/);
    const missing = await runSeat(["run"], { env });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /give the prompt/);
    const number = await runSeat(["run", "--turn-timeout", "soon", "hi"], { env });
    assert.equal(number.code, 2);
    assert.match(number.stderr, /--turn-timeout takes a number of seconds/);
    const json = await runSeat(["run", "--json", "--frob"], { env });
    assert.equal(json.code, 2);
    const line = JSON.parse(json.stdout.trim()) as { type: string; code: string };
    assert.deepEqual([line.type, line.code], ["error", "CLI_USAGE"]);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("an invalid permission policy exits 5 naming the bad category, before any grok starts", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-policy-"));
  try {
    const env = { ...baseEnv, HOME: home, GROK_BIN: join(home, "does-not-exist") };
    const flags = await runSeat(["run", "--allow", "read,teleport", "hi"], { env });
    assert.equal(flags.code, 5);
    assert.match(flags.stderr, /teleport/);
    const file = join(home, "policy.json");
    writeFileSync(file, "{not json");
    const bad = await runSeat(["run", "--policy", file, "hi"], { env });
    assert.equal(bad.code, 5);
    assert.match(bad.stderr, /policy/i);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a GROK_BIN that is not executable exits 3 and says what was tried", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-bin-"));
  try {
    const fake = join(home, "grok");
    writeFileSync(fake, "not a program");
    chmodSync(fake, 0o644);
    const result = await runSeat(["probe", "--json"], { env: { ...baseEnv, HOME: home, GROK_BIN: fake } });
    assert.equal(result.code, 3);
    const line = JSON.parse(result.stdout.trim()) as { type: string; code: string; message: string };
    assert.equal(line.code, "GROK_NOT_FOUND");
    assert.match(line.message, /GROK_BIN/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("--help prints each verb's flags and exits 0", async () => {
  for (const verb of ["run", "probe", "models", "demo"]) {
    const result = await runSeat([verb, "--help"], { env: baseEnv });
    assert.equal(result.code, 0, verb);
    assert.match(result.stdout, new RegExp(`Usage: seat ${verb}`));
  }
  const top = await runSeat(["--help"], { env: baseEnv });
  assert.equal(top.code, 0);
  assert.match(top.stdout, /Commands:/);
});

test("test hooks are not user flags: no verb's help mentions them and `--hold-before-dispatch` is refused as unknown", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-hooks-"));
  try {
    const env = { ...baseEnv, HOME: home, GROK_SEAT_HOME: join(home, "seat") };
    for (const verb of ["hire", "send", "status", "release", "run", "probe", "models", "demo"]) {
      const help = await runSeat([verb, "--help"], { env });
      assert.equal(help.code, 0, verb);
      assert.doesNotMatch(help.stdout, /hold|hook/i, verb);
    }
    const flag = await runSeat(["hire", "--visible", "--hold-before-dispatch", "--dry-run", "--json"], { env });
    assert.equal(flag.code, 2, flag.stdout + flag.stderr);
    assert.equal((JSON.parse(flag.stdout.trim()) as { code: string }).code, "CLI_USAGE");
    assert.match(flag.stdout, /--hold-before-dispatch/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

/** A `grok` that runs the fake agent with a scenario and a record file (its argv, pid, model). */
function fakeGrok(dir: string, scenario = "normal"): { path: string; record: string } {
  const path = join(dir, `grok-${scenario}`);
  const record = join(dir, `record-${scenario}.json`);
  writeFileSync(
    path,
    `#!/bin/sh\nFAKE_GROK_SCENARIO=${scenario} FAKE_GROK_RECORD_FILE=${JSON.stringify(record)} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return { path, record };
}

test("bad arguments are usage errors (exit 2) before anything starts: --fail-fast abc, -s ../x, a missing or non-directory --cwd, seat mcp --max-runs 0 or abc", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-args-"));
  try {
    // GROK_BIN points nowhere: had anything started, the exit would be 3 naming the binary.
    const env = { ...baseEnv, HOME: home, GROK_SEAT_HOME: join(home, "seat"), GROK_BIN: join(home, "no-grok") };
    const failFast = await runSeat(["run", "--fail-fast", "abc", "hi"], { env });
    assert.equal(failFast.code, 2, failFast.stderr);
    assert.match(failFast.stderr, /--fail-fast takes an optional whole number, got "abc"/);
    const name = await runSeat(["run", "-s", "../x", "hi"], { env });
    assert.equal(name.code, 2, name.stderr);
    assert.match(name.stderr, /"\.\.\/x" is not a session name/);
    const missing = await runSeat(["run", "--cwd", join(home, "nowhere"), "hi"], { env });
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /--cwd .*nowhere does not exist/);
    assert.doesNotMatch(missing.stderr, /resolveGrokBinary|GROK_BIN/);
    const file = join(home, "file.txt");
    writeFileSync(file, "x");
    const notDir = await runSeat(["run", "--json", "--cwd", file, "hi"], { env });
    assert.equal(notDir.code, 2);
    const line = JSON.parse(notDir.stdout.trim()) as { type: string; code: string; message: string };
    assert.deepEqual([line.type, line.code], ["error", "CLI_USAGE"]);
    assert.match(line.message, /is not a directory/);
    // Refused before the server answers anyone (stdin is closed at once: a started server would exit 0).
    for (const value of ["0", "abc"]) {
      const runs = await runSeat(["mcp", "--max-runs", value], { env });
      assert.equal(runs.code, 2, runs.stderr);
      assert.match(runs.stderr, new RegExp(`--max-runs takes a whole number of at least 1, got "${value}"`));
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("messages say things once and in our words: one `seat` prefix, one code, the unknown flag named without parser text", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-words-"));
  try {
    const env = { ...baseEnv, HOME: home };
    const flag = await runSeat(["run", "--frob", "hi"], { env });
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /^seat run: unknown flag --frob /);
    assert.doesNotMatch(flag.stderr, /seat: seat|To specify a positional|'/);
    assert.equal(flag.stderr.match(/\[CLI_USAGE\]/g)?.length, 1);
    const value = await runSeat(["run", "hi", "--model"], { env });
    assert.match(value.stderr, /^seat run: --model needs a value\./);
    const verb = await runSeat(["frobnicate"], { env });
    assert.doesNotMatch(verb.stderr, /seat: seat/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test('an agent that cannot start is one {"type":"error"} (not a diagnostic), exit 4 when not authenticated, its code once in human text', async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-start-"));
  try {
    const env = { ...baseEnv, HOME: home, GROK_SEAT_HOME: join(home, "seat") };
    const grok = fakeGrok(home, "no-auth");
    const json = await runSeat(["run", "--json", "--grok", grok.path, "--cwd", home, "hi"], { env });
    assert.equal(json.code, 4, json.stdout + json.stderr);
    const lines = json.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; code?: string; message?: string });
    assert.deepEqual(
      lines.map((l) => l.type),
      ["error"],
    );
    assert.equal(lines[0]!.code, "ACP_NOT_AUTHENTICATED");
    assert.match(lines[0]!.message ?? "", /^Grok session could not start: /);
    const human = await runSeat(["run", "--grok", grok.path, "--cwd", home, "hi"], { env: { ...env, NO_COLOR: "1" } });
    assert.equal(human.code, 4);
    assert.match(human.stderr, /^seat run: Grok session could not start: /m);
    assert.equal(human.stderr.match(/\[ACP_NOT_AUTHENTICATED\]/g)?.length, 1, human.stderr);
    // Another agent names itself, never "Grok".
    const custom = await runSeat(
      ["run", "--json", "--agent-command", `${grok.path} agent stdio`, "--cwd", home, "hi"],
      { env },
    );
    const error = JSON.parse(custom.stdout.trim().split("\n").at(-1)!) as { type: string; message: string };
    assert.equal(error.type, "error");
    assert.match(error.message, /^custom agent \(.*\) session could not start: /);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("seat help VERB shows that verb's help; -V and --version are listed; every verb's help has examples", async () => {
  const top = await runSeat(["help"], { env: baseEnv });
  assert.equal(top.code, 0);
  assert.match(top.stdout, /-V, --version/);
  assert.equal(
    (await runSeat(["-V"], { env: baseEnv })).stdout,
    (await runSeat(["--version"], { env: baseEnv })).stdout,
  );
  const verbs = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
  assert.ok(verbs.includes("run") && verbs.includes("config") && verbs.includes("completion"), verbs.join(","));
  for (const verb of verbs) {
    const viaHelp = await runSeat(["help", verb], { env: baseEnv });
    assert.equal(viaHelp.code, 0, verb);
    assert.equal(viaHelp.stdout, (await runSeat([verb, "--help"], { env: baseEnv })).stdout, verb);
    assert.match(viaHelp.stdout, /\nExamples:\n {2}seat /, `${verb} has examples`);
  }
  const unknown = await runSeat(["help", "frobnicate"], { env: baseEnv });
  assert.equal(unknown.code, 2);
});

test("seat completion bash is valid bash, and completing `seat ru` offers run; zsh and fish scripts name every verb", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-completion-"));
  try {
    const script = join(home, "seat.bash");
    const bash = await runSeat(["completion", "bash"], { env: baseEnv });
    assert.equal(bash.code, 0, bash.stderr);
    writeFileSync(script, bash.stdout);
    assert.equal(spawnSync("bash", ["-n", script]).status, 0, "bash -n accepts it");
    const complete = (words: string[]) =>
      spawnSync(
        "bash",
        [
          "-c",
          `source ${JSON.stringify(script)}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}; _seat; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      )
        .stdout.trim()
        .split("\n");
    assert.deepEqual(complete(["seat", "ru"]), ["run"]);
    assert.ok(complete(["seat", "run", "--fi"]).includes("--file"));
    assert.ok(complete(["seat", "help", "comp"]).includes("completion"));
    for (const shell of ["zsh", "fish"]) {
      const out = await runSeat(["completion", shell], { env: baseEnv });
      assert.equal(out.code, 0, shell);
      for (const verb of ["run", "sessions", "submit", "config"])
        assert.match(out.stdout, new RegExp(`\\b${verb}\\b`), `${shell} ${verb}`);
    }
    assert.equal((await runSeat(["completion", "tcsh"], { env: baseEnv })).code, 2);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("config files: the user's and the nearest project .grok-seat.json give defaults, flags and env win, seat config names each source", async () => {
  const home = mkdtempSync(join(tmpdir(), "cli-config-"));
  try {
    const xdg = join(home, "xdg");
    mkdirSync(join(xdg, "grok-seat"), { recursive: true });
    writeFileSync(
      join(xdg, "grok-seat", "config.json"),
      JSON.stringify({ model: "grok-4.5", redis: "redis://:hunter2@127.0.0.1:6390", agentsDir: "agents" }),
    );
    const project = join(home, "project");
    const sub = join(project, "src", "deep");
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(project, ".grok-seat.json"), JSON.stringify({ model: "grok-4.6", policy: "policy.json" }));
    const env = {
      ...baseEnv,
      HOME: home,
      XDG_CONFIG_HOME: xdg,
      GROK_SEAT_HOME: join(home, "seat"),
      XAI_API_KEY: "test-key",
    };
    const show = async (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => {
      const r = await runSeat(["config", "--json", ...args], { env: { ...env, ...extraEnv }, cwd: sub });
      assert.equal(r.code, 0, r.stderr);
      return Object.fromEntries(
        r.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { key: string; value: string | null; source: string; file?: string })
          .map((e) => [e.key, e]),
      );
    };
    const layered = await show([]);
    assert.deepEqual(
      [layered.model.value, layered.model.source, layered.model.file],
      ["grok-4.6", "project", join(project, ".grok-seat.json")],
    );
    assert.deepEqual([layered.policy.value, layered.policy.source], [join(project, "policy.json"), "project"]);
    assert.deepEqual([layered.agentsDir.value, layered.agentsDir.source], [join(xdg, "grok-seat", "agents"), "user"]);
    assert.deepEqual(
      [layered.redis.value, layered.redis.source],
      ["redis://:[redacted]@127.0.0.1:6390", "user"],
      "a password in a config file is never shown",
    );
    assert.deepEqual([layered.agent.value, layered.agent.source], [null, "default"]);
    const over = await show(["--model", "mock"], { GROK_SEAT_REDIS_URL: "redis://127.0.0.1:6391" });
    assert.deepEqual([over.model.value, over.model.source], ["mock", "flag"]);
    assert.deepEqual([over.redis.value, over.redis.source], ["redis://127.0.0.1:6391", "env"]);
    // The defaults reach the verb: the project's model is the agent's -m, and its policy file is used.
    writeFileSync(
      join(project, "policy.json"),
      JSON.stringify({ schema: "grok-seat.permissions.v1", allow: ["read"] }),
    );
    const grok = fakeGrok(home);
    const run = await runSeat(["run", "--grok", grok.path, "hi"], { env, cwd: sub });
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(readFileSync(grok.record, "utf8")) as { model: string }).model, "grok-4.6");
    const flagWins = await runSeat(["run", "--grok", grok.path, "--model", "mock", "hi"], { env, cwd: sub });
    assert.equal(flagWins.code, 0, flagWins.stderr);
    assert.equal((JSON.parse(readFileSync(grok.record, "utf8")) as { model: string }).model, "mock");
    writeFileSync(
      join(project, "policy.json"),
      JSON.stringify({ schema: "grok-seat.permissions.v1", allow: ["teleport"] }),
    );
    assert.equal(
      (await runSeat(["run", "--grok", grok.path, "hi"], { env, cwd: sub })).code,
      5,
      "the project's policy file is the one checked",
    );
    // A malformed file is exit 2 naming the file and the key.
    writeFileSync(join(project, ".grok-seat.json"), JSON.stringify({ modle: "x" }));
    const typo = await runSeat(["run", "--grok", grok.path, "hi"], { env, cwd: sub });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /\.grok-seat\.json, key "modle": unknown key/);
    writeFileSync(join(xdg, "grok-seat", "config.json"), "{ not json");
    const broken = await runSeat(["config"], { env, cwd: home });
    assert.equal(broken.code, 2);
    assert.match(broken.stderr, /config\.json: not readable JSON/);
    assert.match(broken.stderr, /CLI_CONFIG_INVALID/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
