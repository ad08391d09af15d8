/*
 * Cross-agent test rig: one real ACP agent (codex, claude, …) offline against the scripted mock model.
 * Owns: the temp HOME/cwd per test, the agent's offline config files and env (from its profile), the
 *   required-mode rule (GROK_SEAT_REQUIRE_AGENTS=1: a missing agent fails naming it), and /proc scans
 *   of the session's process tree (environ of every descendant, survivors after dispose).
 * Does not own: the profiles (src/agents/) or the mock (src/mock-model/).
 * Invariant: nothing outside the temp dir and the agents' install root (GROK_SEAT_AGENTS_DIR, else
 *   `$XDG_CACHE_HOME/grok-seat/agents`, resolved from this process's env) is read or written; every rig
 *   removes its temp dir and closes its mock in cleanup().
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { TestContext } from "node:test";
import {
  agentProfile,
  defaultInstallRoot,
  installedVersion,
  NODE22_PIN,
  type AgentProfile,
} from "../../src/agents/index.js";
import { startMockModel, type MockModelServer, type MockScript } from "../../src/mock-model/index.js";
import type { SessionOptions } from "../../src/runtime/index.js";
import { offlineWiring } from "../../src/testing.js";

/** The canary: a value placed in the parent env under a non-allow-listed name and as another agent's key. */
export const CANARY = "gs-canary-7f3a9c1e5b";

/** True when a missing agent must fail the run (CI). */
export const REQUIRED = process.env.GROK_SEAT_REQUIRE_AGENTS === "1";

/** The agents this run tests (GROK_SEAT_AGENTS, comma-separated; default all four). */
export const AGENTS_UNDER_TEST = (process.env.GROK_SEAT_AGENTS ?? "codex,claude,opencode,gemini")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);

/** A started rig. */
export interface AgentRig {
  profile: AgentProfile;
  mock: MockModelServer;
  home: string;
  cwd: string;
  /** Options for createSession (agent, cwd, env with the canary, agentEnv pointing at the mock). */
  options: SessionOptions;
  cleanup(): Promise<void>;
}

/**
 * GROK_SEAT_AGENTS_DIR pinned to this process's install root: a test's agent or CLI runs under a temp HOME, where
 * the default root (`~/.cache/grok-seat/agents`) would be another, empty folder.
 */
export function agentsDirEnv(): { GROK_SEAT_AGENTS_DIR: string } {
  return { GROK_SEAT_AGENTS_DIR: defaultInstallRoot() };
}

/** Why `name` cannot run here, or undefined when its pinned install is present. */
export function missingInstall(name: string): string | undefined {
  const profile = agentProfile(name);
  const root = defaultInstallRoot();
  if (profile.pinned && installedVersion(root, profile.pinned) === undefined)
    return `${profile.pinned.package}@${profile.pinned.version}`;
  if (name === "claude" && installedVersion(root, NODE22_PIN) === undefined)
    return `${NODE22_PIN.package}@${NODE22_PIN.version}`;
  return undefined;
}

/**
 * Skips the test when `name` is not installed, or throws naming it in required mode. Returns false when skipped.
 */
export function requireAgent(t: TestContext, name: string): boolean {
  const missing = missingInstall(name);
  if (!missing) return true;
  const message = `agent "${name}" is not installed (${missing}) in ${defaultInstallRoot()}; run \`npm run agents:install\` (\`seat agents install ${name}\`)`;
  if (REQUIRED) throw new Error(`GROK_SEAT_REQUIRE_AGENTS=1: ${message}`);
  t.skip(message);
  return false;
}

/** The agent's profile and its offline wiring to the mock (what a test's scripted tool calls are written with). */
export function wiringOf(name: string): {
  profile: AgentProfile;
  wiring: NonNullable<ReturnType<typeof offlineWiring>>;
} {
  const profile = agentProfile(name);
  const wiring = offlineWiring(profile.name);
  if (!wiring) throw new Error(`agent "${name}" has no offline wiring`);
  return { profile, wiring };
}

/** Starts the mock with `script`, writes the agent's offline config under a temp HOME, and builds session options. */
export async function startAgentRig(name: string, script: MockScript): Promise<AgentRig> {
  const { profile, wiring } = wiringOf(name);
  const root = mkdtempSync(join(tmpdir(), `gs-agent-${name}-`));
  const home = join(root, "home");
  const cwd = join(root, "work");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const mock = await startMockModel({ script });
  const { env, files } = wiring.configure({ mockOrigin: `http://127.0.0.1:${mock.port}`, home, cwd });
  for (const [relative, content] of Object.entries(files)) {
    const path = join(home, relative);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  const source: NodeJS.ProcessEnv = {
    HOME: home,
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    TMPDIR: process.env.TMPDIR ?? tmpdir(),
    ...agentsDirEnv(),
    GROK_SEAT_TEST_CANARY: CANARY,
    XAI_API_KEY: CANARY,
  };
  return {
    profile,
    mock,
    home,
    cwd,
    options: {
      agent: name,
      cwd,
      env: source,
      agentEnv: env,
      handshakeTimeoutMs: 90_000,
      turnTimeoutMs: 120_000,
      killGraceMs: 2_000,
    },
    async cleanup() {
      await mock.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Every live descendant of `pid` (itself included), by /proc ppid links. */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (fields[0] !== "Z") parent.set(Number(entry), Number(fields[1]));
    } catch {
      // The process ended while we looked.
    }
  }
  const out = parent.has(pid) ? [pid] : [];
  for (let i = 0; i < out.length; i += 1) {
    for (const [child, ppid] of parent) if (ppid === out[i] && !out.includes(child)) out.push(child);
  }
  return out;
}

/** The environ and cmdline of each pid (missing ones left out), for canary scans. */
export function procText(pids: readonly number[]): Array<{ pid: number; environ: string; cmdline: string }> {
  const out: Array<{ pid: number; environ: string; cmdline: string }> = [];
  for (const pid of pids) {
    try {
      out.push({
        pid,
        environ: readFileSync(`/proc/${pid}/environ`, "utf8"),
        cmdline: readFileSync(`/proc/${pid}/cmdline`, "utf8"),
      });
    } catch {
      // Gone already.
    }
  }
  return out;
}
