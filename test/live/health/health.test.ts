/*
 * grok's health, live: the real grok 1.0.41 with its model unreachable (the sandbox's BYOK model points at a
 * loopback port nobody listens on, inside the suite's `unshare -rn`). grok logs its retries to
 * $GROK_HOME/logs/unified.jsonl; the seat must surface them within seconds and, with fail-fast, end the turn
 * with MODEL_UNREACHABLE long before the idle timeout. A missing real binary fails these tests.
 */
import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { createSession } from "../../../src/runtime/index.js";
import type { SeatEvent } from "../../../src/acp/index.js";
import { createSandbox, type Sandbox } from "../../../src/sandbox/index.js";
import { liveBinary } from "../../support/live-rig.js";
import { needGrok } from "../../support/requirements.js";
import { runSeat } from "../../support/cli.js";

const IDLE_TIMEOUT_MS = 180_000;
/** Far below the idle timeout, generous for a loaded 2-core machine (measured: attempt 3 ~5 s after the prompt). */
const FAIL_FAST_BOUND_MS = 60_000;

/** A loopback port that was free a moment ago and that nothing listens on now. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The real binary and a sandbox whose model is unreachable; the sandbox is removed after the test. */
async function unreachableRig(t: TestContext): Promise<{ binary: string; sandbox: Sandbox } | null> {
  const binary = await liveBinary();
  if (
    !needGrok(t, binary instanceof Error ? `the real grok 1.0.41: ${binary.message}` : false) ||
    binary instanceof Error
  )
    return null;
  const sandbox = createSandbox({ modelBaseUrl: `http://127.0.0.1:${await deadPort()}/v1` });
  t.after(() => sandbox.cleanup());
  return { binary, sandbox };
}

function seatEnv(binary: string, sandbox: Sandbox): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: sandbox.home,
    GROK_HOME: sandbox.grokHome,
    GROK_BIN: binary,
  };
}

test("with the model unreachable, onRetry reports grok's retries within seconds and fail-fast resolves MODEL_UNREACHABLE", async (t) => {
  const rig = await unreachableRig(t);
  if (!rig) return;
  const { binary, sandbox } = rig;
  const events: SeatEvent[] = [];
  const retries: Array<{ attempt: number; max: number; reason: string; atMs: number }> = [];
  let sentAt = 0;
  const session = await createSession({
    cwd: sandbox.project,
    grokCliBinaryPath: binary,
    agentEnv: sandbox.env,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    idleTimeoutMs: IDLE_TIMEOUT_MS,
    failFastAfterRetries: 3,
    callbacks: {
      onEvent: (e) => void events.push(e),
      onRetry: (e) =>
        void retries.push({ attempt: e.attempt, max: e.max, reason: e.reason, atMs: Date.now() - sentAt }),
    },
  });
  t.after(() => session.dispose());
  assert.equal(session.state, "ready", JSON.stringify(session.diagnostics));
  sentAt = Date.now();
  const result = await session.prompt("say hello");
  const elapsedMs = Date.now() - sentAt;
  t.diagnostic(
    `fail-fast 3: turn ended after ${elapsedMs} ms; retries at ${retries.map((r) => `${r.attempt}:${r.atMs}ms`).join(", ")}`,
  );

  assert.equal(result.diagnostic?.code, "MODEL_UNREACHABLE", JSON.stringify(result));
  assert.match(result.diagnostic.message, /connection refused \(attempt 3\/15\)/);
  assert.match(result.diagnostic.message, /Connection refused \(os error 111\)/, "grok's own reason is named");
  assert.equal(result.stopReason, "cancelled", "grok was asked to cancel and answered");
  assert.ok(elapsedMs < FAIL_FAST_BOUND_MS, `fail-fast took ${elapsedMs} ms (idle timeout ${IDLE_TIMEOUT_MS} ms)`);
  assert.deepEqual(
    retries.map((r) => [r.attempt, r.max, r.reason]),
    [1, 2, 3].map((n) => [n, 15, "connection refused"]),
  );
  assert.ok(retries[0]!.atMs < 30_000, `first retry surfaced after ${retries[0]!.atMs} ms`);
  // Events arrive in order: the retries, then the diagnostic, then done.
  const types = events
    .map((e) => e.type)
    .filter((type) => type === "retry" || type === "diagnostic" || type === "done");
  assert.deepEqual(types, ["retry", "retry", "retry", "diagnostic", "done"]);
  assert.equal(session.state, "ready", "grok acknowledged the cancel, so the session stays usable");
  assert.deepEqual((await session.dispose()).survivors, []);
});

