// Records which tool calls the real grok 1.0.41 runs WITHOUT asking `session/request_permission`, offline against
// the mock model (which scripts one tool call per prompt). Every request grok does ask is denied, so a call that
// still ran was never gated: that is what `seat run --allow read` (execute/edit need approval) cannot stop.
// Usage: npm run build && node scripts/record-unasked-commands.mjs [plain|toml|global-hook|grok-config|plugin-hook ...] [--json]
//   plain:       grok as the sandbox configures it (no permission settings) — what `seat run` gets today.
//   toml:        `[permission] ask = ["Bash", "Edit"]` in $GROK_HOME/config.toml (a user's own file).
//   global-hook: a PreToolUse hook answering {"decision":"ask"} in $GROK_HOME/hooks/ (a user's own file).
//   grok-config: the same rule in the GROK_CONFIG env overlay (per process; grok 1.0.41 ignores `permission`).
//   grok-config-path: the same rule in a file named by GROK_CONFIG_PATH (per process; ignored too).
//   plugin-hook: the same hook in a `--plugin-dir` plugin (per process; grok 1.0.41 discovers the plugin and
//                reports has_hooks=true, but loads none of its hooks).
//   mode-<id>:   ACP `session/set_mode {modeId: <id>}` after session/new (ask, plan, default: none changes it).
// Runs itself inside `unshare -rn` (loopback only). "ran" is read from the mock: grok calls the model back with
// the call's output only when it ran; a denied call ends the turn `cancelled` with no follow-up.
// The facts are pinned by test/live/runtime/unasked-commands.test.ts and shown by `seat probe`.
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const json = args.includes("--json");
const variants = args.filter((a) => !a.startsWith("--"));

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
      ...args,
    ],
    {
      stdio: "inherit",
      env: { ...process.env, GROK_SEAT_NETNS: "1" },
    },
  );
  if (ns.error || ns.status === null) {
    console.error("record-unasked-commands: `unshare -rn` is required (the model must be the loopback mock)");
    process.exit(1);
  }
  process.exit(ns.status);
}

const { createSession } = await import(join(repo, "dist/src/runtime/index.js"));
const { ensureGrokBinary } = await import(join(repo, "dist/src/grok/index.js"));
const { createSandbox, startMockModel } = await import(join(repo, "dist/src/testing.js"));
const { createPermissionGate, parsePolicyFlags } = await import(join(repo, "dist/src/permissions/index.js"));

// A file outside every sandbox: grok's touch reaches it too (not under its cwd).
const OUTSIDE = join(tmpdir(), `grok-seat-unasked-outside-${process.pid}.txt`);
const shell = (command) => ({
  label: command,
  call: { name: "run_terminal_command", arguments: { command, description: "recorded command" } },
});
/** The calls tried: grok's documented read-only list, writers it lets through, writers it asks about, edits. */
const CALLS = [
  ...[
    "ls",
    "pwd",
    "date",
    "cat /etc/hostname",
    "wc -c /etc/hostname",
    "git status",
    "grep -c root /etc/passwd",
    "echo hi",
    "printf hi",
    "true",
  ].map(shell),
  ...[
    "touch unasked-touch.txt",
    "touch unasked-chain.txt && echo done",
    "mkdir unasked-dir",
    "ls && touch unasked-after-ls.txt",
    `touch ${OUTSIDE}`,
  ].map(shell),
  ...[
    "cp /etc/hostname unasked-cp.txt",
    "echo hi > unasked-redirect.txt",
    "sort -o unasked-sort.txt /etc/hostname",
    "uniq /etc/hostname unasked-uniq.txt",
    "rm -f unasked-none.txt",
    "sh -c 'touch unasked-sh.txt'",
  ].map(shell),
  {
    label: "write tool: unasked-write.txt",
    call: { name: "write", arguments: { file_path: "unasked-write.txt", content: "hi\n" } },
  },
];

