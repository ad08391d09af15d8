// Runs the cross-agent conformance suite (dist/test/agents/*.test.js) on the real agents installed by
// `npm run agents:install`, offline against the mock model, inside `unshare -rn` when the machine allows it.
// Usage: node scripts/run-agent-tests.mjs [substring filter ...]
// Env: GROK_SEAT_AGENTS=codex,claude (which agents), GROK_SEAT_REQUIRE_AGENTS=1 (a missing agent fails).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const dir = "dist/test/agents";
const filters = process.argv.slice(2);
let files = [];
try {
  statSync(dir);
  files = readdirSync(dir).filter((f) => f.endsWith(".test.js") && (filters.length === 0 || filters.some((x) => f.includes(x)))).map((f) => join(dir, f)).sort();
} catch { /* not built */ }
if (files.length === 0) {
  console.error("run-agent-tests: no compiled agent tests found; run `npm run build` first");
  process.exit(1);
}
// Agents are heavy (Claude and Codex start several processes each): one file at a time.
const nodeArgs = ["--test", "--test-concurrency=1", "--test-timeout=600000", ...files];
const canUnshare = process.env.GROK_SEAT_NO_NETNS !== "1" && spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" }).status === 0;
let result;
if (canUnshare) {
  console.log("run-agent-tests: inside `unshare -rn` (loopback only)");
  result = spawnSync("unshare", ["-rn", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", process.execPath, ...nodeArgs], {
    stdio: "inherit",
    env: { ...process.env, GROK_SEAT_NETNS: "1" },
  });
} else {
  console.log("run-agent-tests: network namespaces unavailable; the agents still only reach the loopback mock");
  result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit" });
}
process.exit(result.status ?? 1);
