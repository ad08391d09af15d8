/*
 * tmux backend: visible panes on a private tmux server (`tmux -L <socketName> -f /dev/null`).
 * Owns: the tmux command lines for launch / liveness / capture / attach / close, and their errors.
 * Does not own: the user's own tmux server (never touched), or what runs in the pane.
 * Invariant: no environment value is ever on an argv. The launch commands reach the server as a script
 *   on the tmux client's stdin (`tmux start-server ; source-file -`): `new-session -e K=V…` hands the pane
 *   its environment, and `set-environment -u` in the same script drops those values from the session at
 *   once, so `show-environment` never shows them and no later pane inherits them. The pane runs
 *   `env -u <every other name> -- argv…`, so the program's environment is exactly spec.env (the server's
 *   global env, TMUX, TMUX_PANE, TERM_PROGRAM… do not leak in); `env` execs, so the pane pid is the argv
 *   program's pid. Every tmux client runs with a minimal allow-listed environment (tmuxClientEnv), so a
 *   server it starts holds no secret either. Exit is observable because the window has remain-on-exit on.
 * Spec: docs/seat-protocol.md#secrets
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import { SeatError } from "../errors.js";
import { isSecretName, registerSecrets } from "../internal/redact.js";
import {
  type Backend,
  type LaunchSpec,
  type PaneDescriptor,
  type WaitOptions,
  pollForExit,
  tailOf,
} from "./backend.js";

/** Options for a TmuxBackend. */
export interface TmuxBackendOptions {
  /** Name of the private tmux server socket (`tmux -L`); default "grok-seat". */
  socketName?: string;
  /** The tmux executable; default "tmux" on PATH. */
  tmuxBin?: string;
}

interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The only caller variables a tmux client (and so a server it starts) receives. */
export const TMUX_CLIENT_ENV_ALLOW_LIST = ["PATH", "HOME", "TMUX_TMPDIR", "LANG", "LC_ALL", "LC_CTYPE", "TZ"] as const;

/** Variables tmux 3.x adds to a pane's environment beyond the server's global and the session's. */
const TMUX_PANE_ADDED = [
  "TMUX",
  "TMUX_PANE",
  "TERM",
  "TERM_PROGRAM",
  "TERM_PROGRAM_VERSION",
  "SHELL",
  "PWD",
  "COLORTERM",
];

/** The explicit environment of a tmux client: the allow-list read from `env`, nothing else. */
export function tmuxClientEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of TMUX_CLIENT_ENV_ALLOW_LIST)
    if (typeof env[name] === "string" && env[name] !== "") out[name] = env[name]!;
  out.PATH ??= "/usr/bin:/bin";
  return out;
}

/** One tmux command-language word: double-quoted, with `\ " $` and line breaks escaped (no expansion). */
export function tmuxWord(word: string): string {
  return `"${word.replace(/[\\"$\n\r\t]/g, (c) => ({ "\\": "\\\\", '"': '\\"', $: "\\$", "\n": "\\n", "\r": "\\r", "\t": "\\t" })[c]!)}"`;
}

// "server exited unexpectedly": the client reached a server that exited before it answered (it was going away).
const NO_SERVER =
  /no server running|can't find (session|pane|window)|error connecting to|No such file or directory|server exited unexpectedly/i;

/** A Backend that hosts panes on a private tmux server; tmux 3.x. */
export class TmuxBackend implements Backend {
  readonly name = "tmux" as const;
  readonly socketName: string;
  private readonly tmuxBin: string;
  private socketPath: string | undefined;

  constructor(options: TmuxBackendOptions = {}) {
    this.socketName = options.socketName ?? "grok-seat";
    this.tmuxBin = options.tmuxBin ?? "tmux";
  }

