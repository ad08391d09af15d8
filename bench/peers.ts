/*
 * Benchmark peers: tools a user might pick instead of grok-seat, installed on demand at a pinned version.
 * Owns: installing acpx 0.19.1 into `.cache/bench-peers/` (never into the project's dependencies: its lock
 *   entries name platform packages that do not exist on the registry, which would break `npm ci`) and loading
 *   its `acpx/runtime` entry.
 * Does not own: measuring (stream.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The pinned acpx version (newer ones need Node 22). */
export const ACPX_VERSION = "0.19.1";

/** The part of `acpx/runtime` the benchmark uses. */
export interface AcpxRuntimeModule {
  createAcpRuntime(options: Record<string, unknown>): any;
  createFileSessionStore(options: { stateDir: string }): unknown;
}

/** Installs (once) and loads acpx/runtime; a string says why it cannot be had here. */
export async function loadAcpxRuntime(root = resolve(".cache/bench-peers")): Promise<AcpxRuntimeModule | string> {
  const pkgDir = join(root, "node_modules", "acpx");
  if (!existsSync(join(pkgDir, "package.json"))) {
    // Inside the loopback-only namespace npm cannot reach the registry (it would hang retrying):
    // `npm run bench` installs the peers first with scripts/bench-peers.mjs.
    if (process.env.GROK_SEAT_NETNS === "1")
      return `acpx@${ACPX_VERSION} is not installed in ${relative(process.cwd(), root) || "."}; run \`node scripts/bench-peers.mjs\` (npm run bench does)`;
    mkdirSync(root, { recursive: true });
    const npm = spawnSync(
      "npm",
      ["install", "--prefix", root, "--no-save", "--no-audit", "--no-fund", "--ignore-scripts", `acpx@${ACPX_VERSION}`],
      { encoding: "utf8", timeout: 300_000 },
    );
    if (npm.status !== 0)
      return `npm install acpx@${ACPX_VERSION} failed: ${(npm.stderr || npm.stdout || "timeout").trim().split("\n").slice(-3).join(" ")}`;
  }
  try {
    const entry = join(pkgDir, "dist", "runtime.js");
    const target = existsSync(entry)
      ? pathToFileURL(entry).href
      : pathToFileURL(join(pkgDir, "package.json")).href.replace(/package\.json$/, "");
    return (await import(target)) as AcpxRuntimeModule;
  } catch (error) {
    return `acpx/runtime failed to load on node ${process.version}: ${(error as Error).message}`;
  }
}
