// Records what the real grok 1.0.41 writes to $GROK_HOME/logs/unified.jsonl while a turn cannot reach its
// model, as the fixtures under test/fixtures/health/ that src/health/ is tested on.
// Usage: npm run build && node scripts/record-health-log.mjs [refused|dns ...]
//   refused: the sandbox's BYOK model points at a loopback port nobody listens on (connection refused).
//   dns:     no BYOK model, a dummy XAI_API_KEY, grok's default xAI endpoint; inside `unshare -rn` its DNS
//            lookup fails, and the model catalogue refresh fails too (takes about 3 minutes).
// Runs itself inside `unshare -rn` (loopback only). Writes <scenario>.before.jsonl (the log as it stood when
// the turn started) and <scenario>.turn.jsonl (what was appended during the turn), normalised: temp paths,
// uuids, pids, timestamps and elapsed times replaced by stable values, grok's `key_suffix` removed.
// Prints when each retry was logged, relative to the agent's spawn and to the turn's start.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["refused", "dns"];

if (process.env.GROK_SEAT_NETNS !== "1") {
  const ns = spawnSync(
    "unshare",
    [
      "-rn",
      "sh",
      "-c",
      'ip link set lo up 2>/dev/null || true; exec "$@"',
      "sh",
      process.execPath,
      fileURLToPath(import.meta.url),
      ...scenarios,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, GROK_SEAT_NETNS: "1" },
    },
  );
  if (ns.error || ns.status === null) {
    console.error("record-health-log: `unshare -rn` is required (the model must be unreachable for certain)");
    process.exit(1);
  }
  process.exit(ns.status);
}

const { createSession } = await import(join(repo, "dist/src/runtime/index.js"));
const { ensureGrokBinary } = await import(join(repo, "dist/src/grok/index.js"));
const { createSandbox } = await import(join(repo, "dist/src/sandbox/index.js"));

const DUMMY_KEY = "xai-record-health-log-dummy-key-0000";
const outDir = join(repo, "test/fixtures/health");
mkdirSync(outDir, { recursive: true });
const binary = (await ensureGrokBinary()).path;

const SCENARIOS = {
  refused: {
    config: (sb) => readFileSync(join(sb.grokHome, "config.toml"), "utf8"),
    env: {},
    // Done once five inference retries are in the log.
    done: (lines) => lines.filter((l) => l.msg === "shell.turn.inference_retry").length >= 5,
    capMs: 90_000,
  },
  dns: {
    config: () => "[cli]\nauto_update = false\n[features]\ntelemetry = false\n",
    env: { XAI_API_KEY: DUMMY_KEY },
    // Done once grok gave up on its model catalogue (five catalogue retries, ~3 minutes).
    done: (lines) => lines.some((l) => l.msg === "model catalog: all retries exhausted"),
    capMs: 300_000,
  },
};

function parseLines(text) {
  return text.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

/** Replaces everything that differs between runs or machines with stable placeholders. */
function normaliser(sandboxRoot) {
  const uuids = new Map();
  let seq = 0;
  return (text) =>
    text
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => {
        const stamp = new Date(Date.UTC(2026, 0, 1) + 1000 * seq++).toISOString();
        return line
          .split(sandboxRoot)
          .join("/tmp/grok-seat-SANDBOX")
          .split(repo)
          .join("/REPO")
          .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, (id) => {
            if (!uuids.has(id)) uuids.set(id, `00000000-0000-4000-8000-${String(uuids.size + 1).padStart(12, "0")}`);
            return uuids.get(id);
          })
          .replace(/"ts":"[^"]*"/, `"ts":"${stamp}"`)
          .replace(/"pid":\d+/g, '"pid":4242')
          .replace(/"(\w*elapsed\w*|\w*_ms_since\w*)":\d+/g, '"$1":0')
          .replace(/"key_suffix":"[^"]*"/g, '"key_suffix":"REDACTED"');
      })
      .map((line) => `${line}\n`)
      .join("");
}

async function record(name) {
  const scenario = SCENARIOS[name];
  if (!scenario) throw new Error(`unknown scenario ${name}; use ${Object.keys(SCENARIOS).join(", ")}`);
  const sandbox = createSandbox({ modelBaseUrl: "http://127.0.0.1:9/v1" });
  writeFileSync(join(sandbox.grokHome, "config.toml"), scenario.config(sandbox));
  const log = join(sandbox.grokHome, "logs", "unified.jsonl");
  try {
    const spawnedAt = Date.now();
    const session = await createSession({
      cwd: sandbox.project,
      grokCliBinaryPath: binary,
      agentEnv: sandbox.env,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...scenario.env },
    });
    if (session.state !== "ready")
      throw new Error(`grok did not start: ${session.diagnostics.map((d) => d.message).join("; ")}`);
    const before = existsSync(log) ? readFileSync(log, "utf8") : "";
    const offset = Buffer.byteLength(before);
    const turnAt = Date.now();
    const controller = new AbortController();
    const turn = session.prompt("say hello", { signal: controller.signal });
    const deadline = Date.now() + scenario.capMs;
    let appended = "";
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      appended =
        existsSync(log) && statSync(log).size > offset ? readFileSync(log).subarray(offset).toString("utf8") : "";
      if (scenario.done(parseLines(appended))) break;
    }
    controller.abort();
    await turn;
    await session.dispose();
    appended = readFileSync(log).subarray(offset).toString("utf8");
    for (const line of parseLines(appended)) {
      if (line.msg !== "shell.turn.inference_retry" && !String(line.msg).startsWith("model catalog")) continue;
      const at = Date.parse(line.ts);
      console.log(
        `${name}: ${line.msg} attempt ${line.ctx?.attempt}/${line.ctx?.max_retries} at ${((at - spawnedAt) / 1000).toFixed(1)} s after spawn, ${((at - turnAt) / 1000).toFixed(1)} s after the turn started`,
      );
    }
    const normalise = normaliser(sandbox.root);
    const files = { [`${name}.before.jsonl`]: normalise(before), [`${name}.turn.jsonl`]: normalise(appended) };
    for (const [file, text] of Object.entries(files)) {
      if (text.includes(DUMMY_KEY.slice(-6)) || text.includes(repo) || text.includes(sandbox.root))
        throw new Error(`${file}: normalisation left a key fragment or a local path; not written`);
      writeFileSync(join(outDir, file), text);
      console.log(`wrote test/fixtures/health/${file} (${text.split("\n").length - 1} lines)`);
    }
  } finally {
    sandbox.cleanup();
  }
}

for (const name of scenarios) await record(name);
