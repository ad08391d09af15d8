/*
 * `seat restore [ID|NAME …] [--all] [--json]`: bring back what a reboot took. A lost visible seat is hired again
 *   with its original flags and its grok session resumed; a lost named session is ready to resume as it is
 *   (the next `seat run -s NAME` continues it). An in-flight prompt is never re-sent: it is reported uncertain.
 * Owns: choosing what to restore from `seat ps`'s lost items and reporting each outcome.
 * Does not own: judging or restoring a seat (seat/restore.ts).
 */
import { SeatError, isSeatError, messageOf } from "../../errors.js";
import { listLost, restoreLost } from "../../restore/index.js";
import { seatHome } from "../../home/index.js";
import { parseFlags } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const restoreCommand: Command = {
  name: "restore",
  help: `Usage: seat restore ID|NAME… [--json]
       seat restore --all [--json]

Brings back what a reboot (or a tmux server that died with everything in it) took; \`seat ps\` lists it as lost.
  visible seat    hired again under the same id with its original flags, cwd or worktree, model, effort and
                  version floor; its grok session is resumed, so the conversation continues; the leader is
                  proven again before anything is sent
  named session   ready to resume: the next seat run -s NAME continues it
A prompt that was in flight is never re-sent: it is reported uncertain (send it again yourself, or drop it).
Secret variables the seat was hired with (XAI_API_KEY…) are taken from this shell's environment.

  --all    every lost seat and session
  --json   one {"type":"restored"|"restore_failed", …} object per item

Exit 0 when everything named came back, 1 otherwise.

Examples:
  seat ps                      # what a reboot took shows lost
  seat restore gs-1a2b3c4d
  seat restore --all --json`,
  async run(argv) {
    const args = parseFlags("restore", argv, { all: { type: "boolean" }, json: { type: "boolean" } });
    const json = args.values.json === true;
    const names = [...new Set(args.positionals)]; // one restore per seat, however often it is named
    if (args.values.all === true && names.length > 0)
      throw new SeatError("CLI_USAGE", "seat restore: give IDs/NAMEs or --all, not both.");
    if (args.values.all !== true && names.length === 0)
      throw new SeatError("CLI_USAGE", "seat restore needs an ID or NAME (seat ps shows what is lost), or --all.");
    const home = seatHome();
    const lost = await listLost({ home });
    const chosen = args.values.all === true ? lost.map((item) => item.id) : names;
    let failed = 0;
    // At once: eight seats restore in about the time of one.
    await Promise.all(
      chosen.map(async (id) => {
        try {
          const done = await restoreLost(id, { home, lost });
          report(json, { type: "restored", ...done });
        } catch (error) {
          failed += 1;
          report(json, {
            type: "restore_failed",
            id,
            code: isSeatError(error) ? error.code : "SEAT_CONTROLLER_FAILED",
            message: messageOf(error),
          });
        }
      }),
    );
    if (!json && chosen.length === 0) process.stderr.write("Nothing is lost.\n");
    return failed === 0 ? EXIT.ok : EXIT.turnFailed;
  },
};

function report(json: boolean, line: { type: string; id: string } & Record<string, unknown>): void {
  if (json) return writeJson(line);
  if (line.type === "restored") {
    const uncertain = (line.uncertain as string[] | undefined) ?? [];
    const note = uncertain.length > 0 ? `; in flight, never re-sent (uncertain): ${uncertain.join(", ")}` : "";
    process.stdout.write(`${line.id}\n`);
    process.stderr.write(
      `restored ${line.kind} ${line.id}${line.kind === "seat" ? `: session ${String(line.sessionId)} resumed` : ": ready to resume"}${note}\n`,
    );
  } else {
    process.stderr.write(`seat restore: ${line.id}: ${String(line.message)} [${String(line.code)}]\n`);
  }
}
