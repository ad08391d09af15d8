/*
 * Restore on use: the library's listLost and restoreLost, loading the listing (SQLite, identity) only when
 *   first called, so `import "grok-seat"` stays light (pinned by test/integration/package/import-weight.test.ts).
 */
import type * as Restore from "./restore.js";

const restore = (): Promise<typeof Restore> => import("./restore.js");

/** The seats and named sessions a reboot took (see supervision/restore.ts). */
export async function listLost(...args: Parameters<typeof Restore.listLost>): ReturnType<typeof Restore.listLost> {
  return (await restore()).listLost(...args);
}

/** Brings back one lost seat or session by id (see supervision/restore.ts). */
export async function restoreLost(
  ...args: Parameters<typeof Restore.restoreLost>
): ReturnType<typeof Restore.restoreLost> {
  return (await restore()).restoreLost(...args);
}
