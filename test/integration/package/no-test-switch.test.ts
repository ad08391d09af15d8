/*
 * No test switch in the shipped CLI: the variables that used to turn test hooks on (GROK_SEAT_TEST_HOOKS,
 * GROK_SEAT_TEST_AGENT_PINS) change nothing the built `seat` does; only the test-only entry
 * (test/support/seat-hooked.ts) installs hooks, in code. And no file under src/ reads such a variable.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SEAT_HOOKED_MAIN, runSeat } from "../../support/cli.js";

const ALL_OLD_HOOKS = "throw-uncaught,reject-unhandled,hold-before-dispatch,agent-pins-from-env,mcp-stray-console";

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "gs-no-switch-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("the shipped seat ignores GROK_SEAT_TEST_HOOKS: no injected throw or rejection, the same exit and output as without it", async (t) => {
  const dir = scratch(t);
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: join(dir, "seat-home") };
  for (const args of [["--version"], ["sessions", "list", "--json"]]) {
    const plain = await runSeat(args, { env, cwd: dir });
    const switched = await runSeat(args, { env: { ...env, GROK_SEAT_TEST_HOOKS: ALL_OLD_HOOKS }, cwd: dir });
    assert.equal(switched.code, 0, `${args.join(" ")}: ${switched.stdout}${switched.stderr}`);
    assert.deepEqual(
      { code: switched.code, stdout: switched.stdout, stderr: switched.stderr },
      { code: plain.code, stdout: plain.stdout, stderr: plain.stderr },
      args.join(" "),
    );
  }
  // The test-only entry is what still injects them (the last-resort test in cli-pipes uses it).
  const hooked = await runSeat(["--version"], {
    env: { ...env, GROK_SEAT_TEST_HOOKS: "throw-uncaught" },
    cwd: dir,
    main: SEAT_HOOKED_MAIN,
  });
  assert.equal(hooked.code, 1);
  assert.equal(hooked.stderr.trim(), "seat: internal error: test hook throw-uncaught [INTERNAL]");
});

test("the shipped seat ignores GROK_SEAT_TEST_AGENT_PINS: agents install knows only the built-in agents and installs nothing", async (t) => {
  const dir = scratch(t);
  const agentsDir = join(dir, "agents");
  const pins = { tiny: { dir: "tiny", package: "gs-tiny-agent", version: `file:${join(dir, "no-such.tgz")}` } };
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GROK_SEAT_AGENTS_DIR: agentsDir,
    GROK_SEAT_TEST_HOOKS: "agent-pins-from-env",
    GROK_SEAT_TEST_AGENT_PINS: JSON.stringify(pins),
  };
  const result = await runSeat(["agents", "install", "tiny", "--json"], { env, cwd: dir });
  assert.equal(result.code, 2, result.stdout + result.stderr);
  assert.equal((JSON.parse(result.stdout.trim().split("\n").at(-1)!) as { code: string }).code, "AGENT_NOT_FOUND");
  assert.equal(existsSync(join(agentsDir, "tiny")), false, "nothing was installed");
});

test("no shipped module (dist/src) reads a GROK_SEAT_TEST_* variable", () => {
  const offenders: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (
        entry.name.endsWith(".js") &&
        !entry.name.endsWith(".test.js") &&
        readFileSync(path, "utf8").includes("GROK_SEAT_TEST_")
      )
        offenders.push(path);
    }
  };
  // What ships is the compiled tree beside this test's own (dist/src; the Node 24 stage copies dist without src).
  const shipped = fileURLToPath(new URL("../../../src/", import.meta.url));
  walk(shipped);
  assert.ok(offenders.length === 0, `read by: ${offenders.join(", ")}`);
  assert.ok(existsSync(join(shipped, "cli", "main.js")), `scanned the compiled tree ${shipped}`);
});
