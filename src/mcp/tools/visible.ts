/*
 * The visible-seat tools of `seat mcp`: `hire_visible`, `send`, `seat_status`, `release` — a grok TUI in a
 *   terminal pane that a person can watch, driven with the same fence, echo and identity proof as the CLI.
 * Owns: their schemas and argument checks (the hire's cwd under a root; seat ids as one safe path segment; a brief
 *   checked before anything is fenced), and which seats a caller may act on or see — only those whose TUI works
 *   under a root the call may use (a seat hired elsewhere answers SEAT_NOT_FOUND, as if it never existed).
 * Does not own: anything of the seat itself. `hire_visible` runs `seat hire --visible --json` (the verb that
 *   plans, admits and starts the detached per-seat controller); send, status and release speak to that
 *   controller, or read the journal when it is gone, exactly as `seat send|status|release` do (seat/).
 * Acts on the seats of this server's seat home ($GROK_SEAT_HOME).
 */
import { spawn } from "node:child_process";
import { z } from "zod";
import { ERROR_CODES, SeatError, messageOf, type ErrorCode } from "../../errors.js";
import { openJournal } from "../../journal/index.js";
import {
  assertBrief,
  callController,
  isControllerGone,
  offlineRelease,
  offlineStatus,
  unwrapReply,
} from "../../seat/index.js";
import { journalPath, seatDir, seatHome } from "../../home/index.js";
import type { SeatRecord } from "../../journal/index.js";
import { builtFile } from "../../internal/package-files.js";
import { checkModel, isUnder, resolveCwd } from "../boundaries.js";
import type { ToolContext } from "../context.js";
import { guarded, toolResult } from "../results.js";

/** The `seat` command a visible-seat tool runs: the bundle users run (scripts/bundle-cli.mjs). */
const SEAT_MAIN = builtFile("cli", "seat.js");
const SEAT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const WAITS = ["dispatched", "consumed", "completed"] as const;

function checkSeatId(seat: string): string {
  if (!SEAT_ID.test(seat))
    throw new SeatError(
      "MCP_ARGUMENT_INVALID",
      `${JSON.stringify(seat.slice(0, 80))} is not a seat id (like gs-1a2b3c4d); list seats with seat_status.`,
      { context: { seat: seat.slice(0, 80) } },
    );
  return seat;
}

/** Runs `seat hire --visible --json ARGS` and returns its hired object, or throws the error it reported with its code. */
function hireViaCli(args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SEAT_MAIN, "hire", "--visible", "--json", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      env: process.env,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", (error) =>
      reject(new SeatError("SEAT_HIRE_FAILED", `seat hire could not start: ${error.message}`)),
    );
    child.on("close", (code) => {
      let last: Record<string, unknown> | undefined;
      try {
        last = JSON.parse(stdout.trim().split("\n").pop() ?? "") as Record<string, unknown>;
      } catch {
        last = undefined;
      }
      if (code === 0 && last?.type === "hired") return resolve(last);
      const reported =
        typeof last?.code === "string" && last.code in ERROR_CODES ? (last.code as ErrorCode) : "SEAT_HIRE_FAILED";
      const message =
        typeof last?.message === "string"
          ? last.message.replace(/ \[[A-Z_]+\]$/, "")
          : `seat hire exited ${code ?? "by a signal"}: ${stderr.trim().slice(-400)}`;
      reject(
        new SeatError(reported, message, {
          context: {
            exitCode: code,
            ...(last?.context && typeof last.context === "object" ? (last.context as Record<string, unknown>) : {}),
          },
        }),
      );
    });
  });
}

/**
 * Hires a seat for one call. When the call was cancelled or the host went away while the hire ran, nobody will
 * ever learn the seat's id, so the seat is released with its pane closed before the call ends: no TUI, leader or
 * controller outlives a call that could not hand it over.
 */
async function hireForCall(argv: string[], gone: readonly AbortSignal[]): Promise<Record<string, unknown>> {
  const hired = await hireViaCli(argv);
  if (!gone.some((signal) => signal.aborted)) return hired;
  const seatId = String(hired.seatId);
  const home = seatHome();
  try {
    try {
      await callController(seatDir(home, seatId), { op: "release", closePane: true }, 60_000);
    } catch (error) {
      if (!isControllerGone(error)) throw error;
      const journal = openJournal(journalPath(home));
      try {
        await offlineRelease(journal, home, seatId, { closePane: true });
      } finally {
        journal.close();
      }
    }
  } catch (error) {
    throw new SeatError(
      "MCP_CALL_CANCELLED",
      `The call was cancelled while seat ${seatId} was being hired, and releasing it failed (${messageOf(error)}); release it with \`seat release ${seatId} --close-pane\`.`,
      { context: { seatId }, cause: error },
    );
  }
  throw new SeatError(
    "MCP_CALL_CANCELLED",
    `The call was cancelled while seat ${seatId} was being hired; the seat was released and its pane closed (nobody could have learnt its id).`,
    { context: { seatId } },
  );
}

