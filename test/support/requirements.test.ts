/*
 * Requirements: in required mode a missing requirement fails its test naming what is missing; outside it the
 * test skips and the skip is tallied; a test on the real binary is tallied as live; Herdr may skip in any mode.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const helper = new URL("./requirements.js", import.meta.url).href;

/** Runs a three-test file under `node --test` with GROK_SEAT_REQUIRE_LIVE=`required`; returns TAP and the tally. */
function runProbe(required: "0" | "1"): { tap: string; tally: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "gs-req-"));
  try {
    const file = join(dir, "probe.test.mjs");
    writeFileSync(
      file,
      [
        `import { test } from "node:test";`,
        `import { need, needGrok, optional } from ${JSON.stringify(helper)};`,
        `test("needs tmux", (t) => { if (!need(t, "tmux (not found on PATH)")) return; });`,
        `test("runs on grok", (t) => { if (!needGrok(t, false)) return; });`,
        `test("needs herdr", (t) => { if (!optional(t, "a real herdr server")) return; });`,
      ].join("\n"),
    );
    const tallyDir = join(dir, "tally");
    mkdirSync(tallyDir);
    const r = spawnSync(process.execPath, ["--test", "--test-reporter=tap", file], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", GROK_SEAT_REQUIRE_LIVE: required, GROK_SEAT_TEST_TALLY_DIR: tallyDir },
    });
    const tally = readdirSync(tallyDir).flatMap((f) =>
      readFileSync(join(tallyDir, f), "utf8").split("\n").filter(Boolean),
    );
    return { tap: r.stdout, tally: tally.sort() };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("in required mode a missing requirement fails its test naming it, while Herdr still skips", () => {
  const { tap, tally } = runProbe("1");
  assert.match(tap, /not ok 1 - needs tmux[\s\S]*missing requirement: tmux \(not found on PATH\)/);
  assert.match(tap, /ok 2 - runs on grok/);
  assert.match(tap, /ok 3 - needs herdr # SKIP a real herdr server/);
  assert.deepEqual(tally, ["live\truns on grok\t", "skip\tneeds herdr\toptional: a real herdr server"]);
});

test("outside required mode a missing requirement skips with its reason and is tallied as a skip", () => {
  const { tap, tally } = runProbe("0");
  assert.match(tap, /ok 1 - needs tmux # SKIP tmux \(not found on PATH\)/);
  assert.doesNotMatch(tap, /not ok/);
  assert.deepEqual(tally, [
    "live\truns on grok\t",
    "skip\tneeds herdr\toptional: a real herdr server",
    "skip\tneeds tmux\ttmux (not found on PATH)",
  ]);
});
