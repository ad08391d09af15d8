/*
 * A plain `seat run`'s control socket (issue 16): it goes away on every way out of the process, and when it
 * cannot be made the run says so in its own words. The agent is the fake (a deaf one that never ends a
 * cancelled turn, so only a second Ctrl-C ends the run).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runSeat, startSeat } from "../../support/cli.js";
import { FAKE_GROK_JS } from "../../support/fake-agent.js";

/** A `grok` that runs the fake agent with `scenario`. */
function fakeGrok(dir: string, scenario: string): string {
  const path = join(dir, `grok-${scenario}`);
  writeFileSync(
    path,
    `#!/bin/sh\nFAKE_GROK_SCENARIO=${scenario} exec ${JSON.stringify(process.execPath)} ${JSON.stringify(FAKE_GROK_JS)} "$@"\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** Every socket file under `dir` (recursively). */
function socketsUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isSocket())
    .map((e) => join(e.parentPath ?? e.path, e.name));
}

async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test("a second Ctrl-C ends a plain seat run at once (exit 130) and leaves no control socket behind", async () => {
  const dir = mkdtempSync(join(tmpdir(), "run-ctl-"));
  try {
    const seatHome = join(dir, "seat");
    const runtime = join(dir, "tmp");
    mkdirSync(runtime);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      GROK_SEAT_HOME: seatHome,
      TMPDIR: runtime,
      NO_COLOR: "1",
    };
    const run = startSeat(
      ["run", "--json", "--grok", fakeGrok(dir, "hang-on-prompt-deaf"), "--cwd", dir, "hang there"],
      { env },
    );
    try {
      await until(() => socketsUnder(seatHome).length === 1, "the run's control socket");
      // The prompt is in flight once the run has said its state is working.
      await until(() => run.stdout().includes('"state":"working"'), "the turn to start");
      run.child.kill("SIGINT");
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(run.child.exitCode, null, "the deaf agent keeps the first Ctrl-C's cancel waiting");
      run.child.kill("SIGINT");
      const done = await run.done;
      assert.equal(done.code, 130, done.stdout + done.stderr);
      assert.deepEqual([...socketsUnder(seatHome), ...socketsUnder(runtime)], [], "no stale control socket");
    } finally {
      run.child.kill("SIGKILL");
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a plain run whose control socket fits nowhere runs on and says so as a run, never as a named session", async () => {
  const dir = mkdtempSync(join(tmpdir(), "run-ctl-long-"));
  try {
    // Both places are past the socket path limit (MAX_SOCKET_PATH_BYTES).
    const deep = join(dir, "d".repeat(60), "e".repeat(60));
    mkdirSync(deep, { recursive: true });
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      GROK_SEAT_HOME: join(deep, "seat"),
      TMPDIR: deep,
      NO_COLOR: "1",
    };
    const done = await runSeat(["run", "--json", "--grok", fakeGrok(dir, "normal"), "--cwd", dir, "hello"], { env });
    assert.equal(done.code, 0, done.stdout + done.stderr);
    const lines = done.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string; diagnostic?: { code: string; message: string } });
    const diagnostic = lines.find(
      (l) => l.type === "diagnostic" && l.diagnostic?.code === "SESSION_SOCKET_PATH_TOO_LONG",
    )?.diagnostic;
    assert.ok(diagnostic, done.stdout);
    assert.match(diagnostic.message, /^This run's control socket does not fit/);
    assert.match(diagnostic.message, /The run goes on without one/);
    assert.doesNotMatch(diagnostic.message, /named session|Nothing was started/);
    assert.ok(
      lines.some((l) => l.type === "done"),
      "the run went on",
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
