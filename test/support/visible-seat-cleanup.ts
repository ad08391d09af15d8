/*
 * Clean-up after a visible-seat test: every seat's controller and leader (from its seat file and socket lock), the
 *   private tmux server, and every pid the test noted, killed and waited for.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { alive } from "./processes.js";

/** What a visible-seat test started: its seat home, its private tmux server's name, the pids it noted. */
export interface VisibleSeatWorld {
  seatHome: string;
  tmux: string;
  pids: Set<number>;
}

/** The controller and the socket lock holder of every seat under `seatHome` (a seat without a file is skipped). */
export function seatFilePids(seatHome: string): number[] {
  const seats = join(seatHome, "seats");
  const pids: number[] = [];
  for (const dir of existsSync(seats) ? readdirSync(seats) : []) {
    try {
      const file = JSON.parse(readFileSync(join(seats, dir, "seat.json"), "utf8"));
      pids.push(file.controller_pid);
      const lock = join(file.socket_dir ?? "/nonexistent", "s.lock");
      if (existsSync(lock)) pids.push(Number(readFileSync(lock, "utf8").trim()));
    } catch {
      /* no seat file */
    }
  }
  return pids;
}

/**
 * Kills the world's tmux server and SIGKILLs every seat process and noted pid, then waits (up to 5 s) until none
 * is alive: the TUI exits on tmux's SIGHUP and still writes into GROK_HOME while it goes, so the sandbox is removed
 * only after.
 */
export async function stopVisibleSeats(world: VisibleSeatWorld): Promise<void> {
  for (const pid of seatFilePids(world.seatHome)) world.pids.add(pid);
  spawnSync("tmux", ["-L", world.tmux, "kill-server"]);
  for (const pid of world.pids)
    if (pid && alive(pid))
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
  for (let i = 0; i < 100 && [...world.pids].some((pid) => pid && alive(pid)); i += 1)
    await new Promise((r) => setTimeout(r, 50));
}
