/*
 * `seat board --redis` serving a fleet's approval links for tests: started with the fleet key in its environment
 *   (never in argv), in a home of its own under the test's root, and stopped by the test.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { startSeat } from "./cli.js";
import { until } from "./fleet-rig.js";

/** A running fleet board: the address it printed (with its token) and how to stop it. */
export interface FleetBoard {
  /** The `board: <url>` address, token included. */
  url: string;
  stop(): Promise<void>;
}

/** Starts `seat board --redis <redisUrl>` with GROK_SEAT_FLEET_KEY=`fleetKey`; resolves once it says its address. */
export async function startFleetBoard(root: string, redisUrl: string, fleetKey: string): Promise<FleetBoard> {
  const boardHome = join(root, "board-home");
  mkdirSync(boardHome, { recursive: true });
  const board = startSeat(["board", "--redis", redisUrl], {
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: boardHome,
      GROK_SEAT_HOME: join(boardHome, ".grok-seat"),
      GROK_SEAT_FLEET_KEY: fleetKey,
    },
    cwd: boardHome,
  });
  const stop = async () => {
    board.child.kill("SIGTERM");
    await board.done;
  };
  try {
    const url = await until(() => /board: (\S+)/.exec(board.stdout())?.[1], 20_000, "the board");
    return { url, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
