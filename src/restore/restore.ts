/*
 * Lost and restored: what a reboot took, and bringing it back — the one code path `seat ps`/`seat restore` and the
 *   library's listLost()/restoreLost() share.
 * Owns: picking the lost items out of the listing and restoring one by id (a visible seat through
 *   seat/restore.ts; a named session is ready to resume as it is, its next turn continues it).
 * Does not own: judging lost (listing/listing.ts), the hire (seat/).
 * Invariant: nothing is re-sent; an in-flight prompt is reported uncertain and left for a person to decide.
 */
import { SeatError } from "../errors.js";
import { openJournal } from "../journal/index.js";
import { restoreSeat } from "../seat/index.js";
import { journalPath, seatHome } from "../home/index.js";
import { listLive, type LiveItem } from "../listing/index.js";

/** What one restore did. */
export type Restored =
  | { kind: "seat"; id: string; sessionId: string; controllerPid: number; uncertain: string[]; neverSent: string[] }
  | { kind: "named-session"; id: string; ready: "resume"; uncertain: string[] };

/** The visible seats and named sessions a reboot took (state `lost`), with their in-flight prompts. */
export async function listLost(options: { home?: string } = {}): Promise<LiveItem[]> {
  return (await listLive({ home: options.home ?? seatHome() })).filter((item) => item.state === "lost");
}

/**
 * Restores lost item `id` (a seat id or a session name). SEAT_NOT_LOST when nothing lost has that id; the
 * seat's own codes (SEAT_RESTORE_CONFLICT, a refused hire) otherwise. `lost` may pass a listing already made.
 */
export async function restoreLost(
  id: string,
  options: { home?: string; env?: NodeJS.ProcessEnv; lost?: readonly LiveItem[] } = {},
): Promise<Restored> {
  const home = options.home ?? seatHome();
  const item = (options.lost ?? (await listLost({ home }))).find((i) => i.id === id);
  if (item === undefined)
    throw new SeatError(
      "SEAT_NOT_LOST",
      `${id} is not lost (it is live, released or unknown); seat ps shows what is lost.`,
      { context: { id } },
    );
  const uncertain = (item.inFlight ?? []).filter((p) => p.state === "uncertain").map((p) => p.promptId);
  if (item.kind === "named-session") return { kind: "named-session", id, ready: "resume", uncertain };
  const journal = openJournal(journalPath(home));
  try {
    const result = await restoreSeat(journal, home, id, options.env);
    return {
      kind: "seat",
      id,
      sessionId: result.sessionId,
      controllerPid: result.controllerPid,
      uncertain: result.uncertain,
      neverSent: result.neverSent,
    };
  } finally {
    journal.close();
  }
}
