/*
 * Reaper link: starts the reaper process (reaper-main.ts) beside an agent and holds the pipe whose end tells it
 *   to end the agent's tree.
 * Owns: spawning the reaper (this node binary, no environment, its own session so a terminal's Ctrl-C or a kill
 *   of the owner's group does not take it before it reaped) and the write end of its stdin.
 * Does not own: what the reaper watches or kills (reaper-main.ts) or the orderly stop (process.ts).
 * Invariant: the owner never waits on the reaper's own start-up (only on the fork, one tick); the reaper never
 *   keeps the owner's event loop alive; the pipe's write end is close-on-exec, so no other child holds it open
 *   and its EOF means exactly "this owner is done with the agent" (released, exited, or killed).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { randomUUID } from "node:crypto";
import { SeatError } from "../errors.js";

const REAPER_MAIN = fileURLToPath(new URL("./reaper-main.js", import.meta.url));

/** The environment variable that tags an agent and everything it starts for its reaper. */
export const REAPER_TAG_ENV = "GROK_SEAT_REAPER_TAG";

/** A fresh tag value: random, so no process outside the agent's tree carries it. */
export function newReaperTag(): string {
  return randomUUID();
}

/** A started reaper. */
export interface Reaper {
  pid: number;
  /** Closes the pipe: the reaper ends whatever is left of the agent's tree and exits. Idempotent. */
  release(): void;
}

/**
 * Starts the reaper for the agent `pid` (started at `startTicks`, its environment holding
 * GROK_SEAT_REAPER_TAG=`tag`) with `nodePath` (default: this node binary); resolves once the OS forked it.
 * Rejects with GROK_REAPER_FAILED when it cannot be started.
 */
export async function startReaper(pid: number, startTicks: string | undefined, options: { tag?: string; scanMs?: number; nodePath?: string } = {}): Promise<Reaper> {
  const node = options.nodePath ?? process.execPath;
  const args = [REAPER_MAIN, String(pid), startTicks ?? "-", options.tag === undefined ? "-" : `${REAPER_TAG_ENV}=${options.tag}`, ...(options.scanMs === undefined ? [] : [String(options.scanMs)])];
  const child = spawn(node, args, { detached: true, stdio: ["pipe", "ignore", "ignore"], env: {}, windowsHide: true });
  child.stdin.on("error", () => undefined);
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    throw new SeatError(
      "GROK_REAPER_FAILED",
      `Could not start the reaper \`${node} ${REAPER_MAIN}\` for agent pid ${pid}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. No agent runs without its reaper (spawnAgent stops it); check that ${node} can still be executed.`,
      { context: { command: [node, ...args], pid, errno: (err as NodeJS.ErrnoException).code }, cause: err },
    );
  }
  child.on("error", () => undefined);
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  return {
    pid: child.pid!,
    release: () => {
      if (!child.stdin.destroyed) child.stdin.destroy();
    },
  };
}
