/*
 * The `seat` CLI as a user runs it: flags, exit codes, NDJSON output, and bad input that must fail clearly
 * without running anything.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat } from "../support/cli.js";

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
