/*
 * MCP host wiring: hands `seat mcp` to a real agent through the agent's OWN MCP configuration — the file its
 *   users edit (Claude's project `.mcp.json`, Codex's `$CODEX_HOME/config.toml`, Gemini's project
 *   `.gemini/settings.json`, OpenCode's project `opencode.json`) — never through ACP's session/new mcpServers.
 * Owns: turning the doc snippet for each host (examples/mcp-hosts/, shown in docs/mcp-hosts.md) into the file a
 *   test writes: the snippet's `seat` command becomes this checkout's built CLI, the snippet's own arguments and
 *   other keys are kept, and the test's env (HOME, GROK_HOME, GROK_BIN: the offline grok) is added.
 * Does not own: the agent rig (rig.ts) or the server (src/mcp/).
 * Invariant: everything written lives under the rig's temp HOME or cwd; a snippet missing the `seat` entry, or
 *   whose command is not `seat`, throws, so a doc edit that breaks the snippet fails the delegation test.
 */
import { mkdirSync, readFileSync, writeFileSync, appendFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentRig } from "./rig.js";

/** The examples folder holding the host snippets (byte-identical to docs/mcp-hosts.md's code blocks). */
export const HOST_SNIPPETS_DIR = fileURLToPath(new URL("../../../examples/mcp-hosts/", import.meta.url));

/** The snippet file for each host the suite drives. */
export const HOST_SNIPPET: Readonly<Record<string, string>> = Object.freeze({
  claude: "claude.mcp.json",
  codex: "codex-config.toml",
  gemini: "gemini-settings.json",
  opencode: "opencode.json",
});

/** How the host starts `seat mcp`: `seat` in a snippet becomes `command` + `prefix` (e.g. node + main.js). */
export interface SeatLaunch {
  command: string;
  /** Arguments placed before the snippet's own (`mcp --allow read`). */
  prefix: readonly string[];
  /** Arguments placed after the snippet's own (e.g. `--root DIR`). */
  suffix: readonly string[];
  /** Variables the host adds to the server's environment. */
  env: Readonly<Record<string, string>>;
}

/** The snippet text for `agent`. */
export function hostSnippet(agent: string): string {
  const file = HOST_SNIPPET[agent];
  if (!file) throw new Error(`no MCP host snippet for agent ${JSON.stringify(agent)}`);
  return readFileSync(join(HOST_SNIPPETS_DIR, file), "utf8");
}

function seatArgv(snippetCommand: string, snippetArgs: readonly string[], launch: SeatLaunch): string[] {
  if (snippetCommand !== "seat") throw new Error(`the snippet starts ${JSON.stringify(snippetCommand)}, not seat`);
  return [...launch.prefix, ...snippetArgs, ...launch.suffix];
}

function readJson(path: string): Record<string, unknown> {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>) : {};
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** A TOML inline table of string values (keys are plain env names). */
function tomlInlineTable(values: Readonly<Record<string, string>>): string {
  return `{ ${Object.entries(values)
    .map(([k, v]) => `${/^[A-Za-z0-9_-]+$/.test(k) ? k : JSON.stringify(k)} = ${JSON.stringify(v)}`)
    .join(", ")} }`;
}

/** Codex: the snippet's `[mcp_servers.seat]` table appended to `$CODEX_HOME/config.toml`, command/args swapped, env added. */
function writeCodex(rig: AgentRig, launch: SeatLaunch): string {
  const text = hostSnippet("codex");
  const command = /^command = "([^"]*)"$/m.exec(text);
  const args = /^args = (\[.*\])$/m.exec(text);
  if (!text.startsWith("[mcp_servers.seat]\n") || !command || !args)
    throw new Error("codex-config.toml has no [mcp_servers.seat] table with command and args lines");
  // The snippet's array holds plain double-quoted strings, which read the same in JSON.
  const argv = seatArgv(command[1] ?? "", JSON.parse(args[1] ?? "[]") as string[], launch);
  const table = text
    .replace(command[0], `command = ${JSON.stringify(launch.command)}`)
    .replace(args[0], `args = ${JSON.stringify(argv)}\nenv = ${tomlInlineTable(launch.env)}`);
  const config = join(rig.options.agentEnv?.CODEX_HOME ?? join(rig.home, ".codex"), "config.toml");
  appendFileSync(config, `\n${table}`);
  return config;
}

interface JsonServer {
  command?: unknown;
  args?: unknown;
  env?: Record<string, string>;
  [key: string]: unknown;
}

function jsonServer(agent: string, container: string): JsonServer {
  const parsed = JSON.parse(hostSnippet(agent)) as Record<string, Record<string, JsonServer>>;
  const server = parsed[container]?.seat;
  if (!server) throw new Error(`${HOST_SNIPPET[agent]} has no ${container}.seat entry`);
  return server;
}

/**
 * Writes `seat mcp` into `agent`'s own MCP configuration under the rig (built from the doc snippet) and returns
 * the file written. Claude: `<cwd>/.mcp.json`; Codex: `$CODEX_HOME/config.toml`; Gemini: `<cwd>/.gemini/settings.json`;
 * OpenCode: `<cwd>/opencode.json`.
 */
export function writeHostMcpConfig(agent: string, rig: AgentRig, launch: SeatLaunch): string {
  if (agent === "codex") return writeCodex(rig, launch);
  if (agent === "claude" || agent === "gemini") {
    const server = jsonServer(agent, "mcpServers");
    const entry = {
      ...server,
      command: launch.command,
      args: seatArgv(String(server.command), server.args as string[], launch),
      env: { ...(server.env ?? {}), ...launch.env },
    };
    const path = agent === "claude" ? join(rig.cwd, ".mcp.json") : join(rig.cwd, ".gemini", "settings.json");
    const existing = readJson(path);
    writeJson(path, {
      ...existing,
      mcpServers: { ...((existing.mcpServers as object | undefined) ?? {}), seat: entry },
    });
    return path;
  }
  if (agent === "opencode") {
    const parsed = JSON.parse(hostSnippet("opencode")) as {
      mcp?: { seat?: { command?: string[]; [key: string]: unknown } };
    };
    const server = parsed.mcp?.seat;
    const [first, ...rest] = server?.command ?? [];
    if (!server || first === undefined) throw new Error("opencode.json has no mcp.seat.command");
    const entry = {
      ...server,
      command: [launch.command, ...seatArgv(first, rest, launch)],
      environment: { ...launch.env },
    };
    const path = join(rig.cwd, "opencode.json");
    writeJson(path, { ...parsed, mcp: { seat: entry } });
    return path;
  }
  throw new Error(`no native MCP configuration known for agent ${JSON.stringify(agent)}`);
}
