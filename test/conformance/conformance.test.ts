/*
 * Conformance cases against fake-grok: every case in cases/ meant for the fake must pass, and the runner
 * must catch a fake that misbehaves (so a green run means something).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConformanceCases, runConformanceCase, type SpawnSpec } from "./runner.js";

const fakePath = join(dirname(fileURLToPath(import.meta.url)), "..", "fakes", "fake-grok.js");

function fakeSpec(cwd: string, scenario?: string): SpawnSpec {
  return {
    command: process.execPath,
    args: [fakePath, "--no-auto-update", "agent", "--no-leader", "stdio"],
    env: { PATH: process.env.PATH ?? "", ...(scenario ? { FAKE_GROK_SCENARIO: scenario } : {}) },
    cwd,
  };
}

function withTempDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "gs-conformance-"));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

for (const c of loadConformanceCases().filter((c) => !c.targets || c.targets.includes("fake"))) {
  test(`fake-grok passes conformance case "${c.name}": ${c.description ?? ""}`, () =>
    withTempDir(async (dir) => {
      const result = await runConformanceCase(c, fakeSpec(dir));
      assert.deepEqual(result.failures, [], `stderr tail:\n${result.stderrTail}`);
      assert.ok(result.messages.length > 0);
    }));
}

test("the runner reports a prompt result that echoes someone else's promptId", () =>
  withTempDir(async (dir) => {
    const normal = loadConformanceCases().find((c) => c.name === "prompt-normal");
    assert.ok(normal);
    const result = await runConformanceCase({ ...normal, scenario: "bad-echo" }, fakeSpec(dir));
    assert.equal(result.ok, false);
    assert.ok(
      result.failures.some((f) => f.includes("promptIdEchoed") && f.includes("not-your-prompt")),
      result.failures.join("\n"),
    );
  }));

test("the runner reports a session/new that never answers as a timed-out step instead of hanging", () =>
  withTempDir(async (dir) => {
    const handshake = loadConformanceCases().find((c) => c.name === "handshake");
    assert.ok(handshake);
    const result = await runConformanceCase({ ...handshake, scenario: "hang-on-new-session" }, fakeSpec(dir), {
      stepTimeoutMs: 1500,
    });
    assert.equal(result.ok, false);
    assert.ok(
      result.failures.some((f) => f.includes("timed out")),
      result.failures.join("\n"),
    );
  }));

test("the runner reports a refusal when the case expects end_turn", () =>
  withTempDir(async (dir) => {
    const normal = loadConformanceCases().find((c) => c.name === "prompt-normal");
    assert.ok(normal);
    const result = await runConformanceCase({ ...normal, scenario: "abnormal-stop" }, fakeSpec(dir));
    assert.ok(
      result.failures.some((f) => f.includes('"refusal"')),
      result.failures.join("\n"),
    );
    assert.ok(
      result.failures.some((f) => f.includes("textArrived")),
      result.failures.join("\n"),
    );
  }));