/**
 * `work`, or MCP_CALL_CANCELLED as soon as one of `stops` aborts: following a delivery nobody will read ends with
 * the call (the seat's controller still finishes the delivery it was handed), so a host that left does not keep
 * the server alive for up to the follow's timeout.
 */
function untilStopped<T>(work: Promise<T>, stops: readonly AbortSignal[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const stop = () =>
      reject(
        new SeatError(
          "MCP_CALL_CANCELLED",
          "The call ended (cancelled, or its host went away) while the delivery was followed; the seat's controller still finishes it — follow it with seat_status.",
        ),
      );
    if (stops.some((signal) => signal.aborted)) stop();
    for (const signal of stops) signal.addEventListener("abort", stop, { once: true });
    work.then(resolve, reject).finally(() => {
      for (const signal of stops) signal.removeEventListener("abort", stop);
    });
  });
}

/** Nothing new starts once the server shuts down (its host went away). */
function assertOpen(context: ToolContext): void {
  if (context.closing.aborted)
    throw new SeatError("MCP_CALL_CANCELLED", "The server is shutting down (its host went away); nothing was started.");
}

/** True when the seat's TUI works under one of `roots` (its recorded cwd; a seat with none is outside them all). */
function seatWithinRoots(seat: SeatRecord, roots: readonly string[]): boolean {
  const cwd = seat.tuiCwd;
  return typeof cwd === "string" && roots.some((root) => isUnder(cwd, root));
}

/** The journal's `seat` when its TUI works under one of `roots`; SEAT_NOT_FOUND when there is none or it does not. */
function visibleSeat(seat: SeatRecord | null, seatId: string, roots: readonly string[]): SeatRecord {
  if (!seat || !seatWithinRoots(seat, roots))
    throw new SeatError(
      "SEAT_NOT_FOUND",
      `No seat ${seatId} was ever hired here under this server's roots. List seats with seat_status.`,
      { context: { seatId } },
    );
  return seat;
}

/**
 * Throws SEAT_NOT_FOUND unless the journal has the seat and its TUI works under a root this call may use: a seat
 * hired elsewhere (by a person, or another server with other roots) is not this caller's to drive, see or release,
 * and gets the same answer as one that never existed (as a named session outside the roots does).
 */
async function assertSeatVisible(context: ToolContext, home: string, seatId: string): Promise<void> {
  const roots = await context.roots();
  const journal = openJournal(journalPath(home));
  try {
    visibleSeat(journal.getSeat(seatId), seatId, roots);
  } finally {
    journal.close();
  }
}

const DELIVERY = z
  .object({ promptId: z.string(), state: z.string(), failureReason: z.string().nullable() })
  .passthrough();

