// Runs the compiled examples of the newcomer trial offline (issue 15 §10). The trial copies this file into the
// empty consumer project, so `grok-seat/testing` below is the INSTALLED package, as a user would import it.
// Usage (inside that project): node trial-run-examples.mjs OUT_DIR EXAMPLES_DIR
// For each EXAMPLES_DIR/**/NAME.ts (compiled to OUT_DIR/**/NAME.js): start the scripted mock model with the
// script of NAME.offline.json, a sandbox HOME/GROK_HOME pointing grok at it (and a real redis-server when the
// sidecar says "redis": true), run `node NAME.js` in the sandbox's empty project with that environment, and
// check its exit status and that its output contains each `expect` string. Also loads policy.json with
// loadPolicyFile. Exit 0 when all pass; 1 naming each failure.
import { spawn } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { loadPolicyFile } from "grok-seat";
import { createSandbox, startMockModel, startRedisServer } from "grok-seat/testing";

const [outArg, examplesArg] = process.argv.slice(2);
if (!outArg || !examplesArg) {
  process.stderr.write("usage: node trial-run-examples.mjs OUT_DIR EXAMPLES_DIR\n");
  process.exit(2);
}
const outDir = resolve(outArg);
const examplesDir = resolve(examplesArg);
const RUN_TIMEOUT_MS = 120_000;

function filesUnder(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function run(script, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), RUN_TIMEOUT_MS);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, output });
    });
  });
}

const failures = [];
const examples = filesUnder(examplesDir)
  .filter((p) => p.endsWith(".ts"))
  .sort();
for (const source of examples) {
  const name = relative(examplesDir, source).replace(/\.ts$/, "");
  const sidecarPath = source.replace(/\.ts$/, ".offline.json");
  const sidecar = existsSync(sidecarPath) ? JSON.parse(readFileSync(sidecarPath, "utf8")) : {};
  const started = Date.now();
  const mock = await startMockModel(sidecar.script ? { script: sidecar.script } : {});
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl, prefix: "grok-seat-trial-" });
  const redis = sidecar.redis ? await startRedisServer() : undefined;
  const env = { ...process.env, ...sandbox.env, ...(redis ? { GROK_SEAT_REDIS_URL: redis.url } : {}) };
  try {
    for (let i = 0; i < (sidecar.runs ?? 1); i += 1) {
      const result = await run(join(outDir, `${name}.js`), sandbox.project, env);
      const missing = (sidecar.expect ?? []).filter((text) => !result.output.includes(text));
      const ok = result.status === 0 && missing.length === 0;
      // Several runs share one sandbox (a named session resumes); `expect` is checked across all of them.
      if (i + 1 < (sidecar.runs ?? 1) && result.status === 0) {
        sidecar.expect = missing;
        continue;
      }
      process.stdout.write(
        `  ${ok ? "ok  " : "FAIL"} examples/${name}.ts (${Date.now() - started} ms, ${mock.requests.length} model requests)\n`,
      );
      if (!ok) {
        failures.push(
          `examples/${name}.ts: exit ${result.status ?? result.signal}${missing.length ? `; output lacks ${missing.map((m) => JSON.stringify(m)).join(", ")}` : ""}\n--- its output ---\n${result.output.trimEnd()}\n---`,
        );
        break;
      }
    }
  } finally {
    await redis?.stop();
    await mock.close();
    sandbox.cleanup();
  }
}

const policyPath = join(examplesDir, "policy.json");
try {
  await loadPolicyFile(policyPath);
  process.stdout.write("  ok   examples/policy.json (loadPolicyFile)\n");
} catch (error) {
  failures.push(`examples/policy.json: ${error instanceof Error ? error.message : String(error)}`);
}

if (failures.length > 0) {
  process.stderr.write(`${failures.join("\n")}\n`);
  process.exit(1);
}
