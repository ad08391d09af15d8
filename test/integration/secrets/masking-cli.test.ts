/*
 * One masking for every output, through the built CLI: the agent that dies quoting its keys on stderr
 * (`seat run --agent codex`, text and --json), a Redis password in a config file (`seat config`), and the board
 * token (`seat board` prints its link once; nothing else may). Canary values; temp HOME; loopback only.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test, type TestContext } from "node:test";
import { runSeat, startSeat } from "../../support/cli.js";

const OPENAI = "openai-canary-5f1e2d3c4b5a";
const CODEX = "codex-canary-0a9b8c7d6e5f";

function tempRoot(t: TestContext): string {
  const root = mkdtempSync(join(tmpdir(), "gs-masking-cli-"));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

/** An "installed" codex-acp whose process prints both of its keys on stderr and exits 1. */
function dyingCodex(agentsDir: string, lateStderrMs?: number): void {
  const pkg = join(agentsDir, "codex", "node_modules", "@agentclientprotocol", "codex-acp");
  mkdirSync(join(pkg, "dist"), { recursive: true });
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({ name: "@agentclientprotocol/codex-acp", version: "2.6.0" }),
  );
  // It answers the first ACP message (initialize) by dying, as an adapter whose key is refused does. With
  // `lateStderrMs` it first closes stdout (the ACP connection ends at once) and writes its last words that much later.
  const say =
    "process.stderr.write(`fatal: auth with OPENAI_API_KEY=${process.env.OPENAI_API_KEY} and CODEX_API_KEY=${process.env.CODEX_API_KEY} refused\\n`, () => process.exit(1));";
  writeFileSync(
    join(pkg, "dist", "index.js"),
    [
      "process.stdin.once('data', () => {",
      lateStderrMs === undefined
        ? `  ${say}`
        : `  require('node:fs').closeSync(1); setTimeout(() => { ${say} }, ${lateStderrMs});`,
      "});",
    ].join("\n"),
  );
}

for (const mode of ["text", "json"] as const) {
  test(`seat run --agent codex (${mode}): the agent's stderr tail is shown with both keys masked, the names masked said, and the agent named`, async (t) => {
    const root = tempRoot(t);
    const agentsDir = join(root, "agents");
    dyingCodex(agentsDir);
    const env = {
      PATH: process.env.PATH,
      HOME: join(root, "home"),
      GROK_SEAT_AGENTS_DIR: agentsDir,
      OPENAI_API_KEY: OPENAI,
      CODEX_API_KEY: CODEX,
    };
    const result = await runSeat(["run", "--agent", "codex", ...(mode === "json" ? ["--json"] : []), "hello"], {
      env,
      cwd: root,
    });
    const all = result.stdout + result.stderr;
    assert.notEqual(result.code, 0, all);
    assert.ok(!all.includes(OPENAI) && !all.includes(CODEX), `a key in clear:\n${all}`);
    // Positive control: the agent's line did come through, masked, and says what was masked.
    assert.match(all, /fatal: auth with OPENAI_API_KEY=\[redacted\] and CODEX_API_KEY=\[redacted\] refused/, all);
    assert.match(all, /codex stderr \(tail; masked: CODEX_API_KEY, OPENAI_API_KEY\)/, all);
    assert.ok(!/grok stderr/.test(all), `codex's stderr called grok's:\n${all}`);
  });
}

test("an agent that ends the ACP connection first and writes why on stderr 300 ms later is still heard, masked", async (t) => {
  const root = tempRoot(t);
  const agentsDir = join(root, "agents");
  dyingCodex(agentsDir, 300);
  const env = {
    PATH: process.env.PATH,
    HOME: join(root, "home"),
    GROK_SEAT_AGENTS_DIR: agentsDir,
    OPENAI_API_KEY: OPENAI,
    CODEX_API_KEY: CODEX,
  };
  const result = await runSeat(["run", "--agent", "codex", "hello"], { env, cwd: root });
  const all = result.stdout + result.stderr;
  assert.notEqual(result.code, 0, all);
  assert.ok(!all.includes(OPENAI) && !all.includes(CODEX), `a key in clear:\n${all}`);
  assert.match(all, /fatal: auth with OPENAI_API_KEY=\[redacted\] and CODEX_API_KEY=\[redacted\] refused/, all);
});

test("seat config shows a Redis URL from a config file with its password masked, as written or %-encoded", async (t) => {
  const root = tempRoot(t);
  const home = join(root, "home");
  mkdirSync(join(home, ".config", "grok-seat"), { recursive: true });
  writeFileSync(
    join(home, ".config", "grok-seat", "config.json"),
    JSON.stringify({ redis: "redis://:p%40ss-canary-42@127.0.0.1:6390" }),
  );
  for (const json of [false, true]) {
    const result = await runSeat(["config", ...(json ? ["--json"] : [])], {
      env: { PATH: process.env.PATH, HOME: home },
      cwd: root,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.ok(!result.stdout.includes("ss-canary-42"), result.stdout);
    assert.match(result.stdout, /redis:\/\/:\[redacted\]@127\.0\.0\.1:6390/);
  }
});

test("seat board prints the token it made once, in its link, though the token is a registered secret every other write masks", async (t) => {
  const root = tempRoot(t);
  const run = startSeat(["board", "--port", "0"], {
    env: { PATH: process.env.PATH, HOME: join(root, "home") },
    cwd: root,
  });
  t.after(() => run.child.kill("SIGKILL"));
  const deadline = Date.now() + 10_000;
  while (!/board: http\S+\n/.test(run.stdout()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const link = /board: (http\S+)\?token=(\S+)\n/.exec(run.stdout());
  assert.ok(link, `no link with a token: ${run.stdout()} ${run.stderr()}`);
  const token = link[2]!;
  assert.ok(token.length >= 16);
  const denied = await fetch(`${link[1]}?token=wrong-token-0000000000`);
  assert.equal(denied.status, 401);
  run.child.kill("SIGTERM");
  const done = await run.done;
  assert.equal((done.stdout + done.stderr).split(token).length - 1, 1, "the token appears exactly once: in the link");
});