  /** Start argv in a new detached session; the descriptor's pid is the argv program's. */
  async launch(spec: LaunchSpec): Promise<PaneDescriptor> {
    if (spec.argv.length === 0)
      throw new SeatError("MUX_COMMAND_FAILED", "Cannot launch an empty argv in tmux.", {
        context: { argv: spec.argv },
      });
    const sessionName = `${sanitize(spec.label ?? "seat")}-${randomBytes(4).toString("hex")}`;
    registerSecrets(spec.env); // whatever fails below is reported without these values
    const names = Object.keys(spec.env);
    for (const [key, value] of Object.entries(spec.env)) {
      // Control characters other than tab and line breaks have no escape in tmux's command language.
      if (key === "" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || /[\0-\x08\x0b\x0c\x0e-\x1f\x7f]/.test(value)) {
        throw new SeatError(
          "MUX_COMMAND_FAILED",
          `Environment variable ${JSON.stringify(key)} cannot be passed to a tmux pane (bad name or a control character in its value).`,
          { context: { key } },
        );
      }
    }
    // More than one word after `--` makes tmux exec directly instead of via `sh -c`. env's own `--` ends its
    // options; an argv[0] containing "=" would be read as an assignment (not supported).
    if (spec.argv[0]!.includes("="))
      throw new SeatError("MUX_COMMAND_FAILED", "argv[0] may not contain '=' in a tmux pane.", {
        context: { argv: spec.argv },
      });
    // What the pane would inherit beyond spec.env: the server's global environment and tmux's own additions.
    const inherited = new Set([...(await this.globalEnvNames()), ...TMUX_PANE_ADDED]);
    const unset = [...inherited].filter((name) => !names.includes(name)).sort();
    // tmux sets TERM (and its own TMUX* names) after applying -e, so those go on env's argv: never a secret.
    const overridden = names.filter((name) => TMUX_PANE_ADDED.includes(name));
    const secretOverride = overridden.find((name) => isSecretName(name));
    if (secretOverride)
      throw new SeatError(
        "MUX_COMMAND_FAILED",
        `${secretOverride} is marked secret but tmux overrides it in a pane; it cannot be passed.`,
        { context: { key: secretOverride } },
      );
    const program = [
      "env",
      ...unset.flatMap((name) => ["-u", name]),
      "--",
      ...overridden.map((name) => `${name}=${spec.env[name]}`),
      ...spec.argv,
    ];
    const format = "#{pane_id} #{pane_pid} #{pane_tty} #{socket_path}";
    const script = [
      // Set globally (the server is private) BEFORE the pane exists: setting it on the new window afterwards
      // races a program that exits at once.
      "set-option -g remain-on-exit on",
      [
        "new-session",
        "-d",
        "-P",
        "-F",
        format,
        "-s",
        sessionName,
        "-x",
        String(spec.cols ?? 160),
        "-y",
        String(spec.rows ?? 45),
        "-c",
        spec.cwd,
        ...names.filter((name) => !overridden.includes(name)).flatMap((name) => ["-e", `${name}=${spec.env[name]}`]),
        "--",
        ...program,
      ]
        .map(tmuxWord)
        .join(" "),
      // The pane has its environment now; the session keeps none of it (show-environment, later panes).
      ...names
        .filter((name) => !overridden.includes(name))
        .map((name) => ["set-environment", "-t", sessionName, "-u", name].map(tmuxWord).join(" ")),
    ].join("\n");
    const { stdout } = await this.run(["start-server", ";", "source-file", "-"], `${script}\n`);
    const [paneId, pidText, tty, ...socketWords] = stdout.trim().split(" ");
    if (socketWords.length > 0) this.socketPath = socketWords.join(" ");
    const pid = Number(pidText);
    if (!paneId?.startsWith("%") || !Number.isInteger(pid) || pid <= 0) {
      throw new SeatError(
        "MUX_COMMAND_FAILED",
        `tmux new-session printed ${JSON.stringify(stdout.trim())}, not "<pane_id> <pane_pid> <tty>".`,
        {
          context: { command: "tmux new-session", stdout },
        },
      );
    }
    return { backend: "tmux", paneId, sessionName, server: this.socketName, pid, ...(tty ? { terminal: tty } : {}) };
  }

  /** True while the pane exists, is not dead, and still shows the launched pid. */
  async isAlive(pane: PaneDescriptor): Promise<boolean> {
    const state = await this.paneState(pane);
    return state !== undefined && !state.dead && state.pid === pane.pid;
  }

  /**
   * Exit status of a dead pane (remain-on-exit), or undefined while it runs, before tmux has reaped it, or once
   * it is gone. Best effort: tmux 3.3a was seen (about 1 in 12 under load) to mark a pane dead and never record
   * its status, so undefined after exit means "not recorded", never "succeeded".
   */
  async exitStatus(pane: PaneDescriptor): Promise<number | undefined> {
    const state = await this.paneState(pane);
    return state?.dead ? state.status : undefined;
  }

  /** Poll `#{pane_dead}` until the program exits or the timeout passes. */
  waitForExit(pane: PaneDescriptor, options: WaitOptions): Promise<"exited" | "timeout"> {
    return pollForExit(async () => !(await this.isAlive(pane)), options);
  }

  /** The visible screen of the pane as plain text (`capture-pane -p`). */
  async capture(pane: PaneDescriptor): Promise<string> {
    const { stdout } = await this.run(["capture-pane", "-p", "-t", pane.paneId]);
    return stdout;
  }

  /** `tmux -L <socket> attach-session -t <session>`. */
  attachCommand(pane: PaneDescriptor): string[] {
    return [
      this.tmuxBin,
      "-L",
      pane.server ?? this.socketName,
      "attach-session",
      "-t",
      pane.sessionName ?? pane.paneId,
    ];
  }

  /** Kill the pane's session (SIGHUP to its program); resolves if it is already gone. */
  async close(pane: PaneDescriptor): Promise<void> {
    const target = pane.sessionName ?? pane.paneId;
    const result = await this.exec(["kill-session", "-t", target]);
    if (result.exitCode !== 0 && !NO_SERVER.test(result.stderr))
      throw this.failure(["kill-session", "-t", target], result);
    // The socket file of a server that exited with its last session is left for killServer: removing it here
    // could race a concurrent launch that is starting a fresh server on the same name.
  }

