// Runs every compiled test file (dist/**/*.test.js) with node's built-in test runner.
// Usage: node scripts/run-tests.mjs [substring filter ...]
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const filters = process.argv.slice(2);
const files = [];
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) { if (path !== join("dist", "test", "agents")) walk(path); } // agents: npm run test:agents
    else if (path.endsWith(".test.js") && (filters.length === 0 || filters.some((f) => path.includes(f)))) files.push(path);
  }
}
for (const root of ["dist/src", "dist/test"]) {
  try { statSync(root); walk(root); } catch { /* nothing compiled there */ }
}
files.sort();
if (files.length === 0) {
  console.error("run-tests: no compiled test files found; run `npm run build` first");
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? "2";
const nodeArgs = ["--test", `--test-concurrency=${concurrency}`, "--test-timeout=300000", ...files];
// Hermetic network: run the whole suite inside a fresh user+network namespace (loopback only) when the
// machine allows it, so neither grok nor anything else under test can reach past 127.0.0.1.
const canUnshare = process.env.GROK_SEAT_NETNS !== "1" && process.env.GROK_SEAT_NO_NETNS !== "1" &&
  spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" }).status === 0;
let result;
if (canUnshare) {
  console.log("run-tests: inside `unshare -rn` (loopback only)");
  result = spawnSync("unshare", ["-rn", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", process.execPath, ...nodeArgs], {
    stdio: "inherit",
    env: { ...process.env, GROK_SEAT_NETNS: "1" },
  });
} else {
  console.log("run-tests: network namespaces unavailable; tests still only use loopback");
  result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit" });
}
process.exit(result.status ?? 1);
