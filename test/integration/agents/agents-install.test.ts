/*
 * `seat agents install` and finding agents (issue 15 §3), through the built CLI with a temp HOME:
 * - the install flow with real npm, offline: the agent-pins-from-env test hook swaps the pinned list for a tiny
 *   package packed in the test's temp dir (the real agents are 100+ MB; CI's `npm run agents:install` installs them);
 * - the install root: GROK_SEAT_AGENTS_DIR, else $XDG_CACHE_HOME/grok-seat/agents, else ~/.cache/grok-seat/agents;
 * - an agent on PATH (a fake npm global prefix): found with its version, used only when it is the pinned one,
 *   or with --agent-path-any; messages name the agent and `seat agents install <agent>`.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { fileURLToPath } from "node:url";
import { SEAT_HOOKED_MAIN, runSeat } from "../../support/cli.js";
import { need } from "../../support/requirements.js";

const FAKE_GROK = fileURLToPath(new URL("../../fakes/fake-grok.js", import.meta.url));

function tempRoot(t: TestContext): string {
  const root = mkdtempSync(join(tmpdir(), "gs-agents-install-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** Packs a one-file package `gs-tiny-agent@1.2.3` into `root`; returns the tarball's path. */
function packTinyAgent(root: string): string {
  const src = join(root, "tiny-src");
  mkdirSync(src);
  writeFileSync(
    join(src, "package.json"),
    JSON.stringify({ name: "gs-tiny-agent", version: "1.2.3", bin: { "gs-tiny-agent": "bin.js" } }),
  );
  writeFileSync(join(src, "bin.js"), "#!/usr/bin/env node\nconsole.log('tiny');\n");
  const r = spawnSync("npm", ["pack", "--silent", "--pack-destination", root], { cwd: src, encoding: "utf8" });
  assert.equal(r.status, 0, `npm pack: ${r.stderr}`);
  return join(root, "gs-tiny-agent-1.2.3.tgz");
}

function npmMissing(): string | false {
  return spawnSync("npm", ["--version"], { stdio: "ignore" }).status === 0
    ? false
    : "npm (the agents are installed with it)";
}

const hookEnv = (pins: Record<string, { dir: string; package: string; version: string }>) => ({
  GROK_SEAT_TEST_HOOKS: "agent-pins-from-env",
  GROK_SEAT_TEST_AGENT_PINS: JSON.stringify(pins),
});

test("seat agents install NAME installs the pinned package into GROK_SEAT_AGENTS_DIR with a progress line, and a re-run skips it", async (t) => {
  if (!need(t, npmMissing())) return;
  const root = tempRoot(t);
  const tarball = packTinyAgent(root);
  const agentsDir = join(root, "agents");
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    GROK_SEAT_AGENTS_DIR: agentsDir,
    ...hookEnv({ tiny: { dir: "tiny", package: "gs-tiny-agent", version: `file:${tarball}` } }),
  };
  const first = await runSeat(["agents", "install", "tiny"], { env, main: SEAT_HOOKED_MAIN });
  assert.equal(first.code, 0, first.stderr);
  assert.match(
    first.stdout,
    new RegExp(`seat agents install: tiny: installing gs-tiny-agent@file:.* into ${join(agentsDir, "tiny")}`),
  );
  assert.match(first.stdout, /seat agents install: tiny: installed in [\d.]+ s/);
  const installed = JSON.parse(
    readFileSync(join(agentsDir, "tiny", "node_modules", "gs-tiny-agent", "package.json"), "utf8"),
  ) as { version: string };
  assert.equal(installed.version, "1.2.3");
  const again = await runSeat(["agents", "install", "tiny"], { env, main: SEAT_HOOKED_MAIN });
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /tiny: already installed \(gs-tiny-agent@file:/);
});

test("without GROK_SEAT_AGENTS_DIR the agents go to $XDG_CACHE_HOME/grok-seat/agents, else ~/.cache/grok-seat/agents", async (t) => {
  if (!need(t, npmMissing())) return;
  const root = tempRoot(t);
  const tarball = packTinyAgent(root);
  const pins = hookEnv({ tiny: { dir: "tiny", package: "gs-tiny-agent", version: `file:${tarball}` } });
  const home = join(root, "home");
  const byHome = await runSeat(["agents", "install", "tiny", "--json"], {
    env: { PATH: process.env.PATH, HOME: home, ...pins },
    main: SEAT_HOOKED_MAIN,
  });
  assert.equal(byHome.code, 0, byHome.stdout + byHome.stderr);
  const line = JSON.parse(byHome.stdout.trim()) as { type: string; agent: string; state: string; dir: string };
  assert.deepEqual(
    [line.type, line.agent, line.state, line.dir],
    ["agent_install", "tiny", "installed", join(home, ".cache", "grok-seat", "agents", "tiny")],
  );
  assert.ok(
    existsSync(join(home, ".cache", "grok-seat", "agents", "tiny", "node_modules", "gs-tiny-agent", "package.json")),
  );
  const xdg = join(root, "xdg-cache");
  const byXdg = await runSeat(["agents", "install", "tiny"], {
    env: { PATH: process.env.PATH, HOME: home, XDG_CACHE_HOME: xdg, ...pins },
    main: SEAT_HOOKED_MAIN,
  });
  assert.equal(byXdg.code, 0, byXdg.stderr);
  assert.ok(existsSync(join(xdg, "grok-seat", "agents", "tiny", "node_modules", "gs-tiny-agent", "package.json")));
});

