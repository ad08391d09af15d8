/*
 * Active sessions: grok's own list of open TUI sessions, $GROK_HOME/active_sessions.json.
 * Owns: parsing that file and looking up one session/pid/cwd in it.
 * Does not own: kernel proof (linux.ts, prove.ts). This file is written by grok, so it is evidence only.
 * Invariant: evidence, never authority: a match here authorizes nothing without kernel proof, and an
 *   absent entry is unknown (the TUI may not have written it yet), not a match.
 * Spec: grok-wire.md §14
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { SeatError } from "../errors.js";
import { check, type IdentityCheck } from "./verdict.js";

/** One entry of active_sessions.json; `pid` is the TUI's pid, not the leader's. */
export interface ActiveSession {
  sessionId: string;
  pid: number;
  cwd: string;
  openedAt: string;
}

function invalid(source: string, why: string, cause?: unknown): SeatError {
  return new SeatError(
    "IDENTITY_UNKNOWN",
    `${source} ${why}; it cannot serve as session evidence. Wait for the TUI to rewrite it, or release the seat.`,
    {
      context: { source },
      cause,
    },
  );
}

/** Parses the file's text; throws IDENTITY_UNKNOWN (naming the entry) on anything but the documented array. */
export function parseActiveSessions(text: string, source = "active_sessions.json"): ActiveSession[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw invalid(source, "is not JSON", cause);
  }
  if (!Array.isArray(value)) throw invalid(source, "is not a JSON array");
  return value.map((entry: unknown, index) => {
    const e = entry as Record<string, unknown> | null;
    const ok =
      typeof e === "object" &&
      e !== null &&
      typeof e.session_id === "string" &&
      typeof e.cwd === "string" &&
      typeof e.opened_at === "string" &&
      Number.isInteger(e.pid) &&
      (e.pid as number) > 0;
    if (!ok) throw invalid(source, `has a malformed entry at index ${index} (${JSON.stringify(entry)?.slice(0, 120)})`);
    return {
      sessionId: e!.session_id as string,
      pid: e!.pid as number,
      cwd: e!.cwd as string,
      openedAt: e!.opened_at as string,
    };
  });
}

/** Reads $GROK_HOME/active_sessions.json; a missing file is an empty list. */
export async function readActiveSessions(grokHome: string): Promise<ActiveSession[]> {
  const path = join(grokHome, "active_sessions.json");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw invalid(path, `could not be read (${(err as NodeJS.ErrnoException).code ?? "error"})`, err);
  }
  return parseActiveSessions(text, path);
}

/** The lookup result: the check, and the entry that decided it when there was one. */
export interface ActiveSessionEvidence extends IdentityCheck {
  entry: ActiveSession | null;
}

/**
 * Looks for the TUI session in the list: match when an entry names this session with this pid and cwd,
 * mismatch when the session or the pid is listed with something else, unknown when neither is listed.
 */
export function findActiveSession(
  list: ActiveSession[],
  expected: { sessionId: string; pid: number; cwd: string },
): ActiveSessionEvidence {
  const name = "active-session";
  const forSession = list.filter((e) => e.sessionId === expected.sessionId);
  const conflicting = forSession.find((e) => e.pid !== expected.pid || e.cwd !== expected.cwd);
  if (conflicting) {
    const what =
      conflicting.pid !== expected.pid
        ? `pid ${conflicting.pid} (expected ${expected.pid})`
        : `cwd ${conflicting.cwd} (expected ${expected.cwd})`;
    return {
      ...check(name, "mismatch", `${name}: session ${expected.sessionId} is listed with ${what}`),
      entry: conflicting,
    };
  }
  if (forSession.length > 0) {
    return {
      ...check(
        name,
        "match",
        `${name}: session ${expected.sessionId} is listed with pid ${expected.pid} in ${expected.cwd}`,
      ),
      entry: forSession[0]!,
    };
  }
  const samePid = list.find((e) => e.pid === expected.pid);
  if (samePid) {
    return {
      ...check(
        name,
        "mismatch",
        `${name}: pid ${expected.pid} is listed with session ${samePid.sessionId}, not ${expected.sessionId}`,
      ),
      entry: samePid,
    };
  }
  return { ...check(name, "unknown", `${name}: session ${expected.sessionId} is not listed (yet)`), entry: null };
}
