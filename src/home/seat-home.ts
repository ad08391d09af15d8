/*
 * Seat home: where seats keep their state — $GROK_SEAT_HOME (default ~/.grok-seat), its journal
 *   seats.db and one private directory per seat (seat.json, the controller's control socket and log).
 * Owns: those paths, creating private (0700) directories and reading/writing seat.json.
 * Does not own: the journal's contents (journal/) or the controller (seat/controller.ts).
 * Invariant: seat.json is a description for status and offline release, never authority to adopt a
 *   leader: admission happens only in the controller that launched the pane.
 * Spec: docs/seat-protocol.md#controller
 */
import {
  closeSync,
  constants,
  fchmodSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { SeatError } from "../errors.js";
import { privateDirProblem } from "../internal/private-dir.js";
import { redact } from "../internal/redact.js";
import type { WorktreeRecord } from "../worktrees/index.js";

/** The schema name of seat.json. */
export const SEAT_FILE_SCHEMA = "grok-seat.seat.v1";

/** What seat.json holds (snake_case keys). */
export interface SeatFile {
  schema: typeof SEAT_FILE_SCHEMA;
  seat_id: string;
  session_id: string | null;
  controller_pid: number;
  controller_birth: string | null;
  control_socket: string;
  grok_home: string | null;
  cwd: string | null;
  socket_dir: string | null;
  mux: "tmux" | "herdr";
  admission: unknown;
  selected: unknown;
  state: "hiring" | "active" | "refused" | "released";
  error?: unknown;
  /** The seat worktree the TUI works in (`seat hire --worktree`), when it has one. */
  worktree?: WorktreeRecord;
}

/** $GROK_SEAT_HOME or ~/.grok-seat. */
export function seatHome(env: NodeJS.ProcessEnv = process.env): string {
  return resolve(env.GROK_SEAT_HOME || join(env.HOME || homedir(), ".grok-seat"));
}

/** The journal path inside a seat home. */
export function journalPath(home: string): string {
  return join(home, "seats.db");
}

/** The private directory of one seat. */
export function seatDir(home: string, seatId: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(seatId))
    throw new SeatError("SEAT_ID_INVALID", `"${seatId}" is not a seat id (letters, digits, - and _).`, {
      context: { seatId },
    });
  return join(home, "seats", seatId);
}

/**
 * Creates `dir` (and parents) as 0700 directories we own, or tightens an existing plain directory of ours to
 * 0700; throws PRIVATE_DIR_REFUSED when it is not private. Looks before it changes anything: a symlink, a
 * non-directory or another owner's directory is refused with its target left exactly as it was, and the
 * chmod goes through a descriptor opened without following symlinks, so a swap after the look cannot
 * redirect it.
 */
export function ensurePrivateDir(dir: string, uid = process.getuid?.() ?? 0): void {
  const refuse = (problem: string) =>
    new SeatError(
      "PRIVATE_DIR_REFUSED",
      `${dir} is not a private 0700 directory owned by uid ${uid} (${problem}). Remove it or choose another GROK_SEAT_HOME.`,
      { context: { dir } },
    );
  let existing;
  try {
    existing = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT")
      throw refuse(`${dir} cannot be examined (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  if (existing?.isSymbolicLink()) throw refuse(`${dir} is a symlink`);
  if (existing && !existing.isDirectory()) throw refuse(`${dir} is not a directory`);
  if (existing && existing.uid !== uid) throw refuse(`${dir} is owned by uid ${existing.uid}, not ${uid}`);
  if (!existing) mkdirSync(dir, { recursive: true, mode: 0o700 });
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (error) {
    throw refuse(
      `${dir} could not be opened as a plain directory (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
  const problem = privateDirProblem(dir, uid);
  if (problem) throw refuse(problem);
}

/** Writes seat.json atomically (0600), redacted (no secret value is ever written). */
export function writeSeatFile(dir: string, file: SeatFile): void {
  const path = join(dir, "seat.json");
  writeFileSync(`${path}.tmp`, `${JSON.stringify(redact(file), null, 2)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/** Reads seat.json, or null when there is none or it is not ours to read. */
export function readSeatFile(dir: string): SeatFile | null {
  try {
    const value = JSON.parse(readFileSync(join(dir, "seat.json"), "utf8")) as SeatFile;
    return value.schema === SEAT_FILE_SCHEMA ? value : null;
  } catch {
    return null;
  }
}
