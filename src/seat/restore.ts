/*
 * Restore: bring back a visible seat that a reboot (or a tmux server that died with everything in it) took —
 *   hired again with its original flags, cwd or worktree, model, effort and version floor, its grok session
 *   resumed (`--resume`) so the conversation continues, and its leader proven again before anything is sent.
 * Owns: judging that a seat is lost (its controller and its proven leader are both observed gone), crash recovery
 *   of its in-flight deliveries (dispatched → uncertain, fenced → failed: never sent), and launching its
 *   controller on the original hire.json plus the session to resume.
 * Does not own: the hire (hire.ts, in the controller), listing (listing/listing.ts).
 * Invariant: nothing is ever re-sent — an in-flight prompt stays `uncertain` until a person sends again; the
 *   journal row is claimed by a compare-and-set on the socket path seen lost, before any controller is launched,
 *   so two restores launch one controller (journal/restore-claim.ts); a seat claimed by a restorer that still runs is not
 *   lost; secret values come only from the caller's environment, by the names hire.json recorded.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import { splitSecretEnv } from "../internal/redact.js";
import { platformIdentitySource } from "../identity/index.js";
import {
  type Journal,
  type SeatRecord,
  claimSocketPath,
  restoreClaimOf,
  unclaimedSocketPath,
} from "../journal/index.js";
import { controllerEnv, envValuesOf, type ControllerConfig } from "./controller.js";
import { launchController } from "./launch-controller.js";
import { buildTuiEnv } from "./plan.js";
import { observeExit } from "./proof.js";
import { readSeatFile, seatDir } from "../home/index.js";

/** What a restore did. */
export interface RestoreResult {
  seatId: string;
  sessionId: string;
  /** In-flight prompts, never re-sent: uncertain (the model may have seen them) or never sent. */
  uncertain: string[];
  neverSent: string[];
  controllerPid: number;
}

function notLost(seatId: string, why: string): SeatError {
  return new SeatError("SEAT_NOT_LOST", `Seat ${seatId} is not lost: ${why}. \`seat ps\` shows what is lost.`, {
    context: { seatId },
  });
}

/**
 * Whether seat `seatId` is lost: not released, not being restored by a process that still runs, its controller
 * and its proven leader both observed gone. `seat` is the journal row the caller will compare-and-set against
 * (read before the judgement, so a restore that claims the seat in between makes that compare fail).
 */
export async function isSeatLost(
  journal: Journal,
  home: string,
  seatId: string,
  seat: SeatRecord | null = journal.getSeat(seatId),
): Promise<{ lost: true } | { lost: false; why: string }> {
  if (seat === null) return { lost: false, why: "no such seat in the journal" };
  if (seat.state === "released") return { lost: false, why: "it was released" };
  const claim = restoreClaimOf(seat.socketPath);
  if (claim !== null && (await observeExit(claim)) !== "exited")
    return { lost: false, why: `another seat restore (pid ${claim.pid}) is restoring it` };
  const file = readSeatFile(seatDir(home, seatId));
  if (file === null) return { lost: false, why: "its seat.json cannot be read" };
  const controller = file.controller_birth
    ? await observeExit({ pid: file.controller_pid, birth: file.controller_birth })
    : "unknown";
  if (controller !== "exited")
    return {
      lost: false,
      why: `its controller is ${controller === "running" ? "running" : "not observed to have exited"}`,
    };
  if (seat.leaderPid !== null && seat.leaderBirth !== null) {
    const leader = await observeExit({ pid: seat.leaderPid, birth: seat.leaderBirth });
    if (leader !== "exited")
      return {
        lost: false,
        why: `its leader (pid ${seat.leaderPid}) is ${leader === "running" ? "still running" : "not observed to have exited"}`,
      };
  }
  return { lost: true };
}

/**
 * Restores lost seat `seatId`: recovery first (nothing re-sent), then its controller on the original hire with
 * the session resumed. SEAT_NOT_LOST when it is live or released; SEAT_RESTORE_CONFLICT when another restore won;
 * SEAT_RESTORE_ENV_MISSING when a secret variable it was hired with is unset here; the hire's own code when the new TUI
 * or leader is refused.
 */
