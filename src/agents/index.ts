/*
 * Agents front door: the built-in agent profiles and the custom one.
 * Owns: looking a profile up by name (AGENT_NOT_FOUND for an unknown one).
 */
import { SeatError } from "../errors.js";
import { claudeProfile } from "./claude.js";
import { codexProfile } from "./codex.js";
import { geminiProfile } from "./gemini.js";
import { grokProfile } from "./grok.js";
import { opencodeProfile } from "./opencode.js";
import { AGENT_NAMES, type AgentName, type AgentProfile } from "./profile.js";

export { AGENT_NAMES, noAuthenticate } from "./profile.js";
export type {
  AgentName,
  AgentProfile,
  LaunchContext,
  PinnedPackage,
  ProjectionMode,
  RulesDelivery,
  SessionLaunch,
  SessionLaunchRequest,
} from "./profile.js";
export { buildProfileEnv, profileAllows, throwawayHomeEnv } from "./common.js";
export {
  AGENTS_DIR_ENV,
  defaultInstallRoot,
  findOnPath,
  installCommand,
  installedVersion,
  lookupAgentPackage,
  NODE22_PIN,
} from "./install.js";
export type { AgentPackage, AgentPackageLookup, PathPackage } from "./install.js";
export { builtInInstallTable, installAgents, planInstall } from "./installer.js";
export type { InstallOptions, InstallOutcome, InstallTable, InstallUnit } from "./installer.js";
export { customProfile } from "./custom.js";

const PROFILES: Readonly<Record<AgentName, AgentProfile>> = Object.freeze({
  grok: grokProfile,
  codex: codexProfile,
  claude: claudeProfile,
  opencode: opencodeProfile,
  gemini: geminiProfile,
});

/** True when `name` is a built-in agent. */
export function isAgentName(name: unknown): name is AgentName {
  return typeof name === "string" && (AGENT_NAMES as readonly string[]).includes(name);
}

/** The built-in profile called `name`; throws AGENT_NOT_FOUND naming the known ones. */
export function agentProfile(name: string): AgentProfile {
  if (isAgentName(name)) return PROFILES[name];
  throw new SeatError(
    "AGENT_NOT_FOUND",
    `Unknown agent ${JSON.stringify(name)}; known agents: ${AGENT_NAMES.join(", ")} (or --agent-command "<argv>").`,
    {
      context: { agent: name },
    },
  );
}
export { chooseAuthMethod } from "./auth.js";
export type { AuthChoice, AdvertisedAuthMethod } from "./auth.js";
