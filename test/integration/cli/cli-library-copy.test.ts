/*
 * The bundled `seat` beside a second copy of grok-seat in one process: `seat worker --tools mod.mjs` runs from the
 * bundle (dist/cli/), and a tools module that imports the library loads the compiled tree (dist/src/) with its own
 * SeatError class. A SeatError of that copy that no one caught is still reported with its own code and exit status,
 * as when the bin and the library were one module graph, not as an INTERNAL failure. No Redis is reached: the
 * failure ends the process while its tools load.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SEAT_MAIN, STACK, runSeat } from "../../support/cli.js";

/** The library as `import "grok-seat"` loads it: the compiled tree, not the bundle. */
const LIBRARY = new URL("../../../src/index.js", import.meta.url).href;

test("the bundled seat reports a SeatError of the library copy a tools module loaded with its code and exit status (thrown or rejected), no stack", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-library-copy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  assert.match(SEAT_MAIN, /[/\\]cli[/\\]seat\.js$/, "the bin under test is the bundle");
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, GROK_SEAT_HOME: join(dir, "seat") };
  for (const how of ["throw", "reject"]) {
    const module = join(dir, `${how}-tools.mjs`);
    const fail =
      how === "throw"
        ? `queueMicrotask(() => { throw error; });`
        : `queueMicrotask(() => { void Promise.reject(error); });`;
    writeFileSync(
      module,
      [
        `import { SeatError } from ${JSON.stringify(LIBRARY)};`,
        `const error = new SeatError("GROK_NOT_FOUND", "no grok for the background check of ${how}-tools");`,
        fail,
        `export const tools = [{ name: "noop", description: "Does nothing.", inputSchema: { type: "object" }, execute: () => "ok" }];`,
        "",
      ].join("\n"),
    );
    const result = await runSeat(["worker", "--redis", "redis://127.0.0.1:9", "--tools", module], { env, cwd: dir });
    assert.equal(
      result.stderr.trim(),
      `seat: no grok for the background check of ${how}-tools [GROK_NOT_FOUND]`,
      `${how}: one line with the error's own code, not "internal error … [INTERNAL]"`,
    );
    assert.equal(result.code, 3, `${how}: GROK_NOT_FOUND's exit status (grok unavailable), not 1`);
    assert.doesNotMatch(result.stderr, STACK, how);
  }
});

test("the bundled seat masks a secret the library copy a tools module loaded learned (a webhook's signing key), in a failure it prints", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "gs-library-copy-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const canary = `hook-canary-${process.pid}-4f0d7a2e`;
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GROK_SEAT_HOME: join(dir, "seat"),
    HOOK_SECRET: canary,
  };
  const module = join(dir, "notifying-tools.mjs");
  writeFileSync(
    module,
    [
      `import { parseNotifyConfig } from ${JSON.stringify(LIBRARY)};`,
      // The module's own notifier: the library registers the webhook's secret (HOOK_SECRET is no allow-listed name).
      `parseNotifyConfig({ targets: { hook: { type: "webhook", url: "http://127.0.0.1:9/hook", secretEnv: "HOOK_SECRET" } } });`,
      "queueMicrotask(() => { throw new Error(`the webhook refused the signature made with ${process.env.HOOK_SECRET}`); });",
      `export const tools = [{ name: "noop", description: "Does nothing.", inputSchema: { type: "object" }, execute: () => "ok" }];`,
      "",
    ].join("\n"),
  );
  const result = await runSeat(["worker", "--redis", "redis://127.0.0.1:9", "--tools", module], { env, cwd: dir });
  assert.equal(result.code, 1, result.stderr);
  assert.equal(
    result.stderr.trim(),
    "seat: internal error: the webhook refused the signature made with [redacted] [INTERNAL]",
  );
  assert.ok(!`${result.stdout}${result.stderr}`.includes(canary), "the canary is in no output");
});
