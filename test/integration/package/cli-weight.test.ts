/*
 * CLI weight: a `seat` process loads what its verb uses and nothing more. `seat --help` loads no verb, no config and
 * no package; a whole plain `seat run --json` turn (against the fake agent) loads neither the fleet (BullMQ,
 * ioredis), the board (express, bull-board), the MCP server SDK, ajv, nor the notification delivery. Not a timing
 * test: the child is started with a preload that records every ES module it loads (a module.register load hook)
 * and every CommonJS module (Module._load, which a `require` from createRequire passes on Node 20).
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { SEAT_COMPILED_MAIN, SEAT_MAIN } from "../../support/cli.js";
import { fakeGrokBinary } from "../../support/fake-agent.js";

const PRELOAD = [
  'import { appendFileSync } from "node:fs";',
  'import { createRequire, register } from "node:module";',
  "const log = process.env.GS_LOAD_LOG;",
  'const hooks = `import { appendFileSync } from "node:fs";\\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + "\\\\n"); return next(url, context); }`;',
  "register(`data:text/javascript,${encodeURIComponent(hooks)}`);",
  'const Module = createRequire(import.meta.url)("node:module");',
  "const load = Module._load;",
  "Module._load = function (request, parent, isMain) {",
  "  try { appendFileSync(log, `${Module._resolveFilename(request, parent, isMain)}\\n`); } catch {}",
  "  return load.apply(this, arguments);",
  "};",
].join("\n");

/**
 * Runs `seat ARGS` with the load recorder; returns what it printed and every module path or URL it loaded. `main` is
 * the compiled entry by default, whose modules show which rooms a verb loads; the bundle users run (SEAT_MAIN) shows
 * only which packages.
 */
