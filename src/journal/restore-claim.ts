/*
 * Restore claim: the mark a `seat restore` puts on a lost seat's journal row before it launches anything, so two
 *   restores of one seat launch exactly one controller and `seat ps` does not call a seat being restored lost.
 * Owns: the claimed socket path (`<old socket path>#restore:<pid>:<birth>`) and reading it back.
 * Does not own: the compare-and-set (Journal.reopenSeat) or judging the restorer alive (seat/proof.ts observeExit).
 * Invariant: the claim keeps the old socket path as its prefix, so its directory is still the seat's old socket
 *   directory; a claim whose restorer is observed gone (kill -9 mid-restore) is no claim at all.
 */

const MARK = "#restore:";

/** Who claimed a seat for restore: the restoring process (pid and kernel birth, "" when it could not be read). */
export interface RestoreClaim {
  pid: number;
  birth: string;
}

/** The socket path a restore by `claim` writes over `socketPath` (itself possibly an older, dead claim). */
export function claimSocketPath(socketPath: string, claim: RestoreClaim): string {
  return `${unclaimedSocketPath(socketPath)}${MARK}${claim.pid}:${claim.birth}`;
}

/** The seat's own socket path without any claim. */
export function unclaimedSocketPath(socketPath: string): string {
  const at = socketPath.indexOf(MARK);
  return at < 0 ? socketPath : socketPath.slice(0, at);
}

/** The claim a journal socket path carries, or null. */
export function restoreClaimOf(socketPath: string): RestoreClaim | null {
  const at = socketPath.indexOf(MARK);
  if (at < 0) return null;
  const match = /^(\d+):(.*)$/.exec(socketPath.slice(at + MARK.length));
  if (match === null) return null;
  const pid = Number(match[1]);
  return Number.isSafeInteger(pid) && pid > 0 ? { pid, birth: match[2] as string } : null;
}
