/*
 * `seat agents`: every known ACP agent — installed or not, pinned and installed version, auth readiness,
 *   what it advertised at initialize (load/resume, images, MCP transports), how skills reach it, its quirks.
 * Owns: the agents table and probeAgent() (shared with `seat probe --agent`).
 * Does not own: the profiles (agents/) or the probe itself (runtime/probe.ts).
 * Invariant: only initialize is sent (no session, no model call); every started agent is terminated; a probed
 *   agent runs under a throwaway HOME (and cwd), removed afterwards, so it creates nothing in the user's HOME.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENT_NAMES, agentProfile, defaultInstallRoot, installedVersion, NODE22_PIN, throwawayHomeEnv, type AgentProfile } from "../../agents/index.js";
import { removePrivateDir } from "../../internal/private-dir.js";
import { isSeatError, messageOf } from "../../errors.js";
import { agentLaunch, probeAcp, type AcpProbe } from "../../runtime/index.js";
import { parseFlags } from "../args.js";
import { EXIT, paletteFor, writeJson } from "../output.js";
import type { Command } from "./command.js";

/** One row of `seat agents`. */
export interface AgentRow {
  agent: string;
  title: string;
  pinned: string | null;
  installed: boolean;
  installedVersion: string | null;
  skills: string;
  quirks: readonly string[];
  probe?: AcpProbe;
  error?: { code: string; message: string };
}

/** Starts a non-grok agent just long enough for initialize; never throws (a failure is in `error`). */
export async function probeAgent(profile: AgentProfile, env: NodeJS.ProcessEnv = process.env): Promise<{ probe?: AcpProbe; error?: { code: string; message: string } }> {
  // Agents create ~/.codex, ~/.gemini, ~/.cache/opencode… at start: a probe gets a HOME of its own.
  const home = mkdtempSync(join(tmpdir(), "grok-seat-probe-home-"));
  try {
    const launch = agentLaunch(profile, {}, throwawayHomeEnv(env, home));
    return { probe: await probeAcp({ launch: { ...launch, chooseAuth: profile.chooseAuth }, cwd: home }) };
  } catch (error) {
    return { error: { code: isSeatError(error) ? error.code : "INTERNAL", message: messageOf(error) } };
  } finally {
    removePrivateDir(home, { retries: 3 });
  }
}

function rulesWay(profile: AgentProfile): string {
  switch (profile.rulesDelivery) {
    case "claude-append": return "_meta.systemPrompt.append";
    case "acp-system-prompt": return "ACP systemPrompt append";
    case "rules-file": return `rules file ${profile.rulesFileName ?? ""} in the agent's config`.replace("  ", " ");
    case "grok-meta": return "_meta.rules";
    default: return "not delivered: this agent takes no rules";
  }
}

function rowOf(profile: AgentProfile, root: string): AgentRow {
  const version = profile.pinned ? installedVersion(root, profile.pinned) : undefined;
  const needsNode22 = profile.name === "claude";
  const installed = profile.pinned ? version !== undefined && (!needsNode22 || installedVersion(root, NODE22_PIN) !== undefined) : true;
  return {
    agent: profile.name,
    title: profile.title,
    pinned: profile.pinned ? `${profile.pinned.package}@${profile.pinned.version}` : null,
    installed,
    installedVersion: version ?? null,
    skills: profile.skills === "plugin-dir" ? "native (plugin dirs)" : `no native mapping: requested skills' SKILL.md text goes into the session rules (${rulesWay(profile)})`,
    quirks: profile.quirks,
  };
}

export const agentsCommand: Command = {
  name: "agents",
  help: `Usage: seat agents [--json] [--no-probe]

  --json       one JSON object per agent on stdout
  --no-probe   do not start installed agents to read what they advertise
Install the pinned agents with \`npm run agents:install [codex|claude|opencode|gemini]\`.
grok is probed by \`seat probe\`; this table probes the others.

Examples:
  seat agents
  seat agents --json --no-probe | jq -r .agent`,
  async run(argv) {
    const args = parseFlags("agents", argv, { json: { type: "boolean" }, "no-probe": { type: "boolean" } });
    const root = defaultInstallRoot();
    const rows: AgentRow[] = [];
    for (const name of AGENT_NAMES) {
      const profile = agentProfile(name);
      const row = rowOf(profile, root);
      if (name !== "grok" && row.installed && args.values["no-probe"] !== true) Object.assign(row, await probeAgent(profile));
      rows.push(row);
    }
    if (args.values.json) {
      for (const row of rows) writeJson({ type: "agent", ...row });
      return EXIT.ok;
    }
    const p = paletteFor(process.stdout);
    const lines: string[] = [];
    for (const row of rows) {
      const state = row.agent === "grok" ? "see `seat probe`" : row.installed ? p.green(`installed ${row.installedVersion}`) : p.red(`not installed (npm run agents:install ${row.agent})`);
      lines.push(`${row.agent}  ${row.title} — ${state}`);
      if (row.probe) {
        const c = row.probe.capabilities;
        lines.push(`    auth: ${row.probe.acpReady ? row.probe.authChoice : p.red(row.probe.error ?? row.probe.authChoice)}`);
        if (c) lines.push(`    advertises: load ${row.probe.loadSession ? "yes" : "no"}, resume ${c.resume ? "yes" : "no"}, images ${c.image ? "yes" : "no"}, MCP http ${c.mcpHttp ? "yes" : "no"}, sse ${c.mcpSse ? "yes" : "no"}`);
      }
      if (row.error) lines.push(`    ${p.red(`${row.error.code}: ${row.error.message}`)}`);
      lines.push(`    skills: ${row.skills}`);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
};
