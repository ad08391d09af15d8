/*
 * `seat cancel -s NAME` / `seat cancel ID`: cancel the turn a named session or a plain run (`seat run`, an MCP
 *   `run`, a `seat compare` agent — the id `seat ps` lists) is running, from another shell.
 * Owns: the flags and the printed result. Does not own: proving the holder or the socket (sessions/manage.ts,
 *   listing/runs.ts).
 */
import { SeatError } from "../../errors.js";
import { cancelNamed, lookup, openStore } from "../../sessions/index.js";
import { seatHome } from "../../home/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const cancelCommand: Command = {
  name: "cancel",
  help: `Usage: seat cancel -s NAME [--global] [--cwd DIR] [--json]
       seat cancel ID [--json]

  Sends cancel to the process running the session's turn, through its control socket (a 0700
  directory in the seat home, or a short private one under TMPDIR when the home is too long for a
  socket path), after proving that process holds the lease and the socket. Only reads the journal:
  it answers while another process writes to it.
  Exit 0 when the cancel was delivered; SESSION_IDLE (exit 1) when no turn runs.
  With ID (a plain run's id, as \`seat ps\` lists it): the same, to that run's control socket, after proving
  the pid that answers holds it; RUN_NOT_FOUND (exit 1) when no live run of yours has that id, RUN_IDLE
  when its turn is not running.

Examples:
  seat cancel -s review
  seat cancel -s nightly --global --json
  seat cancel 0199a8f2-…                    # a plain run, by the id seat ps lists`,
  async run(argv) {
    const args = parseFlags("cancel", argv, {
      session: { type: "string", short: "s" },
      global: { type: "boolean" },
      cwd: { type: "string" },
      json: { type: "boolean" },
    });
    const name = stringFlag(args, "session");
    if (
      name === undefined &&
      args.positionals.length === 1 &&
      args.positionals[0]!.trim() !== "" &&
      args.values.global !== true &&
      !args.values.cwd
    )
      return cancelPlainRun(args.positionals[0]!, args.values.json === true);
    if (name === undefined || args.positionals.length > 0)
      throw new SeatError(
        "CLI_USAGE",
        "seat cancel: give the session with -s NAME, or a plain run's id (seat ps lists it), and nothing else.",
      );
    const store = openStore(seatHome());
    try {
      const record = lookup(store, name, {
        cwd: stringFlag(args, "cwd") ?? process.cwd(),
        global: args.values.global === true,
      });
      const { holderPid } = await cancelNamed(store, record);
      if (args.values.json) writeJson({ type: "cancelled", name, holderPid });
      else process.stdout.write(`${name}: cancel sent to pid ${holderPid}\n`);
      return EXIT.ok;
    } finally {
      store.close();
    }
  },
};

/** Cancels the plain run `id` (as `seat ps` lists it) through its proven control socket. */
async function cancelPlainRun(id: string, json: boolean): Promise<number> {
  // Single files, not the front doors: cancelling loads neither the runtime nor the seat stack.
  const { cancelRun } = await import("../../listing/index.js");
  const { snapshotIdentitySource } = await import("../../identity/index.js");
  const { pid } = await cancelRun(id, {
    env: { ...process.env, GROK_SEAT_HOME: seatHome() },
    source: snapshotIdentitySource(),
    stateTimeoutMs: 2_000,
  });
  if (json) writeJson({ type: "cancelled", id, holderPid: pid });
  else process.stdout.write(`${id}: cancel sent to pid ${pid}\n`);
  return EXIT.ok;
}