export async function restoreSeat(
  journal: Journal,
  home: string,
  seatId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RestoreResult> {
  const seat = journal.getSeat(seatId);
  const verdict = await isSeatLost(journal, home, seatId, seat);
  if (!verdict.lost || seat === null) throw notLost(seatId, verdict.lost ? "no such seat in the journal" : verdict.why);
  const dir = seatDir(home, seatId);
  let config: ControllerConfig;
  try {
    config = JSON.parse(readFileSync(join(dir, "hire.json"), "utf8")) as ControllerConfig;
  } catch (error) {
    throw notLost(
      seatId,
      `its hire.json cannot be read (${(error as NodeJS.ErrnoException).code ?? "not JSON"}), so its original flags are unknown`,
    );
  }
  // The seat comes back on its original credentials or not at all: never silently without a key it was hired with.
  const missing = (config.secretEnvNames ?? []).filter((name) => typeof env[name] !== "string" || env[name] === "");
  if (missing.length > 0) {
    throw new SeatError(
      "SEAT_RESTORE_ENV_MISSING",
      `Seat ${seatId} was hired with ${missing.join(", ")} set; this environment has no ${missing.join(", ")}. Export ${missing.length === 1 ? "it" : "them"} and run seat restore again; nothing was launched.`,
      { context: { seatId, missing } },
    );
  }
  const self = await platformIdentitySource()
    .readIdentity(process.pid)
    .catch(() => null);
  if (!self)
    throw new SeatError(
      "IDENTITY_UNKNOWN",
      `seat restore cannot read its own process identity (pid ${process.pid}), so it cannot claim seat ${seatId}; nothing was launched.`,
      { context: { seatId } },
    );
  // The claim: of two restores that both judged the seat lost, exactly one gets here; the other launches nothing.
  const claimed = claimSocketPath(seat.socketPath, { pid: process.pid, birth: self.birth });
  if (!journal.reopenSeat(seatId, { socketPath: seat.socketPath }, { socketPath: claimed })) {
    throw new SeatError(
      "SEAT_RESTORE_CONFLICT",
      `Seat ${seatId} was restored or released by another process since it was found lost; nothing was launched.`,
      { context: { seatId } },
    );
  }
  const report = journal.recoverAfterCrash(seatId);
  const restored: ControllerConfig = {
    ...config,
    seatHome: home,
    restore: { sessionId: seat.sessionId, expectSocketPath: claimed },
  };
  const configPath = join(dir, "restore.json");
  writeFileSync(configPath, JSON.stringify(restored), { mode: 0o600 });
  const { secret } = splitSecretEnv(buildTuiEnv(env, config.secretEnvNames ?? []));
  // The notify targets' secrets, by the names hire.json recorded; one unset here only drops that target (logged).
  const outcome = await launchController(
    dir,
    configPath,
    controllerEnv(env, { ...envValuesOf(env, config.notifySecretEnvNames), ...secret }),
  );
  if (outcome.type !== "hired") {
    // Still claimed by us when the controller refused before its own compare-and-set: hand the seat back, lost.
    journal.reopenSeat(seatId, { socketPath: claimed }, { socketPath: unclaimedSocketPath(seat.socketPath) });
    const error = (outcome.error ?? {}) as { code?: string; message?: string; context?: Record<string, unknown> };
    throw new SeatError(
      (error.code as never) ?? "SEAT_CONTROLLER_FAILED",
      (error.message ?? "the restore was refused").replace(/ \[[A-Z_]+\]$/, ""),
      { context: { ...(error.context ?? {}), seatId, log: join(dir, "controller.log") } },
    );
  }
  return {
    seatId,
    sessionId: seat.sessionId,
    uncertain: report.uncertain.map((d) => d.promptId),
    neverSent: report.neverSent.map((d) => d.promptId),
    controllerPid: Number(outcome.controllerPid),
  };
}
