// Runs the cross-agent conformance suite (dist/test/agents/*.test.js) on the real agents installed by
// `npm run agents:install`, offline against the mock model, inside `unshare -rn` when the machine allows it,
// then renders the agent × check table from what the tests recorded (test/agents/results.ts).
// A full run (no filter, all four agents) rewrites docs/agents.md: the generated part above the marker line,
// the hand-written part below it kept as it is. A partial run only prints its table.
// Usage: node scripts/run-agent-tests.mjs [substring filter ...]
// Env: GROK_SEAT_AGENTS=codex,claude (which agents), GROK_SEAT_REQUIRE_AGENTS=1 (a missing agent fails).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

const ALL = ["codex", "claude", "opencode", "gemini"];
const DOC = "docs/agents.md";
const MARKER = "<!-- hand-written below this line: kept by scripts/run-agent-tests.mjs -->";
const dir = "dist/test/agents";
const filters = process.argv.slice(2);
let files = [];
try {
  statSync(dir);
  files = readdirSync(dir)
    .filter((f) => f.endsWith(".test.js") && (filters.length === 0 || filters.some((x) => f.includes(x))))
    .map((f) => join(dir, f))
    .sort();
} catch {
  /* not built */
}
if (files.length === 0) {
  console.error("run-agent-tests: no compiled agent tests found; run `npm run build` first");
  process.exit(1);
}
const agents = (process.env.GROK_SEAT_AGENTS ?? ALL.join(","))
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const resultsDir = mkdtempSync(join(tmpdir(), "gs-agent-results-"));
const env = { ...process.env, GROK_SEAT_AGENT_RESULTS_DIR: resultsDir };
// Agents are heavy (Claude and Codex start several processes each): one file at a time.
const nodeArgs = ["--test", "--test-concurrency=1", "--test-timeout=600000", ...files];
const canUnshare =
  process.env.GROK_SEAT_NO_NETNS !== "1" && spawnSync("unshare", ["-rn", "true"], { stdio: "ignore" }).status === 0;
const started = Date.now();
let result;
if (canUnshare) {
  console.log("run-agent-tests: inside `unshare -rn` (loopback only)");
  result = spawnSync(
    "unshare",
    ["-rn", "sh", "-c", 'ip link set lo up 2>/dev/null || true; exec "$@"', "sh", process.execPath, ...nodeArgs],
    {
      stdio: "inherit",
      env: { ...env, GROK_SEAT_NETNS: "1" },
    },
  );
} else {
  console.log("run-agent-tests: network namespaces unavailable; the agents still only reach the loopback mock");
  result = spawnSync(process.execPath, nodeArgs, { stdio: "inherit", env });
}
const seconds = Math.round((Date.now() - started) / 1000);
const status = result.status ?? 1;

// ---- the table -------------------------------------------------------------------------------------------
const { AGENT_CHECKS } = await import(new URL("../dist/test/agents/checks.js", import.meta.url).href);
const { agentProfile, defaultInstallRoot, installedVersion, NODE22_PIN } = await import(
  new URL("../dist/src/agents/index.js", import.meta.url).href
);
const cells = new Map(); // `${agent}\t${check}` → {outcome, note}
const rank = { fail: 3, pass: 2, "n/a": 1, skip: 0 };
for (const f of readdirSync(resultsDir)) {
  for (const line of readFileSync(join(resultsDir, f), "utf8").split("\n").filter(Boolean)) {
    const [agent, check, outcome, note = ""] = line.split("\t");
    const key = `${agent}\t${check}`;
    const prev = cells.get(key);
    if (!prev || rank[outcome] > rank[prev.outcome]) cells.set(key, { outcome, note });
  }
}
rmSync(resultsDir, { recursive: true, force: true });
const git = (...args) => spawnSync("git", args, { encoding: "utf8" }).stdout.trim();
const commit = `${git("rev-parse", "--short", "HEAD") || "unknown"}${git("status", "--porcelain", "--untracked-files=no") ? "+dirty" : ""}`;
const root = defaultInstallRoot();
const counts = { pass: 0, fail: 0, skip: 0, "n/a": 0, "not run": 0 };
const notes = [];
const rows = AGENT_CHECKS.map((c) => {
  const line = agents.map((a) => {
    const cell = cells.get(`${a}\t${c.id}`);
    if (!cell && c.only && !c.only.includes(a)) {
      counts["n/a"] += 1;
      return `n/a (${c.only.join(", ")} only)`;
    }
    const outcome = cell?.outcome ?? "not run";
    counts[outcome] += 1;
    if (cell && cell.outcome !== "pass" && cell.note) {
      notes.push(`- ${a} / ${c.id}: ${cell.outcome} — ${cell.note.replace(/\|/g, "\\|")}`);
      return `${outcome} [${notes.length}]`;
    }
    return outcome;
  });
  return `| ${c.label} | ${line.join(" | ")} |`;
});
const versions = agents.map((a) => {
  const p = agentProfile(a);
  const v = p.pinned ? installedVersion(root, p.pinned) : undefined;
  return `| ${a} | \`${p.pinned?.package ?? "-"}\` | ${p.pinned?.version ?? "-"} | ${v ?? "not installed"} |`;
});
const node22 = installedVersion(root, NODE22_PIN);
const generated = [
  "# Other ACP agents: what works on each, what does not, and why",
  "",
  "<!-- generated by `npm run test:agents` (scripts/run-agent-tests.mjs): do not edit above the marker line -->",
  "",
  `Generated by \`npm run test:agents\` on commit \`${commit}\`, ${new Date().toISOString().slice(0, 10)}: ${AGENT_CHECKS.length} checks × ${agents.length} agents, ` +
    `${counts.pass} pass, ${counts.fail} fail, ${counts["n/a"]} n/a, ${counts.skip} skipped, ${counts["not run"]} not run; ` +
    `${seconds} s wall time; node ${process.version}${canUnshare ? ", inside `unshare -rn`" : ""}; test exit status ${status}.`,
  "",
  "| agent | package | pinned | installed |",
  "|---|---|---|---|",
  ...versions,
  ...(agents.includes("claude")
    ? [`| (claude's Node) | \`${NODE22_PIN.package}\` | ${NODE22_PIN.version} | ${node22 ?? "not installed"} |`]
    : []),
  "",
  "## Checks (agent × check)",
  "",
  `| check | ${agents.join(" | ")} |`,
  `|---|${agents.map(() => "---").join("|")}|`,
  ...rows,
  "",
  ...(notes.length
    ? ["Notes on cells that did not pass:", "", ...notes.map((n, i) => n.replace(/^- /, `${i + 1}. `)), ""]
    : []),
].join("\n");
console.log(`\n${generated}`);
const full = filters.length === 0 && ALL.every((a) => agents.includes(a));
if (full) {
  let kept = "";
  try {
    const old = readFileSync(DOC, "utf8");
    const at = old.indexOf(MARKER);
    if (at >= 0) kept = old.slice(at + MARKER.length).replace(/^\n+/, "");
  } catch {
    /* first run */
  }
  writeFileSync(DOC, `${generated}\n${MARKER}\n\n${kept}`);
  console.log(`run-agent-tests: wrote ${DOC} (${seconds} s)`);
} else {
  console.log(`run-agent-tests: partial run (filter or GROK_SEAT_AGENTS): ${DOC} left unchanged (${seconds} s)`);
}
process.exit(status);