  /** Kill the whole private server and remove its socket file (tests and shutdown); resolves if none is running. */
  async killServer(): Promise<void> {
    if (!this.socketPath) {
      const where = await this.exec(["display-message", "-p", "#{socket_path}"]);
      if (where.exitCode === 0 && where.stdout.trim()) this.socketPath = where.stdout.trim();
    }
    const result = await this.exec(["kill-server"]);
    if (result.exitCode !== 0 && !NO_SERVER.test(result.stderr)) throw this.failure(["kill-server"], result);
    // tmux 3.3 leaves its socket file behind when the server exits; the server is going away (or gone), so
    // remove the file. Do not launch on this backend concurrently with killServer.
    if (this.socketPath) await rm(this.socketPath, { force: true });
  }

  private async paneState(pane: PaneDescriptor): Promise<{ dead: boolean; status?: number; pid: number } | undefined> {
    const args = [
      "display-message",
      "-p",
      "-t",
      pane.paneId,
      "#{pane_id} #{pane_dead} #{pane_dead_status} #{pane_pid}",
    ];
    const result = await this.exec(args);
    if (result.exitCode !== 0) {
      if (NO_SERVER.test(result.stderr)) return undefined;
      throw this.failure(args, result);
    }
    const [id, dead, status, pid] = result.stdout.trim().split(" ");
    if (id !== pane.paneId) return undefined;
    // pane_dead flips when the pty closes; pane_dead_status stays empty until tmux has reaped the child.
    return { dead: dead === "1", ...(status ? { status: Number(status) } : {}), pid: Number(pid) };
  }

  /**
   * Names in the server's global environment. When no server runs, the launch starts one from this client's
   * minimal env (tmuxClientEnv), so those are the names. The server is never started just to ask: an empty
   * server exits at once, and the launch that follows could connect to it while it dies.
   */
  private async globalEnvNames(): Promise<string[]> {
    const result = await this.exec(["show-environment", "-g"]);
    if (result.exitCode !== 0 && NO_SERVER.test(result.stderr)) return Object.keys(tmuxClientEnv());
    if (result.exitCode !== 0) throw this.failure(["show-environment", "-g"], result);
    const { stdout } = result;
    return stdout
      .split("\n")
      .map((line) => line.match(/^-?([A-Za-z_][A-Za-z0-9_]*)(=|$)/)?.[1])
      .filter((name): name is string => !!name);
  }

  private async run(args: string[], stdin?: string): Promise<RunResult> {
    const result = await this.exec(args, stdin);
    if (result.exitCode !== 0) throw this.failure(args, result);
    return result;
  }

  private failure(args: string[], result: RunResult): SeatError {
    const command = [this.tmuxBin, "-L", this.socketName, ...args].join(" ");
    return new SeatError(
      "MUX_COMMAND_FAILED",
      `${command} exited with ${result.exitCode}: ${tailOf(result.stderr, 300) || "(no stderr)"}. Check the tmux server "${this.socketName}".`,
      {
        context: { command, exitCode: result.exitCode, stderrTail: tailOf(result.stderr) },
      },
    );
  }

  private exec(args: string[], stdin?: string): Promise<RunResult> {
    // An explicit minimal env: no caller secret, and no TMUX to redirect or refuse us (-L names our server).
    const env = tmuxClientEnv();
    const fullArgs = ["-L", this.socketName, "-f", "/dev/null", ...args];
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.tmuxBin,
        fullArgs,
        { env, maxBuffer: 16 * 1024 * 1024, timeout: 15_000 },
        (error, stdout, stderr) => {
          const code = (error as NodeJS.ErrnoException | null)?.code;
          if (code === "ENOENT") {
            reject(
              new SeatError(
                "MUX_UNAVAILABLE",
                `tmux (${this.tmuxBin}) is not installed or not on PATH. Install tmux 3.x or choose another backend.`,
                {
                  context: { command: this.tmuxBin },
                  cause: error,
                },
              ),
            );
            return;
          }
          // A numeric code is tmux's exit status; anything else (timeout, maxBuffer, signal) counts as 1.
          const exitCode = !error
            ? 0
            : typeof (error as { code?: unknown }).code === "number"
              ? (error as { code: number }).code
              : 1;
          resolve({
            stdout: String(stdout),
            stderr: String(stderr) + (error && exitCode === 1 && !stderr ? error.message : ""),
            exitCode,
          });
        },
      );
      child.stdin?.on("error", () => {}); // tmux may exit before reading all of it; the exit status tells
      child.stdin?.end(stdin ?? "");
    });
  }
}

/** True when the tmux executable can be run (`tmux -V`). */
export function isTmuxAvailable(tmuxBin = "tmux"): Promise<boolean> {
  return new Promise((resolve) => execFile(tmuxBin, ["-V"], { timeout: 5000 }, (error) => resolve(!error)));
}

function sanitize(label: string): string {
  // tmux session names may not contain ':' or '.'; keep them short and shell-friendly.
  return label.replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 40) || "seat";
}
