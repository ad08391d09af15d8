// Runs every compiled test file (dist/**/*.test.js) with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [substring filter ...]
//
// Required mode (GROK_SEAT_REQUIRE_LIVE=1; the default on Linux x64, set it to 0 to opt out): a missing grok
// binary, tmux or fixture fails its test instead of skipping (test/support/requirements.ts). Only the
// real-Herdr contract may skip. GROK_SEAT_REQUIRE_NETNS=1 (set by .ci/run) makes a machine without
// `unshare -rn` a failure; otherwise that is a printed notice and the tests run on loopback alone.
// The last lines say how many tests ran on the real grok binary and list every skip.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const filters = process.argv.slice(2);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (path !== join("dist", "test", "agents")) walk(path);
    } // agents: npm run test:agents
    else if (path.endsWith(".test.js") && (filters.length === 0 || filters.some((f) => path.includes(f))))
      files.push(path);
  }
}
for (const root of ["dist/src", "dist/test"]) {
  try {
    statSync(root);
    walk(root);
  } catch {
    /* nothing compiled there */
  }
}
files.sort();
if (files.length === 0) {
  console.error("run-tests: no compiled test files found; run `npm run build` first");
  process.exit(1);
}

const linuxX64 = process.platform === "linux" && process.arch === "x64";
const required =
  process.env.GROK_SEAT_REQUIRE_LIVE !== undefined ? process.env.GROK_SEAT_REQUIRE_LIVE === "1" : linuxX64;
const tallyDir = mkdtempSync(join(tmpdir(), "gs-test-tally-"));
const env = { ...process.env, GROK_SEAT_REQUIRE_LIVE: required ? "1" : "0", GROK_SEAT_TEST_TALLY_DIR: tallyDir };
console.log(
  `run-tests: node ${process.version}; required mode ${required ? "on: a missing grok binary, tmux or fixture fails" : "off: missing requirements skip"}`,
);

const concurrency = process.env.TEST_CONCURRENCY ?? "2";
// TAP on stdout as before, and the spec reporter into a file: its closing "failing tests" section (each failure
// with its message) is printed again last, so the end of a long log says what failed and why.
const specFile = join(tallyDir, "spec.out");
const nodeArgs = [
  "--test",
  `--test-concurrency=${concurrency}`,
  "--test-timeout=300000",
  "--test-reporter=tap",
  "--test-reporter-destination=stdout",
  "--test-reporter=spec",
  `--test-reporter-destination=${specFile}`,
  ...files,
];
// Hermetic network: run the whole suite inside a fresh user+network namespace (loopback only) when the
// machine allows it, so neither grok nor anything else under test can reach past 127.0.0.1.
const alreadyInside = process.env.GROK_SEAT_NETNS === "1";
const canUnshare =
  !alreadyInside &&
  process.env.GROK_SEAT_NO_NETNS !== "1" &&
  spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" }).status === 0;
let result;
if (canUnshare) {
  console.log("run-tests: inside `unshare -rn` (loopback only)");
  result = spawnSync(
    "unshare",
    ["-rn", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", process.execPath, ...nodeArgs],
    {
      stdio: "inherit",
      env: { ...env, GROK_SEAT_NETNS: "1" },
    },
  );
} else if (alreadyInside) {
  result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit", env });
} else if (process.env.GROK_SEAT_REQUIRE_NETNS === "1") {
  console.error(
    "run-tests: FAILED: `unshare -rn` (unprivileged user+network namespaces) is unavailable, and GROK_SEAT_REQUIRE_NETNS=1 demands it",
  );
  rmSync(tallyDir, { recursive: true, force: true });
  process.exit(1);
} else {
  console.log(
    "run-tests: NOTICE: `unshare -rn` is unavailable here (unprivileged namespaces forbidden?); the tests still only use loopback",
  );
  result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit", env });
}

// The tally: one line per test that ran on the real grok binary or skipped for a missing requirement.
const live = new Set();
const skips = [];
let failures = "";
try {
  const spec = readFileSync(specFile, "utf8");
  const at = spec.lastIndexOf("failing tests:");
  if (at >= 0) failures = spec.slice(at);
} catch {
  /* the run ended before the reporter wrote */
}
for (const name of readdirSync(tallyDir)) {
  if (name === "spec.out") continue;
  for (const line of readFileSync(join(tallyDir, name), "utf8").split("\n").filter(Boolean)) {
    const [kind, test, why] = line.split("\t");
    if (kind === "live") live.add(`${name}\t${test}`);
    else skips.push(`${test} (${why})`);
  }
}
rmSync(tallyDir, { recursive: true, force: true });
console.log(
  `run-tests: ${live.size} live test${live.size === 1 ? "" : "s"} ran on the real grok binary (node ${process.version})`,
);
console.log(`run-tests: ${skips.length} skipped for a missing requirement${skips.length ? ":" : ""}`);
for (const s of skips) console.log(`run-tests:   skip: ${s}`);
if (failures) {
  const lines = failures.split("\n");
  const shown = lines.slice(0, 400);
  console.log(`run-tests: ${shown.join("\nrun-tests: ")}`);
  if (lines.length > shown.length)
    console.log(`run-tests: (${lines.length - shown.length} more lines of failures in the TAP output above)`);
}
process.exit(result.status ?? 1);
