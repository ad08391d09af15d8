/*
 * `seat agents`: every known ACP agent — installed or not, pinned and installed version, auth readiness,
 *   what it advertised at initialize (load/resume, images, MCP transports), how skills reach it, its quirks.
 * Owns: the agents table, probeAgent() (shared with `seat probe --agent`) and `seat agents install [NAME…]`
 *   (the pinned agents into GROK_SEAT_AGENTS_DIR, default `$XDG_CACHE_HOME/grok-seat/agents`; agents/installer.ts).
 * Does not own: the profiles (agents/) or the probe itself (runtime/probe.ts).
 * Invariant: only initialize is sent (no session, no model call); every started agent is terminated; a probed
 *   agent runs under a throwaway HOME (and cwd), removed afterwards, so it creates nothing in the user's HOME.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AGENT_NAMES,
  agentProfile,
  builtInInstallTable,
  defaultInstallRoot,
  installAgents,
  installCommand,
  installedVersion,
  lookupAgentPackage,
  NODE22_PIN,
  planInstall,
  throwawayHomeEnv,
  type AgentProfile,
  type InstallTable,
} from "../../agents/index.js";
import { removePrivateDir } from "../../internal/private-dir.js";
import { SeatError, isSeatError, messageOf } from "../../errors.js";
import { agentLaunch, probeAcp, type AcpProbe } from "../../runtime/index.js";
import { parseFlags } from "../args.js";
import { EXIT, paletteFor, writeJson } from "../output.js";
import { cliHooks } from "../hooks.js";
import type { Command } from "./command.js";

/** One row of `seat agents`. */
export interface AgentRow {
  agent: string;
  title: string;
  pinned: string | null;
  installed: boolean;
  installedVersion: string | null;
  /** Where the agent's package was found: the install root, PATH (a tested version), or nowhere usable. */
  source: "install" | "path" | null;
  /** An install of the agent on PATH, with its version and whether it is the version grok-seat tests. */
  onPath: { bin: string; version: string; tested: boolean } | null;
  skills: string;
  quirks: readonly string[];
  probe?: AcpProbe;
  error?: { code: string; message: string };
}

/** Starts a non-grok agent just long enough for initialize; never throws (a failure is in `error`). */
export async function probeAgent(
  profile: AgentProfile,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ probe?: AcpProbe; error?: { code: string; message: string } }> {
  // Agents create ~/.codex, ~/.gemini, ~/.cache/opencode… at start: a probe gets a HOME of its own.
  const home = mkdtempSync(join(tmpdir(), "grok-seat-probe-home-"));
  try {
    // The install root comes from the real env: under the throwaway HOME the default root would be empty.
    const launch = agentLaunch(profile, { agentsDir: defaultInstallRoot(env) }, throwawayHomeEnv(env, home));
    return { probe: await probeAcp({ launch: { ...launch, chooseAuth: profile.chooseAuth }, cwd: home }) };
  } catch (error) {
    return { error: { code: isSeatError(error) ? error.code : "INTERNAL", message: messageOf(error) } };
  } finally {
    removePrivateDir(home, { retries: 3 });
  }
}

function rulesWay(profile: AgentProfile): string {
  switch (profile.rulesDelivery) {
    case "claude-append":
      return "_meta.systemPrompt.append";
    case "acp-system-prompt":
      return "ACP systemPrompt append";
    case "rules-file":
      return `rules file ${profile.rulesFileName ?? ""} in the agent's config`.replace("  ", " ");
    case "grok-meta":
      return "_meta.rules";
    default:
      return "not delivered: this agent takes no rules";
  }
}

function rowOf(profile: AgentProfile, root: string): AgentRow {
  const lookup = profile.pinned ? lookupAgentPackage(profile.pinned, { installRoot: root }) : {};
  const version = lookup.found?.version;
  const needsNode22 = profile.name === "claude";
  const hasNode22 =
    installedVersion(root, NODE22_PIN) !== undefined || Number(process.versions.node.split(".")[0]) >= 22;
  const installed = profile.pinned ? lookup.found !== undefined && (!needsNode22 || hasNode22) : true;
  const pathFound = lookup.found?.source === "path" ? lookup.found : lookup.untested;
  return {
    agent: profile.name,
    title: profile.title,
    pinned: profile.pinned ? `${profile.pinned.package}@${profile.pinned.version}` : null,
    installed,
    installedVersion: version ?? null,
    source: lookup.found?.source ?? null,
    onPath: pathFound
      ? { bin: pathFound.bin, version: pathFound.version, tested: pathFound.version === profile.pinned?.version }
      : null,
    skills:
      profile.skills === "plugin-dir"
        ? "native (plugin dirs)"
        : `no native mapping: requested skills' SKILL.md text goes into the session rules (${rulesWay(profile)})`,
    quirks: profile.attachRefused
      ? [
          ...profile.quirks,
          `grok-seat never attaches its sessions, so a named session continues only while one openSession handle is open (a later \`seat run -s\` is SESSION_NOT_RESUMABLE): ${profile.attachRefused}.`,
        ]
      : profile.quirks,
  };
}

