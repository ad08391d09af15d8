/*
 * Watching the listing: what changed between two listings, and the environment that tells an `--on-waiting`
 *   command which item started waiting.
 * Owns: the item key, the change diff (appeared, changed state, gone) and the SEAT_PS_* variables.
 * Does not own: listing (listing.ts) or running the command (cli/).
 * Invariant: an item "starts waiting" once per stretch of waiting: it is reported when it was absent or in
 *   another state in the previous listing, never again while it stays waiting.
 */
import { redact } from "../internal/redact.js";
import type { LiveItem } from "./listing.js";

/** One change between two listings. */
export interface LiveChange {
  change: "appeared" | "state" | "gone";
  item: LiveItem;
  /** With `state`: the state in the previous listing. */
  previous?: string;
}

/** The identity of an item across listings. */
export function itemKey(item: Pick<LiveItem, "kind" | "id">): string {
  return `${item.kind}:${item.id}`;
}

/** The changes from listing `before` to listing `after`, in `after`'s order (gone items last). */
export function diffListings(before: readonly LiveItem[], after: readonly LiveItem[]): LiveChange[] {
  const old = new Map(before.map((i) => [itemKey(i), i]));
  const changes: LiveChange[] = [];
  for (const item of after) {
    const was = old.get(itemKey(item));
    old.delete(itemKey(item));
    if (!was) changes.push({ change: "appeared", item });
    else if (
      was.state !== item.state ||
      was.waitingOn !== item.waitingOn ||
      was.pendingApprovals !== item.pendingApprovals
    )
      changes.push({ change: "state", item, previous: was.state });
  }
  for (const item of old.values()) changes.push({ change: "gone", item });
  return changes;
}

/** True when `change` is an item that starts waiting on someone. */
export function startsWaiting(change: LiveChange): boolean {
  return change.change !== "gone" && change.item.state === "waiting" && change.previous !== "waiting";
}

/** The environment variables describing `item` to an `--on-waiting` command (added to the inherited env). */
export function waitingEnv(item: LiveItem): Record<string, string> {
  // A notification is output like any other: it passes the one redaction.
  return redact({
    SEAT_PS_KIND: item.kind,
    SEAT_PS_ID: item.id,
    SEAT_PS_NAME: item.name ?? "",
    SEAT_PS_AGENT: item.agent,
    SEAT_PS_STATE: item.state,
    SEAT_PS_WAITING_ON: item.waitingOn ?? "",
    SEAT_PS_SINCE: item.since ?? "",
    SEAT_PS_CWD: item.cwd ?? "",
    SEAT_PS_PID: item.pid === undefined ? "" : String(item.pid),
    SEAT_PS_HOST: item.host ?? "",
    SEAT_PS_PENDING_APPROVALS: String(item.pendingApprovals),
  });
}
