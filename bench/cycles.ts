/*
 * R1 dispose / crash cycles: headless sessions on the fake agent that exit mid-stream, hang (honouring cancel
 *   or deaf), ignore SIGTERM, or leave SIGTERM-ignoring grandchildren in their group or in a session of their own;
 *   each cycle runs a turn, disposes mid-turn or after it, and then looks for survivors in /proc.
 * Owns: runDisposeCycles(): cycles run, sessions resolved, surviving processes (by a per-cycle env tag).
 * Does not own: the fake agent (test/fakes/) or the kill logic under test (src/grok process tree).
 * Method: every agent gets FAKE_GROK_CYCLE_TAG=<unique> in its env, which its descendants inherit; after
 *   dispose resolves, any live (non-zombie) process whose /proc/<pid>/environ holds the tag is a survivor.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession } from "../src/runtime/index.js";
import { fakeGrokBinary } from "../test/support/fake-agent.js";

/** The fault scenarios R1 cycles through, and whether dispose happens while the turn is still running. */
export const CYCLE_SCENARIOS: ReadonlyArray<{ scenario: string; disposeMidTurn: boolean }> = [
  { scenario: "crash-mid-stream", disposeMidTurn: false },
  { scenario: "hang-on-prompt", disposeMidTurn: true },
  { scenario: "hang-on-prompt-deaf", disposeMidTurn: true },
  { scenario: "ignore-sigterm", disposeMidTurn: false },
  { scenario: "sigterm-ignoring-grandchild", disposeMidTurn: false },
  { scenario: "detached-grandchild", disposeMidTurn: false },
  { scenario: "slow-stream", disposeMidTurn: true },
  { scenario: "malformed-line", disposeMidTurn: false },
];

/** The R1 result. */
export interface CyclesResult {
  cycles: number;
  /** Cycles where createSession, prompt and dispose all resolved within the watchdog. */
  resolved: number;
  /** Processes found alive after dispose, as `scenario:pid`. */
  survivors: string[];
  /** Cycles that did not resolve or threw, as `scenario: reason`. */
  failures: string[];
}

/** Pids of live, non-zombie processes whose environment contains `tag`. */
export function processesTagged(tag: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (!readFileSync(`/proc/${name}/environ`, "latin1").includes(tag)) continue;
      if (/^State:\s+Z/m.test(readFileSync(`/proc/${name}/status`, "utf8"))) continue;
      found.push(Number(name));
    } catch {
      // Gone between readdir and read, or not ours to read.
    }
  }
  return found;
}

function withWatchdog<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not resolve within ${ms} ms`)), ms)),
    ),
  ]).finally(() => clearTimeout(timer));
}

async function cycle(
  binary: string,
  scenario: string,
  disposeMidTurn: boolean,
  dir: string,
): Promise<{ survivors: number[]; failure?: string }> {
  const tag = `grok-seat-r1-${randomUUID()}`;
  const pidFile = join(dir, `${tag}.pid`);
  try {
    const session = await withWatchdog(
      createSession({
        cwd: dir,
        grokCliBinaryPath: binary,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        agentEnv: { FAKE_GROK_SCENARIO: scenario, FAKE_GROK_PID_FILE: pidFile, FAKE_GROK_CYCLE_TAG: tag },
        killGraceMs: 300,
      }),
      20_000,
      "createSession",
    );
    if (session.state !== "ready")
      return {
        survivors: processesTagged(tag),
        failure: `not ready: ${session.diagnostics.map((d) => d.code).join(",")}`,
      };
    // The tag must be visible on the live agent, or the survivor check below would prove nothing.
    if (processesTagged(tag).length === 0) {
      await session.dispose();
      return { survivors: [], failure: "the cycle tag is not visible in the agent's /proc environ" };
    }
    const turn = session.prompt("cycle");
    if (disposeMidTurn) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await withWatchdog(session.dispose(), 20_000, "dispose mid-turn");
    }
    await withWatchdog(turn, 20_000, "prompt");
    await withWatchdog(session.dispose(), 20_000, "dispose");
    // The detached grandchild exits on stdin EOF: give it the moment its own exit takes.
    let survivors = processesTagged(tag);
    for (let i = 0; i < 20 && survivors.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      survivors = processesTagged(tag);
    }
    return { survivors };
  } catch (error) {
    return { survivors: processesTagged(tag), failure: (error as Error).message };
  } finally {
    if (existsSync(pidFile)) rmSync(pidFile, { force: true });
  }
}

/** Runs `cycles` dispose/crash cycles over CYCLE_SCENARIOS, `concurrency` at a time; kills any survivor it finds. */
export async function runDisposeCycles({
  cycles = 100,
  concurrency = 4,
}: {
  cycles?: number;
  concurrency?: number;
} = {}): Promise<CyclesResult> {
  const binary = fakeGrokBinary();
  const dir = mkdtempSync(join(tmpdir(), "grok-seat-r1-"));
  const result: CyclesResult = { cycles, resolved: 0, survivors: [], failures: [] };
  let next = 0;
  try {
    const worker = async () => {
      for (let i = next++; i < cycles; i = next++) {
        const { scenario, disposeMidTurn } = CYCLE_SCENARIOS[i % CYCLE_SCENARIOS.length]!;
        const outcome = await cycle(binary.path, scenario, disposeMidTurn, dir);
        if (outcome.failure) result.failures.push(`${scenario}: ${outcome.failure}`);
        else result.resolved++;
        for (const pid of outcome.survivors) {
          result.survivors.push(`${scenario}:${pid}`);
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    binary.remove();
    rmSync(dir, { recursive: true, force: true });
  }
  return result;
}
