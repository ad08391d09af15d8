/*
 * macOS identity source: the IdentitySource for darwin, from `ps` and `lsof` run without a shell.
 * Owns: the argv of each command, its environment (LC_ALL=C, TZ=UTC), timeouts, the default execFile
 *   runner, and mapping the parsed output (macos.ts) into the shared ProcessIdentity shape.
 * Does not own: parsing (macos.ts), verdicts (prove.ts), picking the platform (source.ts).
 * Invariant: a fact a command did not give is null; a command that failed, timed out or printed something
 *   unexpected makes readIdentity reject (→ unknown), never resolve a default. Births are whole seconds.
 * Spec: ps(1) lstart, lsof(8) "OUTPUT FOR OTHER PROGRAMS" and exit status; docs/seat-protocol.md#macos
 */
import { execFile } from "node:child_process";
import { SeatError } from "../errors.js";
import type { ProcessIdentity } from "./linux.js";
import { lsofHoldsSocketPath, parseLsofCwd, parseLsofExe, parseLsofFields, parsePsLine } from "./macos.js";
import type { IdentitySource, SocketHolderCheck } from "./source.js";
import { check } from "./verdict.js";

/** What one command run produced; a runner resolves this and never rejects. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  /** Exit status, or null when killed by a signal or never started. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Why the command could not start or was cut off (e.g. "ENOENT"), else null. */
  spawnError: string | null;
}

/** Runs `file` with `args` (no shell) in `env`, killing it after `timeoutMs`. */
export type CommandRunner = (
  file: string,
  args: readonly string[],
  options: { timeoutMs: number; env: NodeJS.ProcessEnv },
) => Promise<CommandResult>;

/** Absolute paths so a PATH entry cannot stand in for the system tools. */
export const PS_PATH = "/bin/ps";
/** Absolute path of lsof on macOS. */
export const LSOF_PATH = "/usr/sbin/lsof";
/** Columns asked of ps; `ruid` and `uid` (effective) are both compared, like /proc/<pid>/status Uid. */
export const PS_COLUMNS = "pid=,ppid=,ruid=,uid=,lstart=,tty=,comm=";
const DEFAULT_TIMEOUT_MS = 5000;
const MAX_BUFFER_BYTES = 4 * 1024 * 1024;

/** The default runner: child_process.execFile, no shell, SIGKILL on timeout, output capped at 4 MiB. */
export const execFileRunner: CommandRunner = (file, args, options) =>
  new Promise((resolve) => {
    execFile(
      file,
      [...args],
      {
        env: options.env,
        timeout: options.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: MAX_BUFFER_BYTES,
        encoding: "utf8",
      },
      (error, stdout, stderr) => {
        const err = error as
          | (NodeJS.ErrnoException & { killed?: boolean; signal?: NodeJS.Signals | null; code?: number | string })
          | null;
        const exitCode = err === null ? 0 : typeof err.code === "number" ? err.code : null;
        const signal = err?.signal ?? null;
        resolve({
          stdout: String(stdout),
          stderr: String(stderr),
          exitCode,
          signal,
          // execFile marks its own timeout kill as `killed` with our killSignal.
          timedOut: err?.killed === true && signal === "SIGKILL",
          spawnError: err !== null && typeof err.code === "string" ? err.code : null,
        });
      },
    );
  });

function commandLine(file: string, args: readonly string[]): string {
  return [file, ...args].join(" ");
}

function describeFailure(file: string, args: readonly string[], result: CommandResult, timeoutMs: number): string {
  const cmd = `\`${commandLine(file, args)}\``;
  if (result.timedOut) return `${cmd} timed out after ${timeoutMs} ms`;
  if (result.spawnError !== null) return `${cmd} could not run (${result.spawnError})`;
  const how = result.signal !== null ? `was killed by ${result.signal}` : `exited ${result.exitCode}`;
  const tail = result.stderr.trim().split("\n").slice(-3).join(" | ");
  return `${cmd} ${how}${tail ? `: ${tail}` : ""}`;
}

function failure(message: string, file: string, args: readonly string[], result: CommandResult): SeatError {
  return new SeatError("IDENTITY_UNKNOWN", `${message}. Nothing is authorized on unknown identity; retry the proof.`, {
    context: {
      command: commandLine(file, args),
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      stderrTail: result.stderr.slice(-500),
    },
    retryable: true,
  });
}

