/*
 * Worktree records: what the seat home remembers about each seat worktree (schema grok-seat.worktree.v1).
 * Owns: the layout <home>/worktrees/<repo key>/{trees/<name>, records/<name>.json} and reading/writing records.
 * Does not own: git (git.ts) or what a record's worktree contains.
 * Invariant: a record is written whole (temp file + rename) and only after its worktree exists.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SeatError } from "../errors.js";

/** Schema name of a worktree record. */
export const WORKTREE_RECORD_SCHEMA = "grok-seat.worktree.v1";

/** One seat worktree, as recorded under the seat home. */
export interface WorktreeRecord {
  schema: typeof WORKTREE_RECORD_SCHEMA;
  name: string;
  /** The user's worktree the seat's was made from (where `seat merge` lands). */
  repository: string;
  /** The repository's key under the seat home. */
  repo_key: string;
  branch: string;
  /** The ref the branch started from as given (HEAD by default) and the commit it named. */
  base_ref: string;
  base_commit: string;
  /** The seat worktree's directory (under the seat home, never inside the user's tree). */
  path: string;
  created_at: string;
  /** Who uses it: `session:<name>` for a named session, `run` for a one-off run, `library`. */
  owner: string;
}

/** The directory holding one repository's seat worktrees. */
export function repoDir(home: string, repoKey: string): string {
  return join(home, "worktrees", repoKey);
}

/** Where a seat worktree named `name` lives. */
export function worktreePath(home: string, repoKey: string, name: string): string {
  return join(repoDir(home, repoKey), "trees", name);
}

function recordPath(home: string, repoKey: string, name: string): string {
  return join(repoDir(home, repoKey), "records", `${name}.json`);
}

/** Reads the record of `name`, or undefined when there is none. */
export function readRecord(home: string, repoKey: string, name: string): WorktreeRecord | undefined {
  let text: string;
  try {
    text = readFileSync(recordPath(home, repoKey, name), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const record = JSON.parse(text) as WorktreeRecord;
  if (record.schema !== WORKTREE_RECORD_SCHEMA) {
    throw new SeatError(
      "WORKTREE_RECORD_CORRUPT",
      `The worktree record of "${name}" has schema ${String(record.schema)}, not ${WORKTREE_RECORD_SCHEMA}.`,
      { context: { name, path: recordPath(home, repoKey, name) } },
    );
  }
  return record;
}

/** Writes `record` whole (temp file, then rename). */
export function writeRecord(home: string, record: WorktreeRecord): void {
  const path = recordPath(home, record.repo_key, record.name);
  mkdirSync(join(repoDir(home, record.repo_key), "records"), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

/** Deletes the record of `name` (nothing when there is none). */
export function deleteRecord(home: string, repoKey: string, name: string): void {
  rmSync(recordPath(home, repoKey, name), { force: true });
}

/** Every record of one repository, by name. */
export function listRecords(home: string, repoKey: string): WorktreeRecord[] {
  let files: string[];
  try {
    files = readdirSync(join(repoDir(home, repoKey), "records"));
  } catch {
    return [];
  }
  return files
    .filter((f) => f.endsWith(".json"))
    .map((f) => readRecord(home, repoKey, f.slice(0, -".json".length)))
    .filter((r): r is WorktreeRecord => r !== undefined)
    .sort((a, b) => a.name.localeCompare(b.name));
}