test("seat run --json --fail-fast prints retry events and ends with MODEL_UNREACHABLE, exit 124, long before the idle timeout", async (t) => {
  const rig = await unreachableRig(t);
  if (!rig) return;
  const { binary, sandbox } = rig;
  const started = Date.now();
  const result = await runSeat(["run", "--json", "--fail-fast", "--cwd", sandbox.project, "say hello"], {
    env: seatEnv(binary, sandbox),
  });
  const elapsedMs = Date.now() - started;
  t.diagnostic(`seat run --fail-fast (3): exit ${result.code} after ${elapsedMs} ms`);
  assert.equal(result.code, 124, result.stderr);
  const lines = result.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const retries = lines.filter((l) => l.type === "retry");
  assert.deepEqual(
    retries.map((r) => [r.attempt, r.max, r.reason]),
    [1, 2, 3].map((n) => [n, 15, "connection refused"]),
  );
  assert.ok(retries.every((r) => typeof r.detail === "string" && (r.detail as string).includes("os error 111")));
  const diagnostic = lines.find((l) => l.type === "diagnostic")?.diagnostic as
    | { code: string; message: string }
    | undefined;
  assert.equal(diagnostic?.code, "MODEL_UNREACHABLE");
  assert.equal(lines[lines.length - 1]?.type, "done");
  assert.ok(elapsedMs < FAIL_FAST_BOUND_MS, `took ${elapsedMs} ms`);
});

test("seat run without --fail-fast shows each retry on stderr in human mode and still waits for the idle timeout", async (t) => {
  const rig = await unreachableRig(t);
  if (!rig) return;
  const { binary, sandbox } = rig;
  const started = Date.now();
  const result = await runSeat(["run", "--idle-timeout", "8", "--cwd", sandbox.project, "say hello"], {
    env: seatEnv(binary, sandbox),
  });
  const elapsedMs = Date.now() - started;
  t.diagnostic(`seat run --idle-timeout 8: exit ${result.code} after ${elapsedMs} ms`);
  assert.equal(result.code, 124, result.stderr);
  assert.match(result.stderr, /^grok is retrying the model request: connection refused \(attempt 1\/15\)$/m);
  assert.match(result.stderr, /^grok is retrying the model request: connection refused \(attempt 2\/15\)$/m);
  assert.match(result.stderr, /\[ACP_IDLE_TIMEOUT\]/, "without --fail-fast the retries do not end the turn");
  assert.doesNotMatch(result.stderr, /MODEL_UNREACHABLE/);
  assert.equal(result.stdout, "");
});

test("seat run --fail-fast 1 ends the turn at grok's first retry", async (t) => {
  const rig = await unreachableRig(t);
  if (!rig) return;
  const { binary, sandbox } = rig;
  const result = await runSeat(["run", "--fail-fast", "1", "--cwd", sandbox.project, "say hello"], {
    env: seatEnv(binary, sandbox),
  });
  assert.equal(result.code, 124, result.stderr);
  assert.match(result.stderr, /attempt 1\/15\)/);
  assert.doesNotMatch(result.stderr, /attempt 2\/15\)/);
  assert.match(
    result.stderr,
    /grok could not reach its model: connection refused \(attempt 1\/15\).*\[MODEL_UNREACHABLE\]/,
  );
});
