/*
 * The MCP host snippets of docs/mcp-hosts.md (examples/mcp-hosts/): every JSON file parses, every host's entry
 * starts the same `seat mcp` command line (the Codex TOML and the `mcp add` lines included), and that command
 * line really starts the server: the official MCP client lists its `run` tool. The snippets that real agents
 * take are driven end to end by test/agents/delegation.test.ts and mcp-add.test.ts.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SEAT_MAIN } from "../../support/cli.js";

const DIR = fileURLToPath(new URL("../../../../examples/mcp-hosts/", import.meta.url));
const read = (name: string) => readFileSync(join(DIR, name), "utf8");

/** Each snippet's `seat` command line, as argv. */
function commandLines(): Map<string, string[]> {
  const lines = new Map<string, string[]>();
  const entry = (name: string, server: { command?: unknown; args?: unknown } | undefined) => {
    assert.ok(server, `${name} has a seat entry`);
    lines.set(name, [String(server.command), ...((server.args as string[] | undefined) ?? [])]);
  };
  for (const name of readdirSync(DIR)) {
    if (name.endsWith(".json")) {
      const json = JSON.parse(read(name)) as Record<string, Record<string, { command?: unknown; args?: unknown }>>;
      if (name === "opencode.json")
        lines.set(name, (json.mcp?.seat as { command?: string[] } | undefined)?.command ?? []);
      else if (name === "vscode-mcp.json") entry(name, json.servers?.seat);
      else if (name === "zed-settings.json") entry(name, json.context_servers?.seat);
      else entry(name, json.mcpServers?.seat);
    } else if (name.endsWith(".toml")) {
      const text = read(name);
      for (const line of text.trim().split("\n"))
        assert.match(
          line,
          /^(\[mcp_servers\.seat\]|[a-z_]+ = ("[^"]*"|\[("[^"]*"(, )?)*\]|\d+))$/,
          `${name}: a plain TOML line`,
        );
      const command = /^command = "([^"]*)"$/m.exec(text)?.[1];
      const args = JSON.parse(/^args = (\[.*\])$/m.exec(text)?.[1] ?? "[]") as string[];
      lines.set(name, [String(command), ...args]);
    } else if (name.endsWith(".sh")) {
      const argv = read(name).trim().split(/\s+/);
      lines.set(name, argv.slice(argv.indexOf("--") + 1));
    }
  }
  return lines;
}

test("every host snippet parses and starts the same `seat mcp` command line", () => {
  const lines = commandLines();
  assert.deepEqual([...lines.keys()].sort(), [
    "claude-mcp-add.sh",
    "claude.mcp.json",
    "codex-config.toml",
    "codex-mcp-add.sh",
    "cursor-mcp.json",
    "gemini-settings.json",
    "opencode.json",
    "vscode-mcp.json",
    "zed-settings.json",
  ]);
  for (const [name, argv] of lines) assert.deepEqual(argv, ["seat", "mcp", "--allow", "read"], name);
});

test("that command line starts the server: the official MCP client lists its run tool", async () => {
  const argv = commandLines().get("claude.mcp.json")!;
  const home = mkdtempSync(join(tmpdir(), "gs-mcp-snippet-"));
  const client = new Client({ name: "snippet-check", version: "0.1.0" });
  try {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [SEAT_MAIN, ...argv.slice(1)],
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
        cwd: home,
        stderr: "ignore",
      }),
    );
    const { tools } = await client.listTools();
    assert.ok(
      tools.some((t) => t.name === "run"),
      `tools: ${tools.map((t) => t.name).join(", ")}`,
    );
  } finally {
    await client.close();
    rmSync(home, { recursive: true, force: true });
  }
});
