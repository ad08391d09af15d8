/*
 * Run slots: how many `run` calls one `seat mcp` server lets run at once (`--max-runs`). Each running call
 *   holds an agent process; a host whose model fans out calls must not be able to start them without bound.
 * Owns: taking and giving back a slot, and the refusal when none is free (MCP_RUNS_LIMIT, before anything starts).
 * Does not own: the run tool (tools/run.ts) or the flag (cli/commands/mcp.ts).
 */
import { SeatError } from "../errors.js";

/** The `--max-runs` default: a few agents at once on a developer's machine. */
export const DEFAULT_MAX_RUNS = 4;

/** A counter of running `run` calls with a fixed limit. */
export class RunSlots {
  readonly limit: number;
  #running = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new SeatError("MCP_OPTIONS_INVALID", `The run limit must be a whole number of at least 1, got ${limit}.`);
    this.limit = limit;
  }

  /** Calls running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * Takes a slot, returning the function that gives it back (once; later calls do nothing). Throws MCP_RUNS_LIMIT
   * when every slot is taken.
   */
  take(): () => void {
    if (this.#running >= this.limit) {
      throw new SeatError(
        "MCP_RUNS_LIMIT",
        `${this.#running} run calls are already running on this server, its limit (seat mcp --max-runs ${this.limit}); nothing was started. Call again when one has ended, or use submit (with --redis) for work that can wait in the fleet's queue.`,
        {
          context: { running: this.#running, limit: this.limit },
        },
      );
    }
    this.#running += 1;
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#running -= 1;
    };
  }
}
