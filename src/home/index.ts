/*
 * Seat home front door: where grok-seat keeps its state (paths, modes, the seat file).
 * Owns: the list of names other rooms may import from home/.
 * Does not own: anything else; each name lives in the file it comes from.
 * Invariant: other rooms import "../home/index.js", never a file inside home/.
 */
export {
  seatHome,
  journalPath,
  seatDir,
  ensurePrivateDir,
  readSeatFile,
  writeSeatFile,
  SEAT_FILE_SCHEMA,
} from "./seat-home.js";
export type { SeatFile } from "./seat-home.js";