test("a failed install exits 1 with AGENT_INSTALL_FAILED naming the agent and npm's reason, without a stack trace", async (t) => {
  if (!need(t, npmMissing())) return;
  const root = tempRoot(t);
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    GROK_SEAT_AGENTS_DIR: join(root, "agents"),
    ...hookEnv({ tiny: { dir: "tiny", package: "gs-tiny-agent", version: `file:${join(root, "missing.tgz")}` } }),
  };
  const result = await runSeat(["agents", "install", "tiny"], { env, main: SEAT_HOOKED_MAIN });
  assert.equal(result.code, 1);
  assert.match(
    result.stdout,
    /tiny: FAILED after [\d.]+ s — Installing tiny \(gs-tiny-agent@file:.*\) failed: `npm install` in .* exited \d+/,
  );
  assert.match(result.stderr, /\[AGENT_INSTALL_FAILED\]/);
  assert.doesNotMatch(result.stderr + result.stdout, /\n\s+at /, "no stack trace");
  const unknown = await runSeat(["agents", "install", "nope"], { env, main: SEAT_HOOKED_MAIN });
  assert.equal(unknown.code, 2);
  assert.match(unknown.stderr, /Cannot install "nope": the agents grok-seat installs are tiny/);
});

/** A fake npm global prefix holding codex-acp `version`, whose dist/index.js runs fake-grok; returns its bin dir. */
function fakeGlobalCodex(root: string, version: string): string {
  const pkg = join(root, "prefix", "lib", "node_modules", "@agentclientprotocol", "codex-acp");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "@agentclientprotocol/codex-acp", version, bin: { "codex-acp": "dist/index.js" } }),
  );
  writeFileSync(
    join(pkg, "dist", "index.js"),
    `#!/usr/bin/env node\nprocess.argv.push("agent", "stdio");\nawait import(${JSON.stringify(FAKE_GROK)});\n`,
  );
  writeFileSync(join(pkg, "dist", "package.json"), JSON.stringify({ type: "module" }));
  const bin = join(root, "prefix", "bin");
  mkdirSync(bin, { recursive: true });
  symlinkSync(join(pkg, "dist", "index.js"), join(bin, "codex-acp"));
  return bin;
}

test("an agent on PATH is found with its version: used when it is the pinned version, shown but refused otherwise", async (t) => {
  const root = tempRoot(t);
  const bin = fakeGlobalCodex(root, "2.6.0");
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: join(root, "home"),
    GROK_SEAT_AGENTS_DIR: join(root, "empty-agents"),
    NO_COLOR: "1",
  };
  const listed = await runSeat(["agents", "--json", "--no-probe"], { env });
  assert.equal(listed.code, 0, listed.stderr);
  const codex = listed.stdout
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((r) => r.agent === "codex")!;
  assert.deepEqual(
    [codex.installed, codex.installedVersion, codex.source, codex.onPath],
    [true, "2.6.0", "path", { bin: join(bin, "codex-acp"), version: "2.6.0", tested: true }],
  );
  const ran = await runSeat(["run", "--agent", "codex", "--json", "hello"], { env, cwd: root });
  assert.equal(ran.code, 0, ran.stdout + ran.stderr);
  assert.match(ran.stdout, /pong from fake/);
});

test("an agent on PATH with an untested version is refused naming the agent, its version and the fix, and --agent-path-any uses it", async (t) => {
  const root = tempRoot(t);
  const bin = fakeGlobalCodex(root, "2.5.0");
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    HOME: join(root, "home"),
    GROK_SEAT_AGENTS_DIR: join(root, "empty-agents"),
    NO_COLOR: "1",
  };
  const listed = await runSeat(["agents", "--no-probe"], { env });
  assert.match(
    listed.stdout,
    /codex {2}OpenAI Codex \(codex-acp\) — not installed \(seat agents install codex\)\n {4}on PATH: .*codex-acp is 2\.5\.0, untested \(pinned @agentclientprotocol\/codex-acp@2\.6\.0\); used only with --agent-path-any/,
  );
  const refused = await runSeat(["run", "--agent", "codex", "hello"], { env, cwd: root });
  assert.equal(refused.code, 3, refused.stderr);
  assert.match(
    refused.stderr,
    /Agent "codex" is not installed: .*Run `seat agents install codex`.*\/codex-acp on PATH is @agentclientprotocol\/codex-acp 2\.5\.0, a version grok-seat does not test \(it tests 2\.6\.0\); to use it anyway pass --agent-path-any/,
  );
  assert.doesNotMatch(refused.stderr, /npm run agents:install|node_modules\/grok-seat/);
  const allowed = await runSeat(["run", "--agent", "codex", "--agent-path-any", "--json", "hello"], { env, cwd: root });
  assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  assert.match(allowed.stdout, /pong from fake/);
});
