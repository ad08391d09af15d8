/*
 * Port reservation for the redis-server rig: a loopback port that stays this process's while its server is down.
 * Owns: picking a port outside the kernel's ephemeral range (so no listen(0) and no outgoing connection of anyone
 *   lands on it), a reservation file per port in a shared temp dir (created exclusively, holding the owner's pid;
 *   a dead owner's file is taken over), and its release.
 * Why: a rig that restarts its server leaves the port free for the down time. Without a reservation another rig
 *   (another test file running beside it) may pick that port, and both sides' clients then talk to the wrong server.
 * Does not own: proving which process answers on the port (redis-server.ts checks the server's process_id).
 */
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import { isAlive } from "../grok/index.js";

/** A reserved port; release() frees it for other rigs (idempotent). */
export interface PortReservation {
  readonly port: number;
  release(): void;
}

// One dir a user: a dir another user made could not be written to (a server started by them on a port is still
// told apart by its pid).
const DIR = join(tmpdir(), `grok-seat-redis-ports-${process.getuid?.() ?? "any"}`);

/** Takes the reservation file of `port`, or returns false when a live process holds it. */
function claim(port: number): boolean {
  mkdirSync(DIR, { recursive: true, mode: 0o700 });
  const file = join(DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, "wx", 0o644);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let owner = NaN;
      try {
        owner = Number(readFileSync(file, "utf8"));
      } catch {
        continue; // released meanwhile: try again
      }
      // A file being written has no pid yet; treat it as held.
      if (!Number.isInteger(owner) || owner <= 0 || isAlive({ pid: owner })) return false;
      try {
        unlinkSync(file);
      } catch {
        /* another process took it over first */
      }
    }
  }
  return false;
}

function release(port: number): void {
  const file = join(DIR, String(port));
  try {
    if (Number(readFileSync(file, "utf8")) === process.pid) unlinkSync(file);
  } catch {
    /* already gone */
  }
}

/** The lowest port of the kernel's ephemeral range (32768 when it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/** Listens on `port` of 127.0.0.1 (0: any) and closes again; resolves the port it got, or undefined when taken. */
function tryListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(undefined));
    server.listen(port, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : undefined));
    });
  });
}

/**
 * Reserves a free loopback port: random below the ephemeral range when there is room (10000 up to it), else one
 * the kernel hands out; either way one no other live rig holds.
 */
export async function reserveFreePort(): Promise<PortReservation> {
  const high = ephemeralLow();
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = high - low >= 1_000 ? low + Math.floor(Math.random() * (high - low)) : await tryListen(0);
    if (port === undefined || !claim(port)) continue;
    if ((await tryListen(port)) === port) return { port, release: () => release(port) };
    release(port);
  }
  throw new SeatError(
    "FLEET_REDIS_SERVER_FAILED",
    "No free loopback port could be reserved for redis-server (200 tries).",
  );
}

/** Reserves a port the caller chose; undefined when another live rig holds it. */
export function reservePort(port: number): PortReservation | undefined {
  return claim(port) ? { port, release: () => release(port) } : undefined;
}