const ASK_HOOK = {
  hooks: {
    PreToolUse: ["Bash", "Edit|Write|write|search_replace"].map((matcher) => ({
      matcher,
      hooks: [{ type: "command", command: `printf '%s\\n' '{"decision":"ask","reason":"recorded"}'`, timeout: 10 }],
    })),
  },
};

const binary = (await ensureGrokBinary()).path;
const results = [];
for (const variant of variants.length > 0
  ? variants
  : ["plain", "toml", "global-hook", "grok-config", "grok-config-path", "plugin-hook", "mode-ask"]) {
  const script = {
    rules: CALLS.map((c, i) => ({
      match: `run call ${i} now`,
      replies: [{ toolCalls: [c.call] }, { text: `call ${i} went on` }],
    })),
  };
  const mock = await startMockModel({ script });
  const sandbox = createSandbox({ modelBaseUrl: mock.baseUrl });
  const env = { ...sandbox.env };
  const pluginDirs = [];
  let pluginRoot;
  if (variant === "toml")
    appendFileSync(join(sandbox.grokHome, "config.toml"), '[permission]\nask = ["Bash", "Edit"]\n');
  if (variant === "global-hook") {
    mkdirSync(join(sandbox.grokHome, "hooks"));
    writeFileSync(join(sandbox.grokHome, "hooks", "ask.json"), JSON.stringify(ASK_HOOK));
  }
  if (variant === "grok-config") env.GROK_CONFIG = JSON.stringify({ permission: { ask: ["Bash", "Edit"] } });
  if (variant === "grok-config-path") {
    env.GROK_CONFIG_PATH = join(sandbox.root, "overlay.toml");
    writeFileSync(env.GROK_CONFIG_PATH, '[permission]\nask = ["Bash", "Edit"]\n');
  }
  if (variant === "plugin-hook") {
    pluginRoot = mkdtempSync(join(tmpdir(), "grok-seat-ask-plugin-"));
    mkdirSync(join(pluginRoot, "hooks"));
    writeFileSync(join(pluginRoot, "plugin.json"), JSON.stringify({ name: "grok-seat-ask", version: "1.0.0" }));
    writeFileSync(join(pluginRoot, "hooks", "hooks.json"), JSON.stringify(ASK_HOOK));
    pluginDirs.push(pluginRoot);
  }
  let asked = 0;
  const gate = createPermissionGate({
    policy: parsePolicyFlags({ ask: ["execute", "edit"] }),
    approver: () => (asked++, "deny"),
  });
  const session = await createSession({
    cwd: sandbox.project,
    grokCliBinaryPath: binary,
    agentEnv: env,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    permissions: gate,
    pluginDirs,
    skills: false,
  });
  try {
    if (session.state !== "ready") throw new Error(`session did not start: ${JSON.stringify(session.diagnostics)}`);
    // Not a public API: the runtime's ACP peer, reached here only to try grok's own modes.
    if (variant.startsWith("mode-"))
      await session.peer.request("session/set_mode", { sessionId: session.id, modeId: variant.slice(5) });
    for (const [i, c] of CALLS.entries()) {
      const before = asked;
      const promptId = `call-${variant}-${i}`;
      const turn = await session.prompt(`please run call ${i} now`, { promptId });
      const ran = mock.requests.some((r) => r.kind === "tool_followup" && r.reqId === promptId);
      const row = { variant, call: c.label, asked: asked > before, ran, stopReason: turn.stopReason };
      results.push(row);
      if (!json)
        console.log(`${variant.padEnd(11)} ${row.asked ? "asked  " : "UNASKED"} ${ran ? "ran " : "    "} ${c.label}`);
    }
  } finally {
    await session.dispose();
    await mock.close();
    sandbox.cleanup();
    if (pluginRoot) rmSync(pluginRoot, { recursive: true, force: true });
    rmSync(OUTSIDE, { force: true });
  }
}
if (json) console.log(JSON.stringify({ grok: "1.0.41", results }, null, 2));
