/*
 * Conformance cases against the real grok binary (pinned npm build), offline against the loopback mock model
 * in a hermetic sandbox. Skips, saying why, where the binary cannot be provisioned.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ensureGrokBinary } from "../../src/grok/index.js";
import { startMockModel, parseScript, createSandbox } from "../../src/testing.js";
import { loadConformanceCases, runConformanceCase } from "./runner.js";
import { needGrok } from "../support/requirements.js";

let grokPath: string | undefined;
let why = "";
try {
  grokPath = (await ensureGrokBinary()).path;
} catch (err) {
  why = `grok binary unavailable: ${err instanceof Error ? err.message.split("\n")[0] : String(err)}`;
}

for (const c of loadConformanceCases().filter((c) => !c.targets || c.targets.includes("grok"))) {
  test(`real grok passes conformance case "${c.name}": ${c.description ?? ""}`, async (t) => {
    if (!needGrok(t, grokPath ? false : why)) return;
    const mock = await startMockModel();
    const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl, prefix: "gs-conf-grok-" });
    try {
      if (c.mockScript) mock.setScript(parseScript(JSON.stringify(c.mockScript).replaceAll("${cwd}", sandbox.project)));
      const result = await runConformanceCase(
        c,
        {
          command: grokPath!,
          args: ["--no-auto-update", "agent", "--no-leader", "stdio"],
          env: sandbox.env,
          cwd: sandbox.project,
        },
        { stepTimeoutMs: 60_000 },
      );
      assert.deepEqual(result.failures, [], `stderr tail:\n${result.stderrTail}`);
    } finally {
      await mock.close();
      sandbox.cleanup();
    }
  });
}
