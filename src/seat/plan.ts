/*
 * Hire plan: everything a visible hire will do, decided before anything is launched.
 * Owns: the fresh session UUID, the private socket path (<fresh 0700 dir>/s, short for sun_path,
 *   outside $GROK_HOME), the TUI argv (executed directly) and its explicit environment.
 * Does not own: launching (mux/), proving (proof.ts) or attaching (hire.ts).
 * Invariant: the argv never carries a brief, never starts `grok agent … stdio`, and the TUI's stderr is
 *   never redirected; env is an explicit allow-list plus GROK_DISABLE_AUTOUPDATER=1. The plan holds
 *   secret values only in `env`, which travels to the pane through a process environment (mux/); every
 *   serialised copy of a plan goes through redact() (internal/redact.ts).
 * Spec: ADR 0224 (Decision); grok-wire.md §13 step 1; docs/seat-protocol.md#hire
 */
import { randomBytes, randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import { SeatError } from "../errors.js";
import { privateDirProblem } from "../internal/private-dir.js";
import { markSecretNames, registerSecrets } from "../internal/redact.js";
import { VERIFIED_VERSION_FLOOR } from "./admission.js";
import { MAX_SOCKET_PATH_BYTES } from "../internal/socket-path.js";

/** The longest socket path we accept (Linux sun_path is 108 bytes, macOS 104, minus a margin). */
export { MAX_SOCKET_PATH_BYTES };

/** Environment names copied into the TUI's env when set (nothing else of the caller leaks in). */
export const TUI_ENV_ALLOW_LIST = [
  "HOME",
  "GROK_HOME",
  "PATH",
  "TERM",
  "COLORTERM",
  "LANG",
  "LC_ALL",
  "XAI_API_KEY",
  "GROK_TELEMETRY_ENABLED",
  "TZ",
] as const;

/** Inputs of a plan. */
export interface PlanInput {
  grokBinary: string;
  /** Arguments before grok's own flags (an interpreter's script; empty for the real binary). */
  binaryArgs?: string[];
  cwd: string;
  /** Where HOME, GROK_HOME, PATH, TERM… are read from. */
  env: NodeJS.ProcessEnv;
  mux: "tmux" | "herdr";
  seatId?: string;
  model?: string;
  effort?: string;
  versionFloor?: string;
  /**
   * Restore: the grok session to continue (`--resume <id>` instead of a fresh `--session-id`), for a seat whose
   * TUI a reboot took (seat restore).
   */
  resumeSessionId?: string;
  /** Parent of the fresh socket directory (default: os.tmpdir()). */
  socketRoot?: string;
  /** More variable names the embedder marks secret: copied into the TUI env when set, masked everywhere. */
  secretEnvNames?: readonly string[];
}

/** A hire plan; `socketDir` is null until createSocketDir made it (dry runs never do). */
export interface HirePlan {
  seatId: string;
  sessionId: string;
  cwd: string;
  home: string;
  grokHome: string;
  grokBinary: string;
  argv: string[];
  env: Record<string, string>;
  socketRoot: string;
  socketDir: string | null;
  socketPath: string | null;
  mux: "tmux" | "herdr";
  model: string | null;
  effort: string | null;
  versionFloor: string;
}

/** A fresh seat id: `gs-` and 8 hex digits. */
export function newSeatId(): string {
  return `gs-${randomBytes(4).toString("hex")}`;
}

/**
 * The explicit environment of the TUI: allow-listed names (plus `secretEnvNames`) from `env`, GROK_HOME
 * defaulted, TERM defaulted, auto-update off. Secret values in it are registered for redaction.
 */
export function buildTuiEnv(env: NodeJS.ProcessEnv, secretEnvNames: readonly string[] = []): Record<string, string> {
  const home = env.HOME;
  if (!home || !isAbsolute(home))
    throw new SeatError("SEAT_USER_HOME_INVALID", "HOME must be an absolute path to hire a visible seat.", {
      context: { home },
    });
  markSecretNames(secretEnvNames);
  const out: Record<string, string> = {};
  for (const name of [...TUI_ENV_ALLOW_LIST, ...secretEnvNames])
    if (typeof env[name] === "string" && env[name] !== "") out[name] = env[name]!;
  out.GROK_HOME ??= join(home, ".grok");
  out.PATH ??= "/usr/bin:/bin";
  out.TERM ??= "xterm-256color";
  out.GROK_DISABLE_AUTOUPDATER = "1";
  return registerSecrets(out);
}

/** Builds the plan (no side effects); call createSocketDir before launching. */
export function buildHirePlan(input: PlanInput): HirePlan {
  const env = buildTuiEnv(input.env, input.secretEnvNames);
  const sessionId = input.resumeSessionId ?? randomUUID();
  const cwd = resolve(input.cwd);
  return {
    seatId: input.seatId ?? newSeatId(),
    sessionId,
    cwd,
    home: env.HOME!,
    grokHome: resolve(env.GROK_HOME!),
    grokBinary: input.grokBinary,
    argv: [
      input.grokBinary,
      ...(input.binaryArgs ?? []),
      "--leader",
      "--leader-socket",
      "<socket>",
      input.resumeSessionId !== undefined ? "--resume" : "--session-id",
      sessionId,
    ],
    env,
    socketRoot: resolve(input.socketRoot ?? tmpdir()),
    socketDir: null,
    socketPath: null,
    mux: input.mux,
    model: input.model ?? null,
    effort: input.effort ?? null,
    versionFloor: input.versionFloor ?? VERIFIED_VERSION_FLOOR,
  };
}

function isInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * Creates the private socket directory (fresh, 0700, ours) and fills in socketDir, socketPath and the
 * argv. Throws SEAT_SOCKET_UNUSABLE (after removing the directory it made) when the path is too long for sun_path
 * or lies inside $GROK_HOME.
 */
export function createSocketDir(plan: HirePlan): HirePlan {
  const dir = mkdtempSync(join(plan.socketRoot, "gs-"));
  chmodSync(dir, 0o700);
  const socketPath = join(dir, "s");
  // The directory was created empty just above; a non-recursive rmdir can remove nothing else.
  const refuse = (why: string) => (
    rmdirSync(dir),
    new SeatError(
      "SEAT_SOCKET_UNUSABLE",
      `The private leader socket ${socketPath} ${why}. Choose another socket root (TMPDIR).`,
      { context: { socketPath, grokHome: plan.grokHome } },
    )
  );
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES)
    throw refuse(`is longer than ${MAX_SOCKET_PATH_BYTES} bytes (sun_path)`);
  // grok's policy-disabled leader mode kills reachable leaders it finds in $GROK_HOME (grok-wire §12.1).
  if (isInside(dir, plan.grokHome)) throw refuse("lies inside $GROK_HOME, where grok may stop leaders it finds");
  const problem = privateDirProblem(dir);
  if (problem) throw refuse(`has a directory that is not private (${problem})`);
  return { ...plan, socketDir: dir, socketPath, argv: plan.argv.map((a) => (a === "<socket>" ? socketPath : a)) };
}
