/*
 * `seat status [<seat>]`: a seat's live status from its controller, or its journal state when the
 * controller is gone (after crash recovery and late-evidence reconciliation; nothing is re-sent).
 */
import { openJournal } from "../../journal/index.js";
import { callController, isControllerGone, offlineStatus, unwrapReply } from "../../seat/index.js";
import { journalPath, seatDir, seatHome } from "../../home/index.js";
import { parseFlags } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

interface DeliveryLine {
  promptId: string;
  state: string;
  failureReason?: string | null;
}

export const statusCommand: Command = {
  name: "status",
  help: `Usage: seat status [<seat>] [--all] [--json]

  --all    include released seats
  --json   one JSON object per seat

Examples:
  seat status
  seat status s-1a2b --json`,
  async run(argv) {
    const args = parseFlags("status", argv, { json: { type: "boolean" }, all: { type: "boolean" } });
    const home = seatHome();
    const journal = openJournal(journalPath(home));
    try {
      const ids =
        args.positionals.length > 0
          ? args.positionals
          : journal.listSeats({ includeReleased: args.values.all === true }).map((s) => s.seatId);
      for (const seatId of ids) {
        let live: Record<string, unknown> | null = null;
        try {
          live = unwrapReply(await callController(seatDir(home, seatId), { op: "status" }, 15_000)).status as Record<
            string,
            unknown
          >;
        } catch (error) {
          if (!isControllerGone(error)) throw error;
        }
        if (live) {
          if (args.values.json) writeJson({ type: "status", source: "controller", ...live });
          else
            printSeat(
              seatId,
              "live controller",
              `${(live.seat as { state: string }).state}${attentionText(live.attention)}${live.condition && live.condition !== "active" ? `  ${String(live.condition)}` : ""}`,
              live.deliveries as DeliveryLine[],
            );
          continue;
        }
        const offline = await offlineStatus(journal, home, seatId);
        if (args.values.json) writeJson({ type: "status", source: "journal", seatId, ...offline });
        else printSeat(seatId, `controller ${offline.controller}`, offline.seat.state, offline.deliveries);
      }
    } finally {
      journal.close();
    }
    return EXIT.ok;
  },
};

function printSeat(seatId: string, source: string, state: string, deliveries: DeliveryLine[]): void {
  const lines = [`${seatId}  ${state}  (${source})`];
  for (const d of deliveries) lines.push(`  ${d.promptId}  ${d.state}${d.failureReason ? `  ${d.failureReason}` : ""}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

/** The seat's attention as the controller says it (`working`, `waiting(approval)`, …), after its state. */
function attentionText(attention: unknown): string {
  const a = attention as { state?: unknown; waitingOn?: unknown } | undefined;
  if (typeof a?.state !== "string") return "";
  return `  ${a.state}${typeof a.waitingOn === "string" ? `(${a.waitingOn})` : ""}`;
}
