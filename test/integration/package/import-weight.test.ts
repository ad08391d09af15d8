/*
 * Import weight (issue 15 §8): `import "grok-seat"` loads neither the fleet (BullMQ, ioredis), the journal
 * (better-sqlite3), schema validation (ajv) nor the ACP SDK (and its zod schemas); they load when first used. Not a timing test: a child node
 * process records every module it resolves (a module.register resolve hook, for ES modules) and every CommonJS
 * module in its require cache (a `require` from createRequire does not pass the ESM hooks on Node 20).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const FRONT_DOOR = new URL("../../../src/index.js", import.meta.url).href;
const HEAVY = ["bullmq", "ioredis", "better-sqlite3", "ajv", "ajv-formats", "@agentclientprotocol/sdk", "zod"];

/** The npm packages (by name) a fresh node process resolves while running `script` (an ES module body). */
function packagesLoadedBy(script: string): { names: Set<string>; urls: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "gs-import-weight-"));
  try {
    const log = join(dir, "resolved.log");
    writeFileSync(
      join(dir, "hooks.mjs"),
      [
        'import { appendFileSync } from "node:fs";',
        "export async function resolve(specifier, context, next) {",
        "  const result = await next(specifier, context);",
        `  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");`,
        "  return result;",
        "}",
      ].join("\n"),
    );
    writeFileSync(
      join(dir, "register.mjs"),
      'import { register } from "node:module";\nregister("./hooks.mjs", import.meta.url);\n',
    );
    writeFileSync(log, "");
    const body = `${script}\nconst { createRequire } = await import("node:module");\nprocess.stdout.write(Object.keys(createRequire(import.meta.url).cache).join("\\n"));`;
    const r = spawnSync(
      process.execPath,
      ["--import", pathToFileURL(join(dir, "register.mjs")).href, "--input-type=module", "-e", body],
      {
        encoding: "utf8",
        cwd: fileURLToPath(new URL("../../../..", import.meta.url)),
      },
    );
    assert.equal(r.status, 0, `the child ran (stderr: ${r.stderr})`);
    const names = new Set<string>();
    const urls = [...readFileSync(log, "utf8").split("\n"), ...r.stdout.split("\n")].filter(Boolean);
    for (const url of urls) {
      const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
      if (m) names.add(m[1]!);
    }
    return { names, urls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("importing grok-seat loads neither BullMQ, ioredis, better-sqlite3, ajv nor the ACP SDK", () => {
  const { names, urls } = packagesLoadedBy(`await import(${JSON.stringify(FRONT_DOOR)});`);
  assert.ok(
    urls.some((u) => u.endsWith("/src/runtime/session.js")),
    `the hook saw the front door's own imports (${urls.length} resolved)`,
  );
  assert.deepEqual(
    HEAVY.filter((name) => names.has(name)),
    [],
  );
});

test("the fleet, the journal and validation load those packages when first used", () => {
  const { names: loaded } = packagesLoadedBy(
    [
      `const seat = await import(${JSON.stringify(FRONT_DOOR)});`,
      // A bad URL fails inside fleet/ after it loaded; a bridge with a tool compiles its schema with ajv.
      'await seat.connectFleet("not a url").catch(() => undefined);',
      'const bridge = await seat.createToolBridge({ tools: [{ name: "t", description: "d", inputSchema: { type: "object" }, execute: async () => "ok" }] });',
      "await bridge.close();",
      // The ACP SDK loads with the first connection.
      'const peer = await seat.connectAcp({ readable: new ReadableStream(), writable: new WritableStream() }, { onSessionUpdate() {}, onExtNotification() {}, onPermissionRequest: async () => ({ outcome: { outcome: "cancelled" } }) });',
      "peer.close();",
      `const { openDatabase } = await import(${JSON.stringify(new URL("../../../src/journal/index.js", import.meta.url).href)});`,
      'openDatabase(":memory:").close();',
    ].join("\n"),
  );
  assert.deepEqual(
    HEAVY.filter((name) => !loaded.has(name)),
    [],
  );
});

test("loading `seat run` loads neither worktrees' git side, the journal, the ledger, identity, the approvals' remote side, the tool bridge nor skill staging", () => {
  // P9 (issue 15 §8): what a plain run imports before its turn starts. Each of these loads on use instead: a
  // worktree with --worktree or a named session, the ledger (and its journal) while the turn runs, the bridge and
  // the skills for a session with host tools or skills.
  // The verb loads the supervised turn (turn/) once its flags are checked: both are what a plain run loads before
  // its turn starts.
  const RUN = new URL("../../../src/cli/commands/run.js", import.meta.url).href;
  const TURN = new URL("../../../src/turn/index.js", import.meta.url).href;
  const { urls } = packagesLoadedBy(`await import(${JSON.stringify(RUN)});\nawait import(${JSON.stringify(TURN)});`);
  assert.ok(
    urls.some((u) => u.endsWith("/src/runtime/session.js")),
    `the hook saw run's own imports (${urls.length} resolved)`,
  );
  const lazy = [
    "/src/worktrees/git.js",
    "/src/worktrees/index.js",
    "/src/journal/",
    "/src/usage/ledger.js",
    "/src/identity/",
    "/src/supervision/remote.js",
    "/src/tools/tool-bridge.js",
    "/src/tools/bridge.js",
    "/src/skills/",
  ];
  assert.deepEqual(
    lazy.filter((part) => urls.some((u) => u.includes(part))),
    [],
  );
});
