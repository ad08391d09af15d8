/*
 * /proc text parsers: pure functions over the text of /proc/<pid>/stat, /proc/<pid>/status,
 *   /proc/net/unix and /proc/stat.
 * Owns: field positions of status, net/unix and stat; the stat line parser itself lives in
 *   internal/proc-stat.ts (grok/ uses it too) and is re-exported here.
 * Does not own: reading files (linux.ts) or judging identities (prove.ts).
 * Invariant: input that does not have the documented shape yields null, never a guessed value.
 * Spec: proc(5); grok-wire.md §14 (identity proof sources)
 */

export { parseProcStat } from "../internal/proc-stat.js";
export type { ProcStat } from "../internal/proc-stat.js";

/** Real and effective uid from the `Uid:` line of /proc/<pid>/status. */
export function parseStatusUids(text: string): { real: number; effective: number } | null {
  const match = /^Uid:\s+(\d+)\s+(\d+)/m.exec(text);
  return match ? { real: Number(match[1]), effective: Number(match[2]) } : null;
}

/** Boot time in seconds since the epoch from the `btime` line of /proc/stat. */
export function parseBootTime(text: string): number | null {
  const match = /^btime\s+(\d+)$/m.exec(text);
  return match ? Number(match[1]) : null;
}

/** One row of /proc/net/unix. */
export interface UnixSocketRow {
  inode: number;
  flags: number;
  type: number;
  state: number;
  path: string | null;
  /** True for a listening socket (flag __SO_ACCEPTCON, 0x10000). */
  listening: boolean;
}

const SO_ACCEPTCON = 0x10000;
const ROW =
  /^\s*[0-9a-fA-F]+:\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+(\d+)(?: (.*))?$/;

/** Parses /proc/net/unix; rows that do not match the documented layout are skipped. */
export function parseNetUnix(text: string): UnixSocketRow[] {
  const rows: UnixSocketRow[] = [];
  for (const line of text.split("\n").slice(1)) {
    const m = ROW.exec(line);
    if (!m) continue;
    const flags = parseInt(m[1]!, 16);
    rows.push({
      flags,
      type: parseInt(m[2]!, 16),
      state: parseInt(m[3]!, 16),
      inode: Number(m[4]),
      path: m[5] === undefined || m[5] === "" ? null : m[5],
      listening: (flags & SO_ACCEPTCON) !== 0,
    });
  }
  return rows;
}

/** The socket inode of an fd link target such as `socket:[12345]`, or null. */
export function socketInodeOfLink(target: string): number | null {
  const m = /^socket:\[(\d+)\]$/.exec(target);
  return m ? Number(m[1]) : null;
}
