/*
 * `seat send <seat> "<brief>"` / `seat send <seat> -f FILE|-`: deliver one brief through the seat's live controller.
 * Owns: the send flags, reading the brief from argv, a file or stdin, refusing a bad brief before anything is
 *   fenced (CLI_USAGE), and rendering the delivery's state.
 * Does not own: delivery (the controller's VisibleSeat); reconnecting (never: no controller, no send).
 */
import { SeatError } from "../../errors.js";
import { openJournal } from "../../journal/index.js";
import { assertBrief, callController, isControllerGone, unwrapReply } from "../../seat/index.js";
import { journalPath, seatDir, seatHome } from "../../home/index.js";
import { parseFlags, secondsFlag, stringFlag } from "../args.js";
import { readTextInput } from "../prompt-input.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const WAITS = ["dispatched", "consumed", "completed"] as const;

async function briefFrom(file: string | undefined, positional: string | undefined): Promise<string> {
  if (file === undefined) {
    if (positional === undefined)
      throw new SeatError(
        "CLI_USAGE",
        'seat send: expected <seat> "<brief>" or <seat> -f FILE. See `seat send --help`.',
      );
    return positional;
  }
  if (positional !== undefined)
    throw new SeatError("CLI_USAGE", "seat send: give the brief either as an argument or with -f, not both.");
  return readTextInput("send", file, "brief");
}

/** Throws SEAT_NOT_FOUND when the journal has no such seat (so "no controller" means "gone", not "never existed"). */
function assertSeatExists(home: string, seatId: string): void {
  const journal = openJournal(journalPath(home));
  try {
    if (!journal.getSeat(seatId))
      throw new SeatError(
        "SEAT_NOT_FOUND",
        `No seat ${seatId} was ever hired in ${home}. List seats with \`seat status\`.`,
        { context: { seatId } },
      );
  } finally {
    journal.close();
  }
}

export const sendCommand: Command = {
  name: "send",
  help: `Usage: seat send <seat> "<brief>" [--wait dispatched|consumed|completed] [--timeout S] [--prompt-id ID] [--json]
       seat send <seat> -f FILE|- [...]

  -f, --file F    read the brief from file F, or from stdin when F is "-"
  --wait STATE    return once the delivery reaches STATE (default consumed: grok queued or ran it)
  --timeout S     give up waiting after S seconds (default 60); the delivery itself is not touched
  --prompt-id ID  caller-created prompt id (must be fresh)
  --json          the delivery record as one JSON object

An empty or whitespace-only brief, or one with NUL or control characters other than newline and tab,
is refused (exit 2) before anything is fenced. Refuses when the seat's controller is gone: the seat
never reconnects.

Examples:
  seat send s-1a2b "run the tests and fix what fails"
  seat send s-1a2b -f brief.md --wait completed --timeout 600`,
  async run(argv) {
    const args = parseFlags("send", argv, {
      file: { type: "string", short: "f" },
      wait: { type: "string" },
      timeout: { type: "string" },
      "prompt-id": { type: "string" },
      json: { type: "boolean" },
    });
    const [seatId, positional, ...extra] = args.positionals;
    if (!seatId || extra.length > 0)
      throw new SeatError(
        "CLI_USAGE",
        'seat send: expected <seat> "<brief>" or <seat> -f FILE. See `seat send --help`.',
      );
    const wait = stringFlag(args, "wait") ?? "consumed";
    if (!(WAITS as readonly string[]).includes(wait))
      throw new SeatError("CLI_USAGE", `seat send: --wait takes ${WAITS.join(", ")}, got "${wait}".`);
    const timeoutMs = secondsFlag("send", args, "timeout", 60_000)!;
    const promptId = stringFlag(args, "prompt-id");
    const text = assertBrief(await briefFrom(stringFlag(args, "file"), positional), "CLI_USAGE", "seat send");
    const home = seatHome();
    let reply: Record<string, unknown>;
    try {
      reply = await callController(
        seatDir(home, seatId),
        { op: "send", text, wait: wait as never, timeoutMs, ...(promptId ? { promptId } : {}) },
        timeoutMs + 30_000,
      );
    } catch (error) {
      if (isControllerGone(error)) assertSeatExists(home, seatId);
      throw error;
    }
    const delivery = unwrapReply(reply).delivery as { promptId: string; state: string; failureReason: string | null };
    if (args.values.json) writeJson({ type: "delivery", seatId, ...delivery });
    else
      process.stdout.write(
        `${delivery.promptId} ${delivery.state}${delivery.failureReason ? ` (${delivery.failureReason})` : ""}\n`,
      );
    return delivery.state === "failed" ? EXIT.turnFailed : EXIT.ok;
  },
};
