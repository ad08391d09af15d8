/*
 * Reaper link: the owner's side of the reaper process (reaper-main.ts) — one per owner process, started with its
 *   first agent — and the pipe whose end tells it to end every guarded agent's tree.
 * Owns: spawning the reaper (this node binary, no environment, cwd /, its own session so a terminal's Ctrl-C or a
 *   kill of the owner's group does not take it before it reaped), the write end of its stdin, and the lines
 *   `guard` / `release` it writes there.
 * Does not own: what the reaper watches or kills (reaper-main.ts) or the orderly stop (process.ts).
 * Invariant: the owner waits only for the fork, never for the reaper's start-up; the reaper never keeps the owner's
 *   event loop alive; the pipe's write end is close-on-exec, so no other child holds it open and its EOF means
 *   exactly "this owner is gone". A reaper that died is replaced for the next agent (the agents it guarded are
 *   then guarded by their owner's dispose and exit hook only).
 */
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { SeatError } from "../errors.js";
import { builtFile } from "../internal/package-files.js";

const REAPER_MAIN = builtFile("src", "grok", "reaper-main.js");

/** The environment variable that tags an agent and everything it starts for its reaper. */
export const REAPER_TAG_ENV = "GROK_SEAT_REAPER_TAG";

/** A fresh tag value: random, so no process outside the agent's tree carries it. */
export function newReaperTag(): string {
  return randomUUID();
}

/** A started reaper process. */
export interface Reaper {
  pid: number;
  /** Guards the agent `pid` (started at `startTicks`, its environment holding GROK_SEAT_REAPER_TAG=`tag`). */
  guard(pid: number, startTicks: string | undefined, tag: string | undefined): void;
  /** The agent was stopped in order: the reaper ends whatever is left of its tree and forgets it. */
  release(pid: number): void;
  /** Closes the pipe, as the owner's death would: the reaper ends every guarded tree and exits. */
  close(): void;
  /** Resolves when the reaper process has exited. */
  exited: Promise<void>;
}

/** Options of startReaper: the scan interval (ms, default 250) and the node binary (default this one). */
export interface StartReaperOptions {
  scanMs?: number;
  nodePath?: string;
}

/** Starts a reaper process; resolves once the OS forked it. Rejects with GROK_REAPER_FAILED. */
export async function startReaper(options: StartReaperOptions = {}): Promise<Reaper> {
  const node = options.nodePath ?? process.execPath;
  const args = [REAPER_MAIN, ...(options.scanMs === undefined ? [] : [String(options.scanMs)])];
  // ELECTRON_RUN_AS_NODE makes an Electron host's execPath behave as node; plain node ignores it.
  const child = spawn(node, args, {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
    env: { ELECTRON_RUN_AS_NODE: "1" },
    cwd: "/",
    windowsHide: true,
  });
  child.stdin.on("error", () => undefined);
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("spawn", resolve);
      child.once("error", reject);
    });
  } catch (err) {
    throw new SeatError(
      "GROK_REAPER_FAILED",
      `Could not start the reaper \`${node} ${REAPER_MAIN}\`: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}. No agent runs without its reaper (spawnAgent stops it); check that ${node} can still be executed.`,
      { context: { command: [node, ...args], errno: (err as NodeJS.ErrnoException).code }, cause: err },
    );
  }
  child.on("error", () => undefined);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.unref();
  (child.stdin as unknown as { unref(): void }).unref();
  const say = (line: string) => {
    if (!child.stdin.destroyed) child.stdin.write(`${line}\n`);
  };
  return {
    pid: child.pid!,
    guard: (pid, startTicks, tag) =>
      say(`guard ${pid} ${startTicks ?? "-"} ${tag === undefined ? "-" : `${REAPER_TAG_ENV}=${tag}`}`),
    release: (pid) => say(`release ${pid}`),
    close: () => {
      if (!child.stdin.destroyed) child.stdin.destroy();
    },
    exited,
  };
}

let owner: Promise<Reaper> | undefined;

/**
 * This process's reaper, started on first use and replaced once it exited. Rejects with GROK_REAPER_FAILED (and
 * the next call tries again).
 */
export function ownerReaper(): Promise<Reaper> {
  if (!owner) {
    const current = startReaper();
    owner = current;
    const forget = () => {
      if (owner === current) owner = undefined;
    };
    current.then((r) => r.exited.then(forget), forget);
  }
  return owner;
}
