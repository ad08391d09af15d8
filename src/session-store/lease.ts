/*
 * Session lease: one turn at a time per named session, across processes, without a daemon.
 * Owns: taking the lease for this process (bound to its pid + kernel birth time), judging a present holder
 *   from its pid and kernel birth, reclaiming it from a holder proven dead (and removing that holder's
 *   control socket), and queueing with a wait.
 * Does not own: the lease row (store.ts) or reading kernel facts (identity/).
 * Invariant: a holder proven alive (match) or unprovable (unknown) keeps its lease; only a mismatch — the
 *   pid is gone, now belongs to a process with another birth, or is a zombie (exited, not yet reaped) — lets
 *   another process take it. The executable is evidence in messages only: a package manager replacing the
 *   binary of a running holder (/proc/<pid>/exe then reads "… (deleted)") does not make it dead.
 */
import { SeatError } from "../errors.js";
import { platformIdentitySource, type IdentitySource, type Verdict } from "../identity/index.js";
import { removeDeadControlSocket } from "../control/index.js";
import type { LeaseRecord, SessionStore } from "./store.js";

/** The identity a lease is bound to. */
export interface Holder {
  pid: number;
  birth: string;
  exe: string | null;
}

/** A held lease. */
export interface HeldLease {
  holder: Holder;
  /** The lease this one replaced because its holder was proven dead, if any. */
  reclaimedFrom: LeaseRecord | null;
  release(): void;
}

/** This process's identity as the kernel reports it; IDENTITY_UNKNOWN when it cannot be read. */
export async function selfHolder(source: IdentitySource = platformIdentitySource()): Promise<Holder> {
  const me = await source.readIdentity(process.pid).catch(() => null);
  if (!me)
    throw new SeatError(
      "IDENTITY_UNKNOWN",
      `The identity of this process (pid ${process.pid}) could not be read, so it cannot hold a session lease.`,
      { context: { pid: process.pid } },
    );
  return { pid: me.pid, birth: me.birth, exe: me.exe };
}

/**
 * Whether the recorded holder is alive (match), proven dead (mismatch) or cannot be told (unknown), from its
 * pid and kernel birth alone: gone, reused (another birth) or a zombie is dead; a source that cannot say is
 * unknown. A changed executable is only reported among the reasons (evidence), never a verdict.
 */
export async function judgeHolder(
  lease: LeaseRecord,
  source: IdentitySource = platformIdentitySource(),
): Promise<{ verdict: Verdict; reasons: string[] }> {
  const pid = lease.holderPid;
  let observed;
  try {
    observed = await source.readIdentity(pid);
  } catch (error) {
    return {
      verdict: "unknown",
      reasons: [`pid ${pid} could not be read on ${source.platform} (${(error as Error).message})`],
    };
  }
  if (!observed) return { verdict: "mismatch", reasons: [`pid ${pid} no longer exists`] };
  if (observed.birth !== lease.holderBirth)
    return {
      verdict: "mismatch",
      reasons: [`pid ${pid} now belongs to a process born at ${observed.birth}, not ${lease.holderBirth}`],
    };
  if (observed.state === "Z")
    return { verdict: "mismatch", reasons: [`pid ${pid} has exited (a zombie its parent has not reaped yet)`] };
  const reasons: string[] = [];
  if (lease.holderExe && observed.exe !== lease.holderExe) {
    reasons.push(
      `its executable now reads ${observed.exe ?? "(unreadable)"}, recorded ${lease.holderExe} (replaced on disk while it runs; evidence only)`,
    );
  }
  return { verdict: "match", reasons };
}

function busy(name: string, lease: LeaseRecord, verdict: Verdict, reasons: string[], waitedMs: number): SeatError {
  const why =
    verdict === "unknown"
      ? ` Its holder could not be proven alive or dead (${reasons.join("; ")}), so the lease is not taken from it.`
      : reasons.length > 0
        ? ` It is alive (pid and kernel birth match; ${reasons.join("; ")}).`
        : "";
  const waited = waitedMs > 0 ? ` after waiting ${Math.round(waitedMs / 1000)} s` : "";
  return new SeatError(
    "SESSION_BUSY",
    `Session "${name}" is busy${waited}: pid ${lease.holderPid} has been running a turn since ${lease.since}.${why} Wait with --wait SECS, or cancel it with \`seat cancel -s ${name}\`.`,
    {
      retryable: true,
      context: { name, holderPid: lease.holderPid, since: lease.since, verdict },
    },
  );
}

/**
 * Takes the lease of session `row` for this process. A free lease is taken at once; one whose holder is
 * proven dead is reclaimed; otherwise it polls until `waitMs` has passed, then throws SESSION_BUSY.
 */
export async function acquireLease(
  store: SessionStore,
  session: { row: number; name: string },
  options: { waitMs?: number; pollMs?: number; source?: IdentitySource } = {},
): Promise<HeldLease> {
  const source = options.source ?? platformIdentitySource();
  const holder = await selfHolder(source);
  const started = Date.now();
  const deadline = started + (options.waitMs ?? 0);
  for (;;) {
    const current = store.lease(session.row);
    let judged: { verdict: Verdict; reasons: string[] } = { verdict: "mismatch", reasons: [] };
    if (current) judged = await judgeHolder(current, source);
    if (judged.verdict === "mismatch" && store.takeLease(session.row, current, holder)) {
      // The dead holder cannot remove its own socket; left behind, such files would pile up.
      if (current?.controlSocket) removeDeadControlSocket(current.controlSocket);
      let released = false;
      return {
        holder,
        reclaimedFrom: current,
        release() {
          if (released) return;
          released = true;
          store.releaseLease(session.row, holder);
        },
      };
    }
    if (judged.verdict !== "mismatch" && Date.now() >= deadline)
      throw busy(session.name, current!, judged.verdict, judged.reasons, Date.now() - started);
    await new Promise((r) => setTimeout(r, Math.min(options.pollMs ?? 200, Math.max(1, deadline - Date.now()))));
  }
}