/** Registers `hire_visible`, `send`, `seat_status` and `release`. */
export function registerVisibleTools(context: ToolContext): void {
  const { options } = context;
  context.registerTool(
    "hire_visible",
    {
      title: "Hire a visible seat",
      description:
        "Launch a visible grok TUI in a terminal pane (tmux), held by a detached per-seat controller that proves who is on the other end before every delivery. Answers the seat id; send it briefs with `send`, watch it with `seat attach ID` in a terminal. A hire whose call is cancelled (or whose host goes away) is finished, then released with its pane closed.",
      inputSchema: {
        cwd: z
          .string()
          .optional()
          .describe("Absolute working directory of the TUI, under a root; default the first root."),
        model: z.string().optional().describe("grok's model for the seat."),
      },
      outputSchema: {
        seatId: z.string(),
        sessionId: z.string(),
        controllerPid: z.number().optional(),
        admission: z.record(z.string(), z.unknown()).optional(),
      },
    },
    (args, extra) =>
      guarded(async () => {
        const cwd = resolveCwd(args.cwd, await context.roots());
        const model = args.model === undefined ? undefined : checkModel(args.model);
        const argv = [
          "--cwd",
          cwd,
          ...(model ? ["--model", model] : []),
          ...(options.grokCliBinaryPath ? ["--grok", options.grokCliBinaryPath] : []),
          ...(options.visible?.tmuxSocket ? ["--tmux-socket", options.visible.tmuxSocket] : []),
          ...(options.visible?.versionFloor ? ["--version-floor", options.visible.versionFloor] : []),
        ];
        // The hire runs to its end even when the call is cancelled: a half-made seat is worse than a released one;
        // a seat made for a call that is gone is released at once (hireForCall).
        assertOpen(context);
        const hired = await context.track(hireForCall(argv, [extra.signal, context.closing]));
        const structured = {
          seatId: String(hired.seatId),
          sessionId: String(hired.sessionId),
          ...(typeof hired.controllerPid === "number" ? { controllerPid: hired.controllerPid } : {}),
          ...(hired.admission && typeof hired.admission === "object"
            ? { admission: hired.admission as Record<string, unknown> }
            : {}),
        };
        return toolResult(
          structured,
          `hired ${structured.seatId} (session ${structured.sessionId}); watch it with \`seat attach ${structured.seatId}\``,
        );
      }),
  );
  context.registerTool(
    "send",
    {
      title: "Send a brief to a visible seat",
      description:
        "Deliver one brief to a visible seat: fenced in the journal first, sent once with its own prompt id after the seat's leader is re-proved, then followed until it is dispatched, consumed (default) or completed. Never re-sent.",
      inputSchema: {
        seat: z.string().describe("The seat id hire_visible answered."),
        brief: z.string().describe("The text to deliver (no NUL or control characters other than newline and tab)."),
        wait: z.enum(WAITS).optional().describe("How far to follow the delivery (default consumed)."),
        timeoutSeconds: z.number().positive().max(3600).optional().describe("How long to follow it (default 60)."),
      },
      outputSchema: { seatId: z.string(), delivery: DELIVERY },
    },
    (args, extra) =>
      guarded(async () => {
        const seatId = checkSeatId(args.seat);
        const text = assertBrief(args.brief, "SEAT_BRIEF_INVALID", "send");
        const timeoutMs = Math.round((args.timeoutSeconds ?? 60) * 1000);
        const home = seatHome();
        await assertSeatVisible(context, home, seatId);
        assertOpen(context);
        const reply = await context.track(
          untilStopped(
            callController(
              seatDir(home, seatId),
              { op: "send", text, wait: args.wait ?? "consumed", timeoutMs },
              timeoutMs + 30_000,
            ),
            [extra.signal, context.closing],
          ),
        );
        const delivery = unwrapReply(reply).delivery as {
          promptId: string;
          state: string;
          failureReason: string | null;
        };
        return toolResult(
          { seatId, delivery },
          `${delivery.promptId} ${delivery.state}${delivery.failureReason ? ` (${delivery.failureReason})` : ""}`,
          delivery.state === "failed",
        );
      }),
  );
  context.registerTool(
    "seat_status",
    {
      title: "Visible seats' status",
      description:
        "A visible seat's status (or every unreleased seat's): live from its controller, else from the journal after reconciling late evidence (nothing is re-sent).",
      inputSchema: {
        seat: z.string().optional().describe("One seat id; default every unreleased seat."),
        all: z.boolean().optional().describe("Include released seats."),
      },
      outputSchema: { seats: z.array(z.record(z.string(), z.unknown())) },
    },
    (args) =>
      guarded(async () => {
        const home = seatHome();
        const roots = await context.roots();
        const journal = openJournal(journalPath(home));
        try {
          const ids =
            args.seat !== undefined
              ? [checkSeatId(args.seat)]
              : journal
                  .listSeats({ includeReleased: args.all === true })
                  .filter((s) => seatWithinRoots(s, roots))
                  .map((s) => s.seatId);
          const seats: Array<Record<string, unknown>> = [];
          for (const seatId of ids) {
            visibleSeat(journal.getSeat(seatId), seatId, roots);
            let live: Record<string, unknown> | null = null;
            try {
              live = unwrapReply(await callController(seatDir(home, seatId), { op: "status" }, 15_000))
                .status as Record<string, unknown>;
            } catch (error) {
              if (!isControllerGone(error)) throw error;
            }
            if (live) seats.push({ source: "controller", seatId, ...live });
            else {
              seats.push({ source: "journal", seatId, ...(await offlineStatus(journal, home, seatId)) });
            }
          }
          const text =
            seats.length === 0
              ? "no seats"
              : seats
                  .map(
                    (s) =>
                      `${String(s.seatId)} ${String((s.seat as { state?: string } | undefined)?.state ?? "?")} (${String(s.source)})`,
                  )
                  .join("\n");
          return toolResult({ seats }, text);
        } finally {
          journal.close();
        }
      }),
  );
  context.registerTool(
    "release",
    {
      title: "Release a visible seat",
      description:
        "Release a visible seat: its controller closes; its leader is stopped only after the original TUI was seen to exit and the leader re-proved. Works from the journal when the controller is gone.",
      inputSchema: {
        seat: z.string().describe("The seat id."),
        closePane: z.boolean().optional().describe("Close the seat's pane first (ends the TUI)."),
      },
      outputSchema: { seatId: z.string(), release: z.record(z.string(), z.unknown()) },
    },
    (args) =>
      guarded(async () => {
        const seatId = checkSeatId(args.seat);
        const home = seatHome();
        const closePane = args.closePane === true;
        await assertSeatVisible(context, home, seatId);
        let release: Record<string, unknown>;
        try {
          release = unwrapReply(
            await context.track(callController(seatDir(home, seatId), { op: "release", closePane }, 60_000)),
          ).release as Record<string, unknown>;
        } catch (error) {
          if (!isControllerGone(error)) throw error;
          const journal = openJournal(journalPath(home));
          try {
            release = { ...(await offlineRelease(journal, home, seatId, { closePane })) };
          } finally {
            journal.close();
          }
        }
        return toolResult({ seatId, release }, `${seatId} released; ${String(release.reason)}`);
      }),
  );
}
