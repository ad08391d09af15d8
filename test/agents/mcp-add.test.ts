/*
 * `claude mcp add` and `codex mcp add` as docs/mcp-hosts.md shows them (examples/mcp-hosts/*-mcp-add.sh), run with
 * the CLIs the agents' packages ship, under a throwaway HOME: each writes the same `seat` entry as the config
 * snippet beside it — the snippet the delegation test (delegation.test.ts) hands the real agent. So the command
 * and the file in the docs cannot drift apart, and both are checked against the real tools.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultInstallRoot } from "../../src/agents/index.js";
import { agentTest } from "./results.js";
import { AGENTS_UNDER_TEST as AGENTS } from "./rig.js";
import { HOST_SNIPPETS_DIR, hostSnippet } from "./mcp-host.js";

/** The CLI each agent package ships (linux-x64 builds, as installed by `seat agents install`). */
const CLI: Record<string, string[]> = {
  claude: ["claude", "node_modules", "@anthropic-ai", "claude-agent-sdk-linux-x64", "claude"],
  codex: ["codex", "node_modules", "@openai", "codex-linux-x64", "vendor", "x86_64-unknown-linux-musl", "bin", "codex"],
};

/** Runs the doc's `<agent> mcp add …` line with the packaged CLI in a temp HOME; returns that HOME's root. */
function runMcpAdd(agent: string): { root: string; project: string } {
  const line = readFileSync(join(HOST_SNIPPETS_DIR, `${agent}-mcp-add.sh`), "utf8").trim();
  const argv = line.split(/\s+/);
  assert.equal(argv[0], agent, `the snippet runs ${agent}`);
  const cli = join(defaultInstallRoot(), ...CLI[agent]!);
  assert.ok(existsSync(cli), `${agent}'s packaged CLI is at ${cli} (npm run agents:install)`);
  const root = mkdtempSync(join(tmpdir(), `gs-mcp-add-${agent}-`));
  const project = join(root, "project");
  mkdirSync(project);
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    CLAUDE_CONFIG_DIR: join(root, ".claude"),
    CODEX_HOME: join(root, ".codex"),
    DISABLE_TELEMETRY: "1",
    DISABLE_AUTOUPDATER: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    ...(process.getuid?.() === 0 ? { IS_SANDBOX: "1" } : {}),
  };
  mkdirSync(env.CODEX_HOME);
  const run = spawnSync(cli, argv.slice(1), { cwd: project, env, encoding: "utf8", timeout: 60_000 });
  assert.equal(run.status, 0, `${line} exited ${run.status ?? run.signal}: ${run.stderr.slice(-500)}`);
  return { root, project };
}

if (AGENTS.includes("claude"))
  agentTest(
    "claude",
    ["mcp-add"],
    "claude: `claude mcp add --scope project seat -- seat mcp --allow read` writes the .mcp.json entry docs/mcp-hosts.md shows",
    async () => {
      const { root, project } = runMcpAdd("claude");
      try {
        const written = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8")) as {
          mcpServers: Record<string, unknown>;
        };
        const shown = JSON.parse(hostSnippet("claude")) as { mcpServers: Record<string, unknown> };
        assert.deepEqual(written, shown);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );

if (AGENTS.includes("codex"))
  agentTest(
    "codex",
    ["mcp-add"],
    "codex: `codex mcp add seat -- seat mcp --allow read` writes the [mcp_servers.seat] lines docs/mcp-hosts.md shows",
    async () => {
      const { root } = runMcpAdd("codex");
      try {
        const written = readFileSync(join(root, ".codex", "config.toml"), "utf8")
          .trim()
          .split("\n");
        const shown = hostSnippet("codex").trim().split("\n");
        // The snippet adds the two timeouts after what `codex mcp add` writes.
        assert.deepEqual(written, shown.slice(0, written.length));
        assert.deepEqual(shown.slice(written.length), ["startup_timeout_sec = 30", "tool_timeout_sec = 600"]);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  );
