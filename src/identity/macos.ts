/*
 * macOS process identity: the same facts as linux.ts, parsed from recorded `ps` and `lsof` output.
 * Owns: pure parsers for `ps -o pid=,ppid=[,ruid=],uid=,lstart=,tty=,comm= -p PID`,
 *   `lsof -a -p PID -d cwd[,txt] -Fn` and `lsof [-a] -p PID -U -Fn`.
 * Does not own: running those commands (macos-source.ts) or verdicts over several facts (prove.ts).
 * Invariant: birth from `lstart` has one-second resolution (ps cannot show the microsecond start that
 *   proc_pidinfo has), so birthResolution is "seconds"; lstart is printed in the C locale format, in the
 *   TZ of the ps process (macos-source.ts runs it with TZ=UTC so a birth survives a time-zone change).
 * Spec: ps(1), lsof(8) "OUTPUT FOR OTHER PROGRAMS"; grok-wire.md §14, §17
 */

/** What `ps` and `lsof` tell us about one process on macOS; unreadable facts are null. */
export interface MacProcessIdentity {
  pid: number;
  ppid: number;
  /** Real uid when the `ruid` column was requested, else null. */
  ruid: number | null;
  /** Effective uid (BSD ps `uid`). */
  uid: number;
  /** `lstart` normalized to "YYYY-MM-DDTHH:MM:SS" local time; compare for equality only. */
  birth: string;
  birthResolution: "seconds";
  /** "ttys003" style, or null for "??" (no controlling terminal). */
  tty: string | null;
  /** `comm` as ps prints it (the executable path as started; not canonicalized). */
  comm: string;
  cwd: string | null;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
// The optional fourth number is `uid` after `ruid`; lstart always starts with a weekday, so this is unambiguous.
const PS_LINE =
  /^\s*(\d+)\s+(\d+)\s+(\d+)(?:\s+(\d+))?\s+[A-Z][a-z]{2}\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{2}:\d{2}:\d{2})\s+(\d{4})\s+(\S+)\s+(.+?)\s*$/;

/** Parses the single line of `ps -o pid=,ppid=[,ruid=],uid=,lstart=,tty=,comm= -p PID`; null if it does not fit. */
export function parsePsLine(text: string): Omit<MacProcessIdentity, "cwd"> | null {
  const line = text.split("\n").find((l) => l.trim() !== "");
  const m = line === undefined ? null : PS_LINE.exec(line);
  if (!m) return null;
  const month = MONTHS.indexOf(m[5]!);
  if (month < 0) return null;
  const birth = `${m[8]}-${String(month + 1).padStart(2, "0")}-${m[6]!.padStart(2, "0")}T${m[7]}`;
  return {
    pid: Number(m[1]),
    ppid: Number(m[2]),
    ruid: m[4] === undefined ? null : Number(m[3]),
    uid: Number(m[4] ?? m[3]),
    birth,
    birthResolution: "seconds",
    tty: m[9] === "??" ? null : m[9]!,
    comm: m[10]!,
  };
}

/** One file of an `lsof -F` listing: its fd field (`cwd`, `3`, ...) and name. */
export interface LsofFile {
  pid: number;
  fd: string;
  name: string;
}

/** Parses `lsof -F` field output (lines starting p, f, n; other fields are ignored). */
export function parseLsofFields(text: string): LsofFile[] {
  const files: LsofFile[] = [];
  let pid = -1;
  let fd: string | null = null;
  for (const line of text.split("\n")) {
    const tag = line[0];
    const value = line.slice(1);
    if (tag === "p") pid = Number(value);
    else if (tag === "f") fd = value;
    else if (tag === "n" && fd !== null) files.push({ pid, fd, name: value });
  }
  return files;
}

/** The cwd from `lsof -a -p PID -d cwd -Fn`, or null. */
export function parseLsofCwd(text: string, pid: number): string | null {
  return parseLsofFields(text).find((f) => f.pid === pid && f.fd === "cwd")?.name ?? null;
}

/**
 * The executable from `lsof -a -p PID -d txt -Fn`: the first `txt` file, or null. lsof lists the main
 * executable's text region before dyld and loaded images (an assumption not yet verified on a Mac).
 */
export function parseLsofExe(text: string, pid: number): string | null {
  return parseLsofFields(text).find((f) => f.pid === pid && f.fd === "txt")?.name ?? null;
}

/** macOS shows /var and /tmp paths under /private; compare without that prefix. */
function samePath(a: string, b: string): boolean {
  const strip = (p: string) => (p.startsWith("/private/") ? p.slice("/private".length) : p);
  return strip(a) === strip(b);
}

/**
 * Whether `lsof -p PID -U -Fn` shows PID holding a unix socket bound at `socketPath`
 * (connected ends read "->0x..." and never match). lsof output cannot tell listening from accepted.
 */
export function lsofHoldsSocketPath(text: string, pid: number, socketPath: string): boolean {
  return parseLsofFields(text).some((f) => f.pid === pid && samePath(f.name, socketPath));
}

/** Combines the recorded outputs into one identity; null when the ps line is missing or malformed. */
export function identityFromMacOutputs(
  pid: number,
  outputs: { ps: string; lsofCwd?: string },
): MacProcessIdentity | null {
  const ps = parsePsLine(outputs.ps);
  if (!ps || ps.pid !== pid) return null;
  return { ...ps, cwd: outputs.lsofCwd === undefined ? null : parseLsofCwd(outputs.lsofCwd, pid) };
}
