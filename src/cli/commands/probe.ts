/*
 * `seat probe`: where grok is, which version it is, and what ACP auth it advertises.
 * Binary readiness (grok --version) and authenticated-ACP readiness are reported separately (seed 002).
 * It also says plainly which shell commands grok runs without asking: the execute gate sees only
 * what grok asks about, unless grok's own config has `[permission] ask = ["Bash"]` (grok/unasked.ts).
 */
import { probeGrok, resolveGrokBinary, shellGateReport } from "../../grok/index.js";
import { probeAcp } from "../../runtime/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, exitCodeFor, paletteFor, writeJson } from "../output.js";
import type { ErrorCode } from "../../errors.js";
import type { Command } from "./command.js";
import { agentProfile } from "../../agents/index.js";
import { probeAgent } from "./agents.js";

async function probeOtherAgent(name: string, json: boolean): Promise<number> {
  const profile = agentProfile(name);
  const { probe, error } = await probeAgent(profile);
  if (json) {
    writeJson({ type: "probe", agent: name, ...(probe ? { acp: probe } : {}), ...(error ? { error } : {}) });
  } else {
    const p = paletteFor(process.stdout);
    const out = [`agent:       ${name} (${profile.title})`];
    if (error) out.push(`error:       ${p.red(`${error.code}: ${error.message}`)}`);
    if (probe) {
      out.push(`version:     ${probe.agentInfo?.version ?? "unknown"}`);
      out.push(`authMethods: ${probe.authMethods.join(", ") || "none"}`);
      out.push(
        `acpReady:    ${probe.acpReady ? p.green(`yes, via ${probe.authChoice}`) : p.red(`no — ${probe.error ?? probe.authChoice}`)}`,
      );
    }
    process.stdout.write(`${out.join("\n")}\n`);
  }
  if (error) return exitCodeFor(error.code as ErrorCode);
  return probe?.acpReady ? EXIT.ok : EXIT.notAuthenticated;
}

export const probeCommand: Command = {
  name: "probe",
  help: `Usage: seat probe [--grok PATH] [--json] [--no-acp] [--agent NAME]

  --grok PATH   grok binary to use (else GROK_BIN, PATH, then the pinned npm package)
  --no-acp      only run \`grok --version\`; skip starting the agent
  --json        one JSON object on stdout
  --agent NAME  probe another ACP agent instead (codex, claude, opencode, gemini): start it, initialize, stop

Examples:
  seat probe
  seat probe --json --no-acp
  seat probe --agent codex`,
  async run(argv) {
    const args = parseFlags("probe", argv, {
      grok: { type: "string" },
      json: { type: "boolean" },
      "no-acp": { type: "boolean" },
      agent: { type: "string" },
    });
    const agentName = stringFlag(args, "agent");
    if (agentName !== undefined && agentName !== "grok") return probeOtherAgent(agentName, args.values.json === true);
    const explicit = stringFlag(args, "grok");
    const binary = await resolveGrokBinary(explicit ? { explicitPath: explicit } : {});
    const version = await probeGrok({ binary: binary.path });
    const acp = args.values["no-acp"] || !version.binaryReady ? undefined : await probeAcp({ binary: binary.path });
    const shellGate = shellGateReport();
    if (args.values.json) {
      writeJson({
        type: "probe",
        binary: { path: binary.path, source: binary.source },
        binaryReady: version.binaryReady,
        version: version.version ?? null,
        sha: version.sha ?? null,
        channel: version.channel ?? null,
        ...(version.error ? { versionError: version.error.message } : {}),
        ...(acp ? { acp } : {}),
        shellGate,
      });
    } else {
      const p = paletteFor(process.stdout);
      const out: string[] = [
        `binary:      ${binary.path} (${binary.source})`,
        `version:     ${version.binaryReady ? `${version.version} (${version.sha})${version.channel ? ` [${version.channel}]` : ""}` : p.red(version.error?.message ?? "unknown")}`,
        `binaryReady: ${version.binaryReady ? p.green("yes") : p.red("no")}`,
      ];
      if (acp) {
        out.push(
          `authMethods: ${acp.authMethods.join(", ") || "none"}${acp.defaultAuthMethodId ? ` (default ${acp.defaultAuthMethodId})` : ""}`,
        );
        out.push(
          `acpReady:    ${acp.acpReady ? p.green(`yes, via ${acp.authChoice}`) : p.red(`no — ${acp.error ?? acp.authChoice}`)}`,
        );
      }
      out.push(`shell gate:  ${shellGate.asksForEveryCommand ? p.green(shellGate.note) : p.yellow(shellGate.note)}`);
      process.stdout.write(`${out.join("\n")}\n`);
    }
    if (!version.binaryReady) return EXIT.grokUnavailable;
    if (acp && !acp.acpReady) return EXIT.notAuthenticated;
    return EXIT.ok;
  },
};
