/*
 * Approval records: a small file per held approval of a run that others answer through its control socket, so an
 *   answer that arrives after that run is gone hears what happened (APPROVAL_EXPIRED, or ALREADY_ANSWERED naming
 *   the first) instead of APPROVAL_NOT_FOUND.
 * Owns: the records directory (`<seat home>/approvals`, 0700, files `ap_….json` 0600, schema
 *   grok-seat.approval-record.v1: id, pid, state, decision, by, why, deadline, at), writing them (only once a
 *   process turned them on with recordApprovalsIn: a library session writes nothing), pruning those older than a
 *   day, and reading one back.
 * Does not own: the approvals (queue.ts) or deciding what a record means to an answer (api.ts).
 * Invariant: a record holds no target, title or note (nothing model-chosen, no secret); writing one never fails a
 *   turn (a record that cannot be written only loses the better late refusal).
 */
import { lstatSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensurePrivateDir, seatHome } from "../home/index.js";
import { isPrivateDir } from "../internal/private-dir.js";

export const APPROVAL_RECORD_SCHEMA = "grok-seat.approval-record.v1";
/** Records older than this are pruned (ms). */
export const RECORD_KEPT_MS = 24 * 60 * 60_000;

/** What a record says about one approval. */
export interface ApprovalRecord {
  schema: typeof APPROVAL_RECORD_SCHEMA;
  id: string;
  pid: number;
  state: "pending" | "answered" | "expired";
  decision?: "allow" | "deny";
  by?: string;
  why?: "timeout" | "turn-ended";
  deadline: string;
  at: string;
}

let recordDir: string | undefined;

/** The records directory of a seat home. */
export function approvalRecordsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(seatHome(env), "approvals");
}

/** Turns on records for this process's approvals (a run that serves a control socket); `dir` is approvalRecordsDir(). */
export function recordApprovalsIn(dir: string): void {
  recordDir = dir;
}

const ID = /^ap_[0-9a-f]{16}$/;

/** Writes (replaces) the record of one approval when records are on; never throws. */
export function writeApprovalRecord(record: Omit<ApprovalRecord, "schema" | "pid" | "at">): void {
  const dir = recordDir;
  if (dir === undefined || !ID.test(record.id)) return;
  try {
    ensurePrivateDir(dir);
    if (record.state === "pending") prune(dir);
    const path = join(dir, `${record.id}.json`);
    const full: ApprovalRecord = {
      schema: APPROVAL_RECORD_SCHEMA,
      ...record,
      pid: process.pid,
      at: new Date().toISOString(),
    };
    writeFileSync(`${path}.${process.pid}.tmp`, `${JSON.stringify(full)}\n`, { mode: 0o600 });
    renameSync(`${path}.${process.pid}.tmp`, path);
  } catch {
    // best effort: a late answer then hears NOT_FOUND, as before
  }
}

function prune(dir: string): void {
  const before = Date.now() - RECORD_KEPT_MS;
  for (const name of readdirSync(dir)) {
    if (!name.startsWith("ap_")) continue;
    const path = join(dir, name);
    try {
      const stat = lstatSync(path);
      if (stat.isFile() && stat.mtimeMs < before) rmSync(path, { force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** The record of approval `id` in the seat home of `env`, or undefined (none, unreadable, not ours, malformed). */
export function readApprovalRecord(id: string, env: NodeJS.ProcessEnv = process.env): ApprovalRecord | undefined {
  if (!ID.test(id)) return undefined;
  const dir = approvalRecordsDir(env);
  if (!isPrivateDir(dir)) return undefined;
  try {
    const path = join(dir, `${id}.json`);
    if (!lstatSync(path).isFile()) return undefined;
    const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<ApprovalRecord>;
    if (
      parsed.schema !== APPROVAL_RECORD_SCHEMA ||
      parsed.id !== id ||
      typeof parsed.pid !== "number" ||
      !["pending", "answered", "expired"].includes(String(parsed.state))
    )
      return undefined;
    return parsed as ApprovalRecord;
  } catch {
    return undefined;
  }
}
