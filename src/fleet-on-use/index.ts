/*
 * Fleet on use front door: the library's fleet entry points, loading fleet/ (BullMQ, ioredis) only when first
 *   called. A room of its own because fleet/'s door loads the fleet at once, as its other users need.
 * Owns: connectFleet, enqueue and startWorker as the package's front door (src/index.ts) exports them.
 * Does not own: what they do (fleet/client.ts, fleet/worker.ts); this room only defers the import.
 * Invariant: same names, parameters and results as fleet/index.js; `import "grok-seat"` loads neither BullMQ nor
 *   ioredis (pinned by test/integration/package/import-weight.test.ts).
 */
import type * as Fleet from "../fleet/index.js";

const fleet = (): Promise<typeof Fleet> => import("../fleet/index.js");

/** Connects a fleet client to Redis at `url` (see fleet/client.ts); loads BullMQ on first use. */
export async function connectFleet(
  ...args: Parameters<typeof Fleet.connectFleet>
): ReturnType<typeof Fleet.connectFleet> {
  return (await fleet()).connectFleet(...args);
}

/** Submits one job and returns its handle (see fleet/client.ts); loads BullMQ on first use. */
export async function enqueue(...args: Parameters<typeof Fleet.enqueue>): ReturnType<typeof Fleet.enqueue> {
  return (await fleet()).enqueue(...args);
}

/** Starts a fleet worker on this host (see fleet/worker.ts); loads BullMQ on first use. */
export async function startWorker(...args: Parameters<typeof Fleet.startWorker>): ReturnType<typeof Fleet.startWorker> {
  return (await fleet()).startWorker(...args);
}
