/*
 * Offline seat: what the CLI may do for a seat whose controller is gone (crashed or released).
 * Owns: crash recovery reporting (fenced-but-unsent → failed "never dispatched", dispatched/consumed →
 *   uncertain), late-evidence reconciliation from grok's session files, and an offline release that
 *   stops the seat's own leader only after the original TUI was observed to exit.
 * Does not own: any leader connection — there is none here, by design (never reconnect).
 * Invariant: nothing is sent, re-sent or adopted; a journal row is only a description to re-prove
 *   against the kernel (leader session = the row's TUI pid, the recorded socket inode, birth, exe, cwd,
 *   uid, our 0700 socket dir), and a row that does not match, or unknown, never authorizes a kill.
 * Spec: docs/seat-protocol.md#crash-recovery
 */
import { dirname } from "node:path";
import { SeatError, messageOf } from "../errors.js";
import { lockWorktree } from "../worktrees/index.js";
import { commitSeatWorktree, type SeatWorktreeRelease } from "./seat-worktree.js";
import type { DeliveryRecord, Journal, SeatRecord } from "../journal/index.js";
import type { PaneDescriptor } from "../mux/index.js";
import { backendFor } from "./controller.js";
import { reconcileFromSessionFiles } from "./evidence.js";
import { observeExit } from "./proof.js";
import { readSeatFile, seatDir, type SeatFile } from "../home/index.js";
import { stopLeaderAfterTuiExit, type ReleaseResult } from "./visible-seat.js";

/** What offline status reports for one seat. */
export interface OfflineStatus {
  seat: SeatRecord;
  controller: "running" | "exited" | "unknown";
  seatFile: SeatFile | null;
  recovered: { uncertain: string[]; neverSent: string[] } | null;
  reconciled: string[];
  deliveries: DeliveryRecord[];
}

/** Whether the controller named in seat.json still runs (pid + birth). */
export async function controllerState(file: SeatFile | null): Promise<"running" | "exited" | "unknown"> {
  if (!file) return "unknown";
  if (!file.controller_birth) return "unknown";
  return observeExit({ pid: file.controller_pid, birth: file.controller_birth });
}

function seatOrThrow(journal: Journal, seatId: string): SeatRecord {
  const seat = journal.getSeat(seatId);
  if (!seat)
    throw new SeatError("SEAT_NOT_FOUND", `No seat ${seatId} in ${journal.path}. List seats with \`seat status\`.`, {
      context: { seatId },
    });
  return seat;
}

/**
 * Status from the journal for a seat without a live controller: when the controller is observed to have
 * exited, runs crash recovery and reconciles late evidence from grok's session files first.
 */
export async function offlineStatus(journal: Journal, home: string, seatId: string): Promise<OfflineStatus> {
  const seat = seatOrThrow(journal, seatId);
  const file = readSeatFile(seatDir(home, seatId));
  const controller = await controllerState(file);
  let recovered: OfflineStatus["recovered"] = null;
  const reconciled: string[] = [];
  if (controller === "exited") {
    const report = journal.recoverAfterCrash(seatId);
    recovered = {
      uncertain: report.uncertain.map((d) => d.promptId),
      neverSent: report.neverSent.map((d) => d.promptId),
    };
    if (file?.grok_home)
      for (const d of await reconcileFromSessionFiles(journal, seatId, file.grok_home, seat.sessionId))
        reconciled.push(d.promptId);
  }
  return {
    seat: journal.getSeat(seatId)!,
    controller,
    seatFile: file,
    recovered,
    reconciled,
    deliveries: journal.listDeliveries(seatId),
  };
}

/**
 * Releases a seat whose controller is gone: optionally closes its pane, and stops its own leader only
 * when the original TUI is observed to have exited and the leader re-proves (recorded birth, exe, our socket).
 */
export async function offlineRelease(
  journal: Journal,
  home: string,
  seatId: string,
  options: { closePane?: boolean } = {},
): Promise<ReleaseResult> {
  const status = await offlineStatus(journal, home, seatId);
  if (status.controller !== "exited") {
    throw new SeatError(
      "SEAT_RELEASE_REFUSED",
      `The controller of seat ${seatId} is ${status.controller}, not observed to have exited; release it through the controller or wait.`,
      { context: { seatId } },
    );
  }
  const seat = status.seat;
  const pane = seat.muxDescriptor as PaneDescriptor | null;
  if (options.closePane && pane) {
    const backend = backendFor(
      pane.backend,
      pane.backend === "herdr" ? { herdrSocket: pane.server! } : { tmuxSocket: pane.server! },
    );
    await backend.close(pane).catch(() => undefined);
  }
  let result: Omit<ReleaseResult, "controllerClosed"> = {
    seatId,
    tuiExit: "unknown",
    leaderStopped: false,
    reason: "the seat never bound a TUI and a leader",
  };
  if (seat.tuiPid && seat.tuiBirth && seat.leaderPid && seat.leaderBirth && seat.leaderExe && seat.tuiCwd) {
    result = await stopLeaderAfterTuiExit({
      seatId,
      tui: { pid: seat.tuiPid, birth: seat.tuiBirth },
      leader: {
        pid: seat.leaderPid,
        birth: seat.leaderBirth,
        exe: seat.leaderExe,
        cwd: seat.tuiCwd,
        uid: process.getuid?.() ?? 0,
        socketPath: seat.socketPath,
        socketDir: dirname(seat.socketPath),
        socketInode: seat.leaderSocketInode,
      },
      exitTimeoutMs: options.closePane ? 10_000 : 0,
    });
  }
  if (seat.state !== "released") journal.updateSeat(seatId, { state: "released" });
  // The seat's worktree work is committed once its TUI is seen gone (the controller may have released before).
  const record = status.seatFile?.worktree;
  if (!record) return { ...result, controllerClosed: true };
  let worktree: SeatWorktreeRelease;
  try {
    const lock = lockWorktree(home, record, `release:${seatId}`);
    try {
      worktree = await commitSeatWorktree(record, seatId, result.tuiExit);
    } finally {
      lock.release();
    }
  } catch (error) {
    worktree = { name: record.name, branch: record.branch, commit: null, head: null, uncommitted: messageOf(error) };
  }
  return { ...result, controllerClosed: true, worktree };
}
