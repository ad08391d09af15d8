/*
 * Fleet queues for viewing: the BullMQ Queue objects of the shared queue and every host queue Redis knows of,
 *   for a dashboard (the board's bull-board view).
 * Owns: finding the queue names (BullMQ's `<prefix>:<name>:meta` keys) and opening them on one connection.
 * Does not own: enqueueing (client.ts) or running (worker.ts); what a viewer does with the queues.
 * Invariant: opening queues writes nothing to Redis; the Redis password never appears in what this throws.
 */
import { Queue } from "bullmq";
import { checkTarget, connect, parseRedisUrl, redisError } from "../redis/index.js";
import { BULL_PREFIX, SHARED_QUEUE } from "./keys.js";

/** The fleet's queues, open on one connection. */
export interface FleetQueues {
  queues: Queue[];
  close(): Promise<void>;
}

/** Opens the shared queue and every host queue found in the fleet's Redis at `url`. */
export async function openFleetQueues(url: string, env: NodeJS.ProcessEnv = process.env): Promise<FleetQueues> {
  const target = parseRedisUrl(url, env);
  await checkTarget(target);
  const redis = connect(target, { name: "grok-seat-board" });
  const names = new Set<string>([SHARED_QUEUE]);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${BULL_PREFIX}:*:meta`, "COUNT", 500);
      cursor = next;
      for (const key of keys) names.add(key.slice(BULL_PREFIX.length + 1, -":meta".length));
    } while (cursor !== "0");
  } catch (error) {
    redis.disconnect();
    throw redisError(target, error);
  }
  const queues = [...names].sort().map((name) => new Queue(name, { connection: redis, prefix: BULL_PREFIX }));
  return {
    queues,
    async close() {
      await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
      redis.disconnect();
    },
  };
}
