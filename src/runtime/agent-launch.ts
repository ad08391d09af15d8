/*
 * Agent launch: which agent a session drives, and the argv and env for a non-grok one.
 * Owns: resolving SessionOptions.agent / agentCommand to a profile (undefined = grok, today's path), and a
 *   session's additions to the launch (model, rules file in a private temp dir, the profile's config files).
 * Does not own: the profiles (agents/) or grok's own launch (grok/launch.ts).
 * Invariant: the env comes from the profile's allow-list of the source env plus the embedder's explicit
 *   agentEnv, never copied wholesale; a missing install is AGENT_NOT_INSTALLED, an unknown name AGENT_NOT_FOUND.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  agentProfile,
  buildProfileEnv,
  customProfile,
  defaultInstallRoot,
  type AgentProfile,
} from "../agents/index.js";
import { SeatError } from "../errors.js";
import { removePrivateDir } from "../internal/private-dir.js";
import type { SessionOptions } from "./options.js";

/** The profile of a non-grok session, or undefined for grok (the default). Throws AGENT_NOT_FOUND / AGENT_COMMAND_INVALID. */
export function resolveAgentProfile(options: Pick<SessionOptions, "agent" | "agentCommand">): AgentProfile | undefined {
  if (options.agentCommand !== undefined) return customProfile(options.agentCommand);
  if (options.agent === undefined || options.agent === "grok") return undefined;
  return agentProfile(options.agent);
}

/** The argv and env that start `profile`'s agent. Throws AGENT_NOT_INSTALLED when it is not installed. */
export function agentLaunch(
  profile: AgentProfile,
  options: Pick<SessionOptions, "agentsDir" | "agentEnv" | "allowUntestedAgentVersion">,
  env: NodeJS.ProcessEnv,
): { argv: string[]; env: Record<string, string> } {
  const installRoot = options.agentsDir ?? defaultInstallRoot(env);
  const argv = profile.launchArgv({
    installRoot,
    env,
    ...(options.allowUntestedAgentVersion === true ? { allowUntestedVersion: true } : {}),
  });
  return { argv, env: buildProfileEnv(profile, env, options.agentEnv ?? {}) };
}

/** A launch with one session's additions, and how to remove the files written for it. */
export interface SessionLaunchResult {
  argv: string[];
  env: Record<string, string>;
  /** Removes the private temp dir (rules file, config files); safe to call more than once. */
  cleanup(): void;
}

/**
 * Adds the requested model and the rules to `launch` the profile's native way: a rules file (and the
 * profile's config files) in a fresh private temp dir, argv and env from `profile.sessionLaunch`.
 * Throws AGENT_MODEL_UNSUPPORTED when a model is asked of an agent that takes none.
 */
export function withSessionLaunch(
  profile: AgentProfile,
  launch: { argv: string[]; env: Record<string, string> },
  request: { model?: string; rules?: string },
): SessionLaunchResult {
  if (request.model && !profile.sessionLaunch) {
    throw new SeatError(
      "AGENT_MODEL_UNSUPPORTED",
      `Agent "${profile.name}" takes no model from grok-seat; drop --model (or configure the model in the agent's own config).`,
      { context: { agent: profile.name } },
    );
  }
  if (!profile.sessionLaunch) return { ...launch, cleanup: () => undefined };
  let dir: string | undefined;
  const cleanup = (): void => {
    if (dir) removePrivateDir(dir);
    dir = undefined;
  };
  try {
    let rulesFile: string | undefined;
    if (profile.rulesDelivery === "rules-file" && profile.rulesFileName && request.rules) {
      dir = mkdtempSync(join(tmpdir(), `grok-seat-${profile.name}-`));
      rulesFile = join(dir, profile.rulesFileName);
      writeFileSync(rulesFile, `${request.rules}\n`, { mode: 0o600 });
    }
    const extra = profile.sessionLaunch({
      ...(request.model ? { model: request.model } : {}),
      ...(rulesFile && dir ? { rulesFile, rulesDir: dir } : {}),
    });
    for (const [name, content] of Object.entries(extra.files ?? {})) {
      dir ??= mkdtempSync(join(tmpdir(), `grok-seat-${profile.name}-`));
      writeFileSync(join(dir, name), content, { mode: 0o600 });
    }
    return { argv: [...launch.argv, ...(extra.args ?? [])], env: { ...launch.env, ...(extra.env ?? {}) }, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}