export const agentsCommand: Command = {
  name: "agents",
  help: `Usage: seat agents [--json] [--no-probe]
       seat agents install [codex|claude|opencode|gemini …] [--json]

  --json       one JSON object per agent on stdout
  --no-probe   do not start installed agents to read what they advertise
\`seat agents install\` puts the pinned versions (all agents when none is named) into $GROK_SEAT_AGENTS_DIR,
default $XDG_CACHE_HOME/grok-seat/agents (~/.cache/grok-seat/agents), one progress line per agent; it needs npm.
An agent already on PATH is used when its version is the pinned one (\`seat run --agent-path-any\` allows others).
grok is probed by \`seat probe\`; this table probes the others.

Examples:
  seat agents install codex
  GROK_SEAT_AGENTS_DIR=/opt/agents seat agents install
  seat agents --no-probe
  seat agents --json --no-probe | jq -r .agent`,
  async run(argv) {
    if (argv[0] === "install") return installCommandRun(argv.slice(1));
    const args = parseFlags("agents", argv, { json: { type: "boolean" }, "no-probe": { type: "boolean" } });
    const root = defaultInstallRoot();
    const rows: AgentRow[] = [];
    for (const name of AGENT_NAMES) {
      const profile = agentProfile(name);
      const row = rowOf(profile, root);
      if (name !== "grok" && row.installed && args.values["no-probe"] !== true)
        Object.assign(row, await probeAgent(profile));
      rows.push(row);
    }
    if (args.values.json) {
      for (const row of rows) writeJson({ type: "agent", ...row });
      return EXIT.ok;
    }
    const p = paletteFor(process.stdout);
    const lines: string[] = [];
    for (const row of rows) {
      const where = row.source === "path" && row.onPath ? ` on PATH (${row.onPath.bin})` : "";
      const state =
        row.agent === "grok"
          ? "see `seat probe`"
          : row.installed
            ? p.green(`installed ${row.installedVersion}${where}`)
            : p.red(`not installed (${installCommand(row.agent)})`);
      lines.push(`${row.agent}  ${row.title} — ${state}`);
      if (row.onPath && !row.onPath.tested && row.source !== "install") {
        lines.push(
          `    ${p.yellow(`on PATH: ${row.onPath.bin} is ${row.onPath.version}, untested (pinned ${row.pinned}); used only with --agent-path-any`)}`,
        );
      }
      if (row.probe) {
        const c = row.probe.capabilities;
        lines.push(
          `    auth: ${row.probe.acpReady ? row.probe.authChoice : p.red(row.probe.error ?? row.probe.authChoice)}`,
        );
        if (c)
          lines.push(
            `    advertises: load ${row.probe.loadSession ? "yes" : "no"}, resume ${c.resume ? "yes" : "no"}, images ${c.image ? "yes" : "no"}, MCP http ${c.mcpHttp ? "yes" : "no"}, sse ${c.mcpSse ? "yes" : "no"}`,
          );
      }
      if (row.error) lines.push(`    ${p.red(`${row.error.code}: ${row.error.message}`)}`);
      lines.push(`    skills: ${row.skills}`);
    }
    process.stdout.write(`${lines.join("\n")}\n`);
    return EXIT.ok;
  },
};

/** The install table: the built-in pins, or the one an in-process caller injected (cli/hooks.ts). */
function installTable(): InstallTable {
  return cliHooks().agentInstallTable?.() ?? builtInInstallTable(agentProfile);
}

/** `seat agents install [NAME…]`: installs the pinned agents, a progress line per agent; exit 1 when one failed. */
async function installCommandRun(argv: string[]): Promise<number> {
  const args = parseFlags("agents install", argv, { json: { type: "boolean" } });
  const units = planInstall(args.positionals, installTable());
  const root = defaultInstallRoot();
  const json = args.values.json === true;
  if (!json) process.stdout.write(`seat agents install: into ${root}\n`);
  const outcomes = await installAgents({
    root,
    units,
    onProgress: (line) => {
      if (!json) process.stdout.write(`seat agents install: ${line}\n`);
    },
  });
  if (json) {
    for (const o of outcomes)
      writeJson({
        type: "agent_install",
        agent: o.name,
        dir: o.dir,
        state: o.state,
        ...(o.seconds !== undefined ? { seconds: o.seconds } : {}),
        ...(o.error ? { error: o.error.toJSON() } : {}),
      });
  }
  const failed = outcomes.filter((o) => o.state === "failed");
  if (failed.length === 0) return EXIT.ok;
  throw new SeatError(
    "AGENT_INSTALL_FAILED",
    `${failed.length} of ${outcomes.length} installs failed (${failed.map((o) => o.name).join(", ")}); see the lines above. Re-run \`seat agents install ${failed.map((o) => o.name).join(" ")}\` once npm can reach its registry.`,
    {
      context: { failed: failed.map((o) => o.name), root },
    },
  );
}