async function seatLoads(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  main = SEAT_COMPILED_MAIN,
): Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "gs-cli-weight-"));
  try {
    const log = join(dir, "loaded.log");
    writeFileSync(log, "");
    writeFileSync(join(dir, "preload.mjs"), PRELOAD);
    const child = spawn(process.execPath, ["--import", pathToFileURL(join(dir, "preload.mjs")).href, main, ...args], {
      env: { ...env, GS_LOAD_LOG: log },
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    return { code, stdout, stderr, loaded: readFileSync(log, "utf8").split("\n").filter(Boolean) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** npm package names among loaded module paths. */
function packagesIn(loaded: string[]): Set<string> {
  const names = new Set<string>();
  for (const url of loaded) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
    if (m) names.add(m[1]!);
  }
  return names;
}

/** Packages a plain turn must not load. */
const HEAVY = [
  "bullmq",
  "ioredis",
  "express",
  "@bull-board/api",
  "@bull-board/express",
  "@modelcontextprotocol/sdk",
  "ajv",
  "ajv-formats",
];

test("`seat --help` loads no verb module, no config file reader, no notification code and no npm package", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-cli-weight-home-"));
  try {
    const r = await seatLoads(["--help"], { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home }, home);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Commands:/);
    assert.ok(
      r.loaded.some((u) => u.endsWith("/src/cli/main.js")),
      `the recorder saw the entry (${r.loaded.length} loaded)`,
    );
    const ours = r.loaded.filter((u) => u.includes("/src/")).map((u) => u.slice(u.lastIndexOf("/src/") + 1));
    // Only the CLI's own front matter: no verb (commands/index.ts is the table, each verb loads on use), no config.
    const verbs = ours.filter((p) => p.startsWith("src/cli/commands/") && p !== "src/cli/commands/index.js");
    const outside = ours.filter(
      (p) => !p.startsWith("src/cli/") && p !== "src/errors.js" && !p.startsWith("src/internal/"),
    );
    assert.deepEqual([...verbs, ...outside, ...ours.filter((p) => p === "src/cli/config.js")], []);
    assert.deepEqual([...packagesIn(r.loaded)], []);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("a whole plain `seat run --json` loads neither the fleet, the board, the MCP server SDK, ajv, nor the notification delivery", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-cli-weight-home-"));
  const grok = fakeGrokBinary();
  try {
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      GROK_SEAT_HOME: join(home, "seat"),
      GROK_BIN: grok.path,
    };
    const r = await seatLoads(["run", "--json", "hello"], env, home);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /"type":"done"/);
    // The turn really ran through the ACP SDK, so the recorder sees packages at all.
    const packages = packagesIn(r.loaded);
    assert.ok(packages.has("@agentclientprotocol/sdk"), `the recorder saw the ACP SDK (${[...packages].join(", ")})`);
    assert.deepEqual(
      HEAVY.filter((name) => packages.has(name)),
      [],
    );
    const lazy = [
      "/src/fleet/",
      "/src/board/",
      "/src/mcp/",
      "/src/seat/hire",
      "/src/leader/",
      "/src/mux/",
      "/src/notify/notifier.js",
      "/src/notify/deliver.js",
      "/src/notify/payloads.js",
      "/src/notify/terminal.js",
      "/src/notify/from-events.js",
    ];
    assert.deepEqual(
      lazy.filter((part) => r.loaded.some((u) => u.includes(part))),
      [],
    );
  } finally {
    grok.remove();
    rmSync(home, { recursive: true, force: true });
  }
});

test("`seat ps --json` loads neither the agent profiles, grok's launcher, the runtime, the seat stack nor the fleet", async () => {
  // `seat ps` lists what runs; it starts nothing. Its --on-waiting command is split by command-line/, not by the
  // agent profiles, and the listing reads the session store and the journal's restore claim, not sessions/ or seat/.
  const home = mkdtempSync(join(tmpdir(), "gs-cli-weight-home-"));
  try {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GROK_SEAT_HOME: join(home, "seat") };
    const r = await seatLoads(["ps", "--json"], env, home);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.ok(
      r.loaded.some((u) => u.endsWith("/src/listing/listing.js")),
      `the recorder saw the listing (${r.loaded.length} loaded)`,
    );
    const lazy = [
      "/src/agents/",
      "/src/grok/",
      "/src/runtime/",
      "/src/sessions/",
      "/src/seat/",
      "/src/fleet/",
      "/src/acp/",
    ];
    assert.deepEqual(
      lazy.filter((part) => r.loaded.some((u) => u.includes(part))),
      [],
    );
    assert.deepEqual(
      ["bullmq", "ioredis", "@agentclientprotocol/sdk"].filter((name) => packagesIn(r.loaded).has(name)),
      [],
    );
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("the bundled `seat` users run: `--help` loads no package, a plain turn none of the heavy packages and nothing of the compiled tree", async () => {
  const home = mkdtempSync(join(tmpdir(), "gs-cli-weight-home-"));
  const grok = fakeGrokBinary();
  try {
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GROK_SEAT_HOME: join(home, "seat") };
    const help = await seatLoads(["--help"], env, home, SEAT_MAIN);
    assert.equal(help.code, 0, help.stderr);
    const ours = help.loaded.filter((u) => !u.startsWith("node:"));
    assert.ok(
      ours.some((u) => u.endsWith("/cli/seat.js")),
      `the recorder saw the bundle (${ours.join(", ")})`,
    );
    assert.deepEqual(
      ours.filter((u) => !u.includes("/dist/cli/")),
      [],
      "`seat --help` loads the bundle alone: no package, no module of the compiled tree",
    );
    const run = await seatLoads(["run", "--json", "hello"], { ...env, GROK_BIN: grok.path }, home, SEAT_MAIN);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /"type":"done"/);
    assert.ok(
      run.loaded.some((u) => u.includes("/cli/chunks/")),
      "the turn's verb came from a chunk of the bundle",
    );
    assert.deepEqual(
      run.loaded.filter((u) => u.includes("/dist/src/")),
      [],
      "nothing of the compiled tree is loaded beside the bundle (two copies of a module would be two states)",
    );
    // The bundle holds the MCP SDK (for `seat mcp`); esbuild names each module it bundles in a comment line, by its
    // path from the package root: `// node_modules/…`, or `// ../…/node_modules/…` when node_modules is a symlink.
    const chunks = run.loaded
      .filter((u) => u.includes("/dist/cli/"))
      .map((u) => readFileSync(fileURLToPath(u), "utf8"));
    const bundled = (pkg: string) => new RegExp(`^// (?:\\S*/)?node_modules/${pkg}/`, "m");
    assert.ok(
      chunks.some((text) => bundled("@agentclientprotocol/sdk").test(text)),
      "the bundled ACP SDK is seen in a loaded chunk",
    );
    assert.equal(
      chunks.filter((text) => bundled("@modelcontextprotocol/sdk").test(text)).length,
      0,
      "a plain turn loads no chunk holding the MCP SDK",
    );
    const packages = packagesIn(run.loaded);
    // SQLite (the ledger) is a package the bundle leaves outside: the recorder sees packages at all.
    assert.ok(packages.has("better-sqlite3"), `the recorder saw packages at all (${[...packages].join(", ")})`);
    assert.deepEqual(
      HEAVY.filter((name) => packages.has(name)),
      [],
    );
  } finally {
    grok.remove();
    rmSync(home, { recursive: true, force: true });
  }
});
