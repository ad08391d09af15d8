/*
 * `seat send <seat> "<brief>"`: deliver one brief through the seat's live controller.
 * Owns: the send flags and rendering the delivery's state.
 * Does not own: delivery (the controller's VisibleSeat); reconnecting (never: no controller, no send).
 */
import { SeatError } from "../../errors.js";
import { callController, seatDir, seatHome, unwrapReply } from "../../seat/index.js";
import { parseFlags, secondsFlag, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const WAITS = ["dispatched", "consumed", "completed"] as const;

export const sendCommand: Command = {
  name: "send",
  summary: "deliver a brief to a visible seat (fenced, then sent once with its own prompt id)",
  help: `Usage: seat send <seat> "<brief>" [--wait dispatched|consumed|completed] [--timeout S] [--prompt-id ID] [--json]

  --wait STATE    return once the delivery reaches STATE (default consumed: grok queued or ran it)
  --timeout S     give up waiting after S seconds (default 60); the delivery itself is not touched
  --prompt-id ID  caller-created prompt id (must be fresh)
  --json          the delivery record as one JSON object

Refuses when the seat's controller is gone: the seat never reconnects.`,
  async run(argv) {
    const args = parseFlags("send", argv, { wait: { type: "string" }, timeout: { type: "string" }, "prompt-id": { type: "string" }, json: { type: "boolean" } });
    const [seatId, text, ...extra] = args.positionals;
    if (!seatId || text === undefined || extra.length > 0) throw new SeatError("CLI_USAGE", 'seat send: expected <seat> "<brief>". See `seat send --help`.');
    const wait = stringFlag(args, "wait") ?? "consumed";
    if (!(WAITS as readonly string[]).includes(wait)) throw new SeatError("CLI_USAGE", `seat send: --wait takes ${WAITS.join(", ")}, got "${wait}".`);
    const timeoutMs = secondsFlag("send", args, "timeout", 60_000)!;
    const promptId = stringFlag(args, "prompt-id");
    const reply = unwrapReply(await callController(seatDir(seatHome(), seatId), { op: "send", text, wait: wait as never, timeoutMs, ...(promptId ? { promptId } : {}) }, timeoutMs + 30_000));
    const delivery = reply.delivery as { promptId: string; state: string; failureReason: string | null };
    if (args.values.json) writeJson({ type: "delivery", seatId, ...delivery });
    else process.stdout.write(`${delivery.promptId} ${delivery.state}${delivery.failureReason ? ` (${delivery.failureReason})` : ""}\n`);
    return delivery.state === "failed" ? EXIT.turnFailed : EXIT.ok;
  },
};
