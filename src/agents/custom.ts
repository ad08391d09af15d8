/*
 * Custom profile: any ACP agent given as a command line (`--agent-command "<argv>"`), parsed without a shell.
 * Owns: the conservative defaults for an agent we know nothing about.
 * Invariant: the env is the base allow-list only (plus what the embedder passes explicitly as agentEnv);
 *   no authenticate call is invented; no MCP readiness wait; root unions wrapped (the strictest consumers' rule).
 */
import { BASE_ENV_ALLOW, BASE_ENV_PREFIXES } from "./common.js";
import { splitCommandLine } from "../command-line/index.js";
import { noAuthenticate, type AgentProfile } from "./profile.js";

/** A profile for the agent started by `commandLine` (a string parsed without a shell, or an argv array). */
export function customProfile(commandLine: string | readonly string[]): AgentProfile {
  const argv = typeof commandLine === "string" ? splitCommandLine(commandLine) : [...commandLine];
  return {
    name: "custom",
    title: `custom agent (${argv[0] ?? "?"})`,
    launchArgv: () => [...argv],
    envAllow: BASE_ENV_ALLOW,
    envPrefixes: BASE_ENV_PREFIXES,
    envForced: {},
    chooseAuth: (advertised) =>
      advertised.length === 0
        ? noAuthenticate("the agent advertised no auth method")
        : noAuthenticate(
            `a custom agent's auth is its own business (it offered ${advertised.map((m) => m.id).join(", ")}); no authenticate call is made`,
          ),
    waitsForMcpInitialized: false,
    projection: "wrap-unions",
    modelToolName: (server, tool) => `${server}__${tool}`,
    skills: "rules",
    rulesDelivery: "none",
    quirks: ["Unknown agent: launched as given, base env only, no authenticate call."],
  };
}
