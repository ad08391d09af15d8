/*
 * Restore front door: the seats and named sessions a reboot took, listed and brought back (docs/supervision.md).
 * Owns: listLost and restoreLost as other rooms and the package import them; each loads restore.ts (the listing,
 *   SQLite, the seat side) only when first called, so `import "grok-seat"` stays light (pinned by
 *   test/integration/package/import-weight.test.ts).
 * Invariant: other rooms import "../restore/index.js", never a file inside restore/.
 */
import type * as Restore from "./restore.js";

const restore = (): Promise<typeof Restore> => import("./restore.js");

/** The seats and named sessions a reboot took (see restore/restore.ts). */
export async function listLost(...args: Parameters<typeof Restore.listLost>): ReturnType<typeof Restore.listLost> {
  return (await restore()).listLost(...args);
}

/** Brings back one lost seat or session by id (see restore/restore.ts). */
export async function restoreLost(
  ...args: Parameters<typeof Restore.restoreLost>
): ReturnType<typeof Restore.restoreLost> {
  return (await restore()).restoreLost(...args);
}

export type { Restored } from "./restore.js";