/** Exit 1 with nothing on stdout or stderr is how ps and lsof say "nothing matched" (not an error). */
function matchedNothing(result: CommandResult): boolean {
  return result.exitCode === 1 && result.stdout.trim() === "" && result.stderr.trim() === "";
}

/** Whether a run finished normally enough for its stdout to be complete (lsof exits 1 when a search item is absent). */
function completed(result: CommandResult): boolean {
  return !result.timedOut && result.spawnError === null && (result.exitCode === 0 || result.exitCode === 1);
}

/**
 * The macOS IdentitySource. exe is the first `txt` file of `lsof -d txt` (vnode path, symlinks resolved,
 * like /proc/<pid>/exe), not `ps comm` (the path as invoked). There is no socket inode (always null), and
 * lsof cannot tell a listening socket from an accepted one bound at the same path.
 */
export function macosSource(run: CommandRunner = execFileRunner, options: { timeoutMs?: number } = {}): IdentitySource {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // C-locale lstart in UTC: the birth string does not move when the user's time zone or DST does.
  const env: NodeJS.ProcessEnv = { ...process.env, LC_ALL: "C", TZ: "UTC" };
  const exec = (file: string, args: string[]) => run(file, args, { timeoutMs, env });

  async function readIdentity(pid: number): Promise<ProcessIdentity | null> {
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const psArgs = ["-o", PS_COLUMNS, "-p", String(pid)];
    const lsofArgs = ["-n", "-P", "-w", "-a", "-p", String(pid), "-d", "cwd,txt", "-Fn"];
    const [ps, files] = await Promise.all([exec(PS_PATH, psArgs), exec(LSOF_PATH, lsofArgs)]);
    if (ps.exitCode !== 0) {
      if (matchedNothing(ps)) return null;
      throw failure(
        `ps could not report pid ${pid}: ${describeFailure(PS_PATH, psArgs, ps, timeoutMs)}`,
        PS_PATH,
        psArgs,
        ps,
      );
    }
    const line = parsePsLine(ps.stdout);
    if (line === null || line.pid !== pid) {
      throw failure(
        `ps printed a line for pid ${pid} that does not fit ${PS_COLUMNS}: ${JSON.stringify(ps.stdout.slice(0, 200))}`,
        PS_PATH,
        psArgs,
        ps,
      );
    }
    // A failed lsof leaves exe and cwd null, which compare as unknown.
    const text = completed(files) ? files.stdout : "";
    return {
      pid,
      ppid: line.ppid,
      pgid: null,
      sid: null,
      comm: line.comm,
      birth: line.birth,
      birthResolution: "seconds",
      startedAtMs: Date.parse(`${line.birth}Z`),
      exe: parseLsofExe(text, pid),
      cwd: parseLsofCwd(text, pid),
      uid: line.ruid === null ? null : { real: line.ruid, effective: line.uid },
      ttyNr: null,
      tty: line.tty === null ? null : `/dev/${line.tty}`,
    };
  }

  async function checkSocketHolder(pid: number, socketPath: string): Promise<SocketHolderCheck> {
    const args = ["-n", "-P", "-w", "-a", "-p", String(pid), "-U", "-Fn"];
    const result = await exec(LSOF_PATH, args);
    const unknown = (why: string) => ({
      check: check("socket-holder", "unknown", `socket-holder: ${why}`),
      inode: null,
    });
    const mismatch = (why: string) => ({
      check: check("socket-holder", "mismatch", `socket-holder: ${why}`),
      inode: null,
    });
    if (matchedNothing(result))
      return mismatch(`lsof lists no unix socket for pid ${pid}, so it does not hold ${socketPath}`);
    if (result.exitCode !== 0 || !completed(result))
      return unknown(describeFailure(LSOF_PATH, args, result, timeoutMs));
    if (lsofHoldsSocketPath(result.stdout, pid, socketPath)) {
      return {
        check: check(
          "socket-holder",
          "match",
          `socket-holder: pid ${pid} holds a unix socket bound at ${socketPath} (lsof)`,
        ),
        inode: null,
      };
    }
    const count = parseLsofFields(result.stdout).filter((f) => f.pid === pid).length;
    return mismatch(`pid ${pid} holds ${count} unix socket(s), none bound at ${socketPath}`);
  }

  return { platform: "darwin", readIdentity, checkSocketHolder };
}
