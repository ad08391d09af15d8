/*
 * /proc text parsers: pure functions over the text of /proc/<pid>/stat, /proc/<pid>/status,
 *   /proc/net/unix and /proc/stat.
 * Owns: field positions and the comm-with-parentheses rule.
 * Does not own: reading files (linux.ts) or judging identities (prove.ts).
 * Invariant: input that does not have the documented shape yields null, never a guessed value.
 * Spec: proc(5); grok-wire.md §14 (identity proof sources)
 */

/** The fields of /proc/<pid>/stat that identity needs. `startTicks` is field 22, clock ticks since boot. */
export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  pgid: number;
  sid: number;
  ttyNr: number;
  startTicks: string;
}

/**
 * Parses /proc/<pid>/stat. comm (field 2) may contain spaces and parentheses, so the remaining
 * fields are split after the LAST ')'.
 */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text.slice(close + 1).trim().split(/\s+/);
  // rest[0] is field 3 (state); field N is rest[N - 3].
  if (!Number.isInteger(pid) || rest.length < 20) return null;
  const field = (n: number) => rest[n - 3]!;
  const ints = [4, 5, 6, 7].map((n) => Number(field(n)));
  if (ints.some((v) => !Number.isInteger(v)) || !/^\d+$/.test(field(22))) return null;
  return {
    pid,
    comm: text.slice(open + 1, close),
    state: field(3),
    ppid: ints[0]!,
    pgid: ints[1]!,
    sid: ints[2]!,
    ttyNr: ints[3]!,
    startTicks: field(22),
  };
}

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
const ROW = /^\s*[0-9a-fA-F]+:\s+[0-9a-fA-F]+\s+[0-9a-fA-F]+\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+([0-9a-fA-F]+)\s+(\d+)(?: (.*))?$/;

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
