/*
 * Agent launch: which agent a session drives, and the argv and env for a non-grok one.
 * Owns: resolving SessionOptions.agent / agentCommand to a profile (undefined = grok, today's path).
 * Does not own: the profiles (agents/) or grok's own launch (grok/launch.ts).
 * Invariant: the env comes from the profile's allow-list of the source env plus the embedder's explicit
 *   agentEnv, never copied wholesale; a missing install is AGENT_NOT_INSTALLED, an unknown name AGENT_NOT_FOUND.
 */
import { agentProfile, buildProfileEnv, customProfile, defaultInstallRoot, type AgentProfile } from "../agents/index.js";
import type { SessionOptions } from "./options.js";

/** The profile of a non-grok session, or undefined for grok (the default). Throws AGENT_NOT_FOUND / CLI_USAGE. */
export function resolveAgentProfile(options: Pick<SessionOptions, "agent" | "agentCommand">): AgentProfile | undefined {
  if (options.agentCommand !== undefined) return customProfile(options.agentCommand);
  if (options.agent === undefined || options.agent === "grok") return undefined;
  return agentProfile(options.agent);
}

/** The argv and env that start `profile`'s agent. Throws AGENT_NOT_INSTALLED when it is not installed. */
export function agentLaunch(profile: AgentProfile, options: Pick<SessionOptions, "agentsDir" | "agentEnv">, env: NodeJS.ProcessEnv): { argv: string[]; env: Record<string, string> } {
  const installRoot = options.agentsDir ?? defaultInstallRoot(env);
  return { argv: profile.launchArgv({ installRoot }), env: buildProfileEnv(profile, env, options.agentEnv ?? {}) };
}
