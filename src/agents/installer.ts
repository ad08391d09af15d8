/*
 * Agent installer: `seat agents install [NAME…]` — the pinned agent packages into the install root, one npm
 *   prefix per agent (`<root>/<name>/`), with a progress line per agent.
 * Owns: the install plan (which packages make up each agent; claude also gets the pinned Node 22), running
 *   `npm install` in each prefix, and the marker file that makes a re-run skip what is already there.
 * Does not own: where the root is or what is installed (install.ts), the pins themselves (each profile's
 *   `pinned`, and NODE22_PIN), or launching (runtime/).
 * Invariant: idempotent — a prefix whose marker names the same packages is left alone; npm writes only inside
 *   `<root>/<name>/` (and its own cache); a failed agent does not stop the others and is reported with npm's
 *   command, exit code and stderr tail. Only the top-level packages are pinned exactly.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { AGENT_NAMES, type AgentProfile, type PinnedPackage } from "./profile.js";
import { NODE22_PIN } from "./install.js";

/** One prefix to install: its folder name under the root and the exact npm specs that make it up. */
export interface InstallUnit {
  name: string;
  packages: Readonly<Record<string, string>>;
}

/** The installable agents (name → pinned package, plus the units they need first), for planInstall. */
export type InstallTable = Readonly<Record<string, { pin: PinnedPackage; needs?: readonly PinnedPackage[] }>>;

/** The install table of the built-in agents, from their profiles' pins (claude also needs Node 22). */
export function builtInInstallTable(profile: (name: string) => AgentProfile): InstallTable {
  const table: Record<string, { pin: PinnedPackage; needs?: readonly PinnedPackage[] }> = {};
  for (const name of AGENT_NAMES) {
    const pin = profile(name).pinned;
    if (pin) table[name] = { pin, ...(name === "claude" ? { needs: [NODE22_PIN] } : {}) };
  }
  return table;
}

/** The units for `names` (all agents when empty), each once, what an agent needs before it; AGENT_NOT_FOUND for an unknown name. */
export function planInstall(names: readonly string[], table: InstallTable): InstallUnit[] {
  const known = Object.keys(table);
  for (const name of names) {
    if (!(name in table)) {
      throw new SeatError(
        "AGENT_NOT_FOUND",
        `Cannot install ${JSON.stringify(name)}: the agents grok-seat installs are ${known.join(", ")}${name === "grok" ? " (grok itself comes with grok-seat's optional dependency, or set GROK_BIN)" : ""}.`,
        {
          context: { agent: name, known },
        },
      );
    }
  }
  const units = new Map<string, InstallUnit>();
  const add = (pin: PinnedPackage): void => {
    if (!units.has(pin.dir)) units.set(pin.dir, { name: pin.dir, packages: { [pin.package]: pin.version } });
  };
  for (const name of names.length > 0 ? names : known) {
    for (const need of table[name]!.needs ?? []) add(need);
    add(table[name]!.pin);
  }
  return [...units.values()];
}

/** How one unit ended. */
export interface InstallOutcome {
  name: string;
  dir: string;
  state: "installed" | "already-installed" | "failed";
  seconds?: number;
  error?: SeatError;
}

/** Options of installAgents. */
export interface InstallOptions {
  root: string;
  units: readonly InstallUnit[];
  /** One line per agent as it starts and ends (no trailing newline). */
  onProgress(line: string): void;
  /** The npm executable. Default: `npm`. */
  npm?: string;
  /** Environment of npm. Default: process.env. */
  env?: NodeJS.ProcessEnv;
}

const MARKER = "grok-seat-install.json";

const describe = (packages: Readonly<Record<string, string>>): string =>
  Object.entries(packages)
    .map(([p, v]) => `${p}@${v}`)
    .join(", ");

function alreadyInstalled(dir: string, packages: Readonly<Record<string, string>>): boolean {
  try {
    const marker = JSON.parse(readFileSync(join(dir, MARKER), "utf8")) as { packages?: unknown };
    return JSON.stringify(marker.packages) === JSON.stringify(packages);
  } catch {
    return false;
  }
}

/** Runs `npm install` in `dir`; resolves npm's exit and the tail of its output. */
function runNpm(
  npm: string,
  dir: string,
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; tail: string; spawnError?: Error }> {
  const args = ["install", "--no-audit", "--no-fund", "--no-update-notifier", "--loglevel=error"];
  return new Promise((resolve) => {
    let tail = "";
    const keep = (chunk: Buffer): void => {
      tail = (tail + chunk.toString()).slice(-4096);
    };
    const child = spawn(npm, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.on("error", (spawnError) => resolve({ code: null, signal: null, tail, spawnError }));
    child.on("close", (code, signal) => resolve({ code, signal, tail }));
  });
}

/** Installs each unit into `<root>/<unit>/`, one after another; never throws for one unit's failure (see outcomes). */
export async function installAgents(options: InstallOptions): Promise<InstallOutcome[]> {
  const npm = options.npm ?? "npm";
  const outcomes: InstallOutcome[] = [];
  for (const unit of options.units) {
    const dir = join(options.root, unit.name);
    if (existsSync(join(dir, MARKER)) && alreadyInstalled(dir, unit.packages)) {
      options.onProgress(`${unit.name}: already installed (${describe(unit.packages)}) in ${dir}`);
      outcomes.push({ name: unit.name, dir, state: "already-installed" });
      continue;
    }
    options.onProgress(`${unit.name}: installing ${describe(unit.packages)} into ${dir} …`);
    const started = Date.now();
    let error: SeatError | undefined;
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        `${JSON.stringify({ name: `grok-seat-agent-${unit.name}`, private: true, dependencies: unit.packages }, null, 2)}\n`,
      );
      const result = await runNpm(npm, dir, options.env ?? process.env);
      if (result.spawnError || result.code !== 0) {
        const why = result.spawnError
          ? `could not start ${npm} (${messageOf(result.spawnError)}); is npm on PATH?`
          : `exited ${result.code ?? result.signal}`;
        error = new SeatError(
          "AGENT_INSTALL_FAILED",
          `Installing ${unit.name} (${describe(unit.packages)}) failed: \`${npm} install\` in ${dir} ${why}.${result.tail.trim() ? ` npm said: ${result.tail.trim().split("\n").slice(-3).join(" / ")}` : ""}`,
          {
            context: {
              agent: unit.name,
              dir,
              command: [npm, "install"],
              exitCode: result.code,
              signal: result.signal,
              stderrTail: result.tail,
            },
          },
        );
      } else {
        writeFileSync(
          join(dir, MARKER),
          `${JSON.stringify({ packages: unit.packages, installed_at: new Date().toISOString() }, null, 2)}\n`,
        );
      }
    } catch (cause) {
      error = new SeatError(
        "AGENT_INSTALL_FAILED",
        `Installing ${unit.name} into ${dir} failed: ${messageOf(cause)}.`,
        { cause, context: { agent: unit.name, dir } },
      );
    }
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    if (error) {
      options.onProgress(`${unit.name}: FAILED after ${seconds} s — ${error.message}`);
      outcomes.push({ name: unit.name, dir, state: "failed", seconds, error });
    } else {
      options.onProgress(`${unit.name}: installed in ${seconds} s`);
      outcomes.push({ name: unit.name, dir, state: "installed", seconds });
    }
  }
  return outcomes;
}
