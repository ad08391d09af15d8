/*
 * /proc/<pid>/stat parsing, shared by grok/ (process trees) and identity/ (process proofs).
 * Owns: the field positions and the comm-with-parentheses rule.
 * Does not own: reading the file (callers do) or judging what the fields mean.
 * Invariant: text that does not have the documented shape yields null, never a guessed value.
 * Spec: proc(5)
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
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
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
