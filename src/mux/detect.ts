/*
 * Backend detection: which multiplexer hosts the visible seat.
 * Owns: the precedence option → environment (HERDR_SOCKET_PATH / HERDR_ENV, TMUX) → availability.
 * Does not own: the backends themselves (tmux.ts, herdr.ts).
 * Invariant: an explicit choice is never overridden; nothing found is MUX_UNAVAILABLE with what was tried.
 */
import { existsSync } from "node:fs";
import { SeatError } from "../errors.js";
import type { Backend } from "./backend.js";
import { HerdrBackend } from "./herdr.js";
import { HerdrClient } from "./herdr-client.js";
import { resolveHerdrSocketPath } from "./herdr-wire.js";
import { TmuxBackend, isTmuxAvailable } from "./tmux.js";

/** The facts a backend choice is made from. */
export interface BackendFacts {
  /** Explicit choice (flag or config), honoured as is. */
  prefer?: "tmux" | "herdr";
  env: NodeJS.ProcessEnv;
  /** Whether a Herdr server answered ping at the resolved socket. */
  herdrReachable: boolean;
  /** Whether `tmux -V` runs. */
  tmuxInstalled: boolean;
}

/** A backend choice with the reason in words. */
export interface BackendChoice {
  name: "tmux" | "herdr";
  reason: string;
}

/** Choose a backend from facts, with no I/O: option, then environment hints, then availability. */
export function chooseBackend(facts: BackendFacts): BackendChoice {
  if (facts.prefer) return { name: facts.prefer, reason: `chosen explicitly (${facts.prefer})` };
  if (facts.env.HERDR_SOCKET_PATH) return { name: "herdr", reason: "HERDR_SOCKET_PATH is set" };
  if (facts.env.HERDR_ENV === "1") return { name: "herdr", reason: "running inside a Herdr pane (HERDR_ENV=1)" };
  if (facts.env.TMUX) return { name: "tmux", reason: "running inside tmux (TMUX is set)" };
  if (facts.herdrReachable) return { name: "herdr", reason: "a Herdr server answers at its default socket" };
  if (facts.tmuxInstalled) return { name: "tmux", reason: "tmux is installed" };
  throw new SeatError(
    "MUX_UNAVAILABLE",
    "Neither Herdr nor tmux is available: no HERDR_SOCKET_PATH, HERDR_ENV or TMUX, no Herdr server at its default socket, and no tmux on PATH. Install tmux 3.x or start herdr.",
    {
      context: { tried: ["option", "HERDR_SOCKET_PATH", "HERDR_ENV", "TMUX", "herdr ping", "tmux -V"] },
    },
  );
}

/** Options for detectBackend. */
export interface DetectOptions {
  prefer?: "tmux" | "herdr";
  env?: NodeJS.ProcessEnv;
  /** Private tmux server name when tmux is chosen. */
  tmuxSocketName?: string;
}

/** Probe the environment, choose a backend and construct it. */
export async function detectBackend(options: DetectOptions = {}): Promise<{ backend: Backend; reason: string }> {
  const env = options.env ?? process.env;
  const socketPath = resolveHerdrSocketPath({ env });
  const needsProbe = !options.prefer && !env.HERDR_SOCKET_PATH && env.HERDR_ENV !== "1" && !env.TMUX;
  const herdrReachable =
    needsProbe && existsSync(socketPath)
      ? await new HerdrClient(socketPath, { timeoutMs: 2000 }).ping().then(
          () => true,
          () => false,
        )
      : false;
  const tmuxInstalled = needsProbe && !herdrReachable ? await isTmuxAvailable() : false;
  const choice = chooseBackend({
    env,
    herdrReachable,
    tmuxInstalled,
    ...(options.prefer ? { prefer: options.prefer } : {}),
  });
  const backend =
    choice.name === "herdr"
      ? new HerdrBackend({ socketPath })
      : new TmuxBackend(options.tmuxSocketName ? { socketName: options.tmuxSocketName } : {});
  return { backend, reason: choice.name === "herdr" ? `${choice.reason}; socket ${socketPath}` : choice.reason };
}
