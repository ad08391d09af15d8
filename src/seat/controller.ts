/*
 * Seat controller: the one process per seat that holds the single leader connection across CLI calls.
 * Owns: running a hire, then serving `send`, `status`, `state` and `release` on a private unix control socket
 *   (<seat dir>/c.sock, directory 0700; one JSON request line → one JSON reply line), seat.json, the seat
 *   worktree's lock while it runs, and reporting the hire outcome to whoever started it.
 * Does not own: the hire and delivery rules (hire.ts, visible-seat.ts) or the CLI (cli/).
 * Invariant: "connect once" — when this process is gone nothing reconnects: send refuses and status
 *   reports from the journal. Secrets: hire.json names them (secretEnvNames) but never holds a value;
 *   the values come from this process's own environment, which `seat hire` builds explicitly
 *   (controllerEnv); every log line and seat.json write is redacted.
 * Spec: docs/seat-protocol.md#controller
 */
import { createServer, type Server, type Socket } from "node:net";
import { chmodSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SeatError, isSeatError, messageOf } from "../errors.js";
import { markSecretNames, redact, registerSecrets } from "../internal/redact.js";
import { platformIdentitySource } from "../identity/index.js";
import { openJournal, type DeliveryState } from "../journal/index.js";
import { HerdrBackend, TmuxBackend, type Backend } from "../mux/index.js";
import { assertBrief } from "./brief.js";
import { hireSeat, type HireSeatOptions } from "./hire.js";
import { MAX_SOCKET_PATH_BYTES } from "./plan.js";
import { ensurePrivateDir, journalPath, seatDir, writeSeatFile, type SeatFile } from "../home/index.js";
import type { VisibleSeat } from "./visible-seat.js";
import { commitSeatWorktree, lockSeatWorktree } from "./seat-worktree.js";
import { startSeatNotifier } from "./seat-notify.js";
import type { WorktreeLock, WorktreeRecord } from "../worktrees/index.js";

/** The controller's configuration, written by `seat hire` to <seat dir>/hire.json. */
export interface ControllerConfig {
  seatHome: string;
  seatId: string;
  grokBinary: string;
  binaryArgs?: string[];
  cwd: string;
  /** The TUI's environment without its secret values (see secretEnvNames). */
  env: Record<string, string>;
  /** Names whose values the controller takes from its own environment (never written to hire.json). */
  secretEnvNames?: string[];
  mux: "tmux" | "herdr";
  tmuxSocket?: string;
  herdrSocket?: string;
  model?: string;
  effort?: string;
  versionFloor?: string;
  readyTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** The seat worktree `cwd` is (`seat hire --worktree`): locked while this controller runs, committed at release. */
  worktree?: WorktreeRecord;
  /** Restore (seat restore): continue grok session `sessionId` in a new TUI; the journal row is reopened by CAS. */
  restore?: { sessionId: string; expectSocketPath: string };
  /**
   * The notification targets this seat tells (`seat hire --notify`), by name only: resolved against the user
   * config's `notify` section when the controller starts, their secrets from its own environment.
   */
  notify?: string[];
  /** Names of the variables the notify targets take their secrets from (values only in the controller's env). */
  notifySecretEnvNames?: string[];
  /** Test hook: the coalescing window of the seat's notifier (default notify/notifier.ts's). */
  notifyCoalesceMs?: number;
  /** Test hook: hold every delivery after its fence (writes <seat dir>/held-<promptId>) so a test can kill -9 here. */
  holdBeforeDispatch?: boolean;
}

/** One request on the control socket. */
export type ControlRequest =
  | { op: "send"; text: string; promptId?: string; wait?: DeliveryState; timeoutMs?: number }
  | { op: "status" }
  | { op: "state" }
  | { op: "release"; closePane?: boolean; exitTimeoutMs?: number };

/** The caller variables a controller process receives besides the seat's secrets (nothing else leaks in). */
export const CONTROLLER_ENV_ALLOW_LIST = [
  "PATH",
  "HOME",
  "TMPDIR",
  "TMUX_TMPDIR",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "GROK_SEAT_HOME",
  // Where the user config lives: a seat's controller reads the notify targets it names there.
  "XDG_CONFIG_HOME",
] as const;

/** The explicit environment of a seat's controller: the allow-list from `source` plus the given secret values. */
export function controllerEnv(source: NodeJS.ProcessEnv, secrets: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of CONTROLLER_ENV_ALLOW_LIST)
    if (typeof source[name] === "string" && source[name] !== "") out[name] = source[name]!;
  return { ...out, ...secrets };
}

/** The values `names` have in `source` (unset or empty ones left out): the notify targets' secrets for a controller's env. */
export function envValuesOf(source: NodeJS.ProcessEnv, names: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) if (typeof source[name] === "string" && source[name] !== "") out[name] = source[name]!;
  return out;
}

/** The TUI env of a config: its plain part plus the named secrets read from `source` (the controller's env). */
export function tuiEnvOf(config: ControllerConfig, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  markSecretNames(config.secretEnvNames);
  const env = { ...config.env };
  for (const name of config.secretEnvNames ?? [])
    if (typeof source[name] === "string" && source[name] !== "") env[name] = source[name]!;
  return registerSecrets(env);
}

/** The control socket of a seat directory. */
export function controlSocketPath(dir: string): string {
  return join(dir, "c.sock");
}

/** Builds the mux backend a config names. */
export function backendFor(mux: "tmux" | "herdr", options: { tmuxSocket?: string; herdrSocket?: string }): Backend {
  if (mux === "herdr") {
    if (!options.herdrSocket)
      throw new SeatError("MUX_UNAVAILABLE", "No Herdr socket: set HERDR_SOCKET_PATH or pass --herdr-socket.", {});
    return new HerdrBackend({ socketPath: options.herdrSocket });
  }
  return new TmuxBackend({ socketName: options.tmuxSocket ?? "grok-seat" });
}

function serialize(error: unknown): Record<string, unknown> {
  return isSeatError(error) ? error.toJSON() : { code: "INTERNAL", message: messageOf(error) };
}

/**
 * Runs one seat's controller: hires, reports `{type:"hired"|"refused"}` through `report`, serves the
 * control socket until release, then resolves. Never throws after the report.
 */
export async function runController(
  config: ControllerConfig,
  report: (line: Record<string, unknown>) => void,
  rawLog: (line: string) => void = () => {},
): Promise<number> {
  const env = tuiEnvOf(config);
  const log = (entry: Record<string, unknown>): void => rawLog(JSON.stringify(redact(entry)));
  const dir = seatDir(config.seatHome, config.seatId);
  ensurePrivateDir(config.seatHome);
  ensurePrivateDir(join(config.seatHome, "seats"));
  ensurePrivateDir(dir);
  const socketPath = controlSocketPath(dir);
  const self = await platformIdentitySource()
    .readIdentity(process.pid)
    .catch(() => null);
  const file: SeatFile = {
    schema: "grok-seat.seat.v1",
    seat_id: config.seatId,
    session_id: null,
    controller_pid: process.pid,
    controller_birth: self?.birth ?? null,
    control_socket: socketPath,
    grok_home: null,
    cwd: config.cwd,
    socket_dir: null,
    mux: config.mux,
    admission: null,
    selected: null,
    state: "hiring",
  };
  if (config.worktree) file.worktree = config.worktree;
  writeSeatFile(dir, file);
  const journal = openJournal(journalPath(config.seatHome));
  let seat: VisibleSeat;
  let worktreeLock: WorktreeLock | undefined;
  try {
    // Two seats never share a worktree: the lock is this controller's for as long as the seat runs.
    if (config.worktree) worktreeLock = lockSeatWorktree(config.seatHome, config.worktree, config.seatId);
    if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
      throw new SeatError(
        "SEAT_SOCKET_UNUSABLE",
        `The control socket ${socketPath} is longer than ${MAX_SOCKET_PATH_BYTES} bytes; choose a shorter GROK_SEAT_HOME.`,
        { context: { socketPath } },
      );
    }
    const options: HireSeatOptions = {
      grokBinary: config.grokBinary,
      binaryArgs: config.binaryArgs ?? [],
      cwd: config.cwd,
      env,
      mux: config.mux,
      seatId: config.seatId,
      ...(config.secretEnvNames ? { secretEnvNames: config.secretEnvNames } : {}),
      backend: backendFor(config.mux, config),
      journal,
      ...(config.model ? { model: config.model } : {}),
      ...(config.effort ? { effort: config.effort } : {}),
      ...(config.versionFloor ? { versionFloor: config.versionFloor } : {}),
      ...(config.restore
        ? { resumeSessionId: config.restore.sessionId, restore: { expectSocketPath: config.restore.expectSocketPath } }
        : {}),
      ...(config.readyTimeoutMs ? { readyTimeoutMs: config.readyTimeoutMs } : {}),
      ...(config.requestTimeoutMs ? { requestTimeoutMs: config.requestTimeoutMs } : {}),
      onStep: (step, detail) => log({ type: "step", step, detail }),
      onPlan: (plan) => {
        Object.assign(file, { session_id: plan.sessionId, grok_home: plan.grokHome, socket_dir: plan.socketDir });
        writeSeatFile(dir, file);
      },
      callbacks: { onEvent: (event) => log({ type: "event", event }) },
    };
    seat = await hireSeat(options);
  } catch (error) {
    worktreeLock?.release();
    Object.assign(file, { state: "refused", error: serialize(error) });
    writeSeatFile(dir, file);
    journal.close();
    report({ type: "refused", seatId: config.seatId, error: serialize(error) });
    return isSeatError(error) ? 6 : 1;
  }
  Object.assign(file, { state: "active", admission: seat.parts.admission, selected: seat.parts.selected });
  writeSeatFile(dir, file);
  const notifier = startSeatNotifier(config, seat, (line) => log({ type: "notify", detail: line }));

  return new Promise<number>((resolveRun) => {
    let releasing = false;
    const server: Server = createServer((socket) => handle(socket));
    const finish = (code: number) => {
      worktreeLock?.release();
      server.close();
      rmSync(socketPath, { force: true });
      // What the release told (or what was held by coalescing) goes out first, for at most 3 s.
      void notifier.close().finally(() => {
        journal.close();
        resolveRun(code);
      });
    };
    const handle = (socket: Socket) => {
      let buffer = "";
      socket.on("error", () => {});
      socket.on("data", (chunk) => {
        buffer += chunk.toString("utf8");
        const nl = buffer.indexOf("\n");
        if (nl === -1) return;
        const line = buffer.slice(0, nl);
        buffer = "";
        void answer(line).then((reply) => socket.end(`${JSON.stringify(reply)}\n`));
      });
    };
    const answer = async (line: string): Promise<Record<string, unknown>> => {
      let request: ControlRequest;
      try {
        request = JSON.parse(line) as ControlRequest;
      } catch {
        return {
          ok: false,
          error: { code: "SEAT_CONTROL_REQUEST_INVALID", message: "the control request is not JSON" },
        };
      }
      try {
        switch (request.op) {
          case "send": {
            if (releasing) throw new SeatError("SEAT_NOT_ADMITTED", `Seat ${config.seatId} is being released.`, {});
            assertBrief(request.text, "SEAT_BRIEF_INVALID", `Seat ${config.seatId} refuses the brief`);
            const hold = config.holdBeforeDispatch
              ? async (d: { promptId: string }) => {
                  writeFileSync(join(dir, `held-${d.promptId}`), String(process.pid));
                  await new Promise(() => {}); // held until the test kills this process
                }
              : undefined;
            const dispatched = await seat.deliver(request.text, {
              ...(request.promptId ? { promptId: request.promptId } : {}),
              ...(hold ? { beforeDispatch: hold } : {}),
            });
            const wait = request.wait ?? "consumed";
            const record =
              wait === "dispatched"
                ? dispatched
                : await seat.waitFor(dispatched.promptId, [wait], request.timeoutMs ?? 60_000);
            return { ok: true, delivery: record };
          }
          case "status":
            return { ok: true, status: await seat.status() };
          case "state":
            // Only reads (seat ps): the seat's attention, waiting while the TUI asks its owner.
            return { ok: true, ...seat.attention() };
          case "release": {
            releasing = true;
            const result = await seat.release({
              ...(request.closePane ? { closePane: true } : {}),
              ...(request.exitTimeoutMs !== undefined ? { exitTimeoutMs: request.exitTimeoutMs } : {}),
            });
            // After the TUI was observed to exit nothing writes in the worktree any more: its work becomes a commit.
            const worktree = config.worktree
              ? await commitSeatWorktree(config.worktree, config.seatId, result.tuiExit)
              : undefined;
            Object.assign(file, { state: "released" });
            writeSeatFile(dir, file);
            setTimeout(() => finish(0), 50);
            return { ok: true, release: { ...result, ...(worktree ? { worktree } : {}) } };
          }
          default:
            return {
              ok: false,
              error: {
                code: "SEAT_CONTROL_REQUEST_INVALID",
                message: `unknown control op ${JSON.stringify((request as { op?: unknown }).op)}`,
              },
            };
        }
      } catch (error) {
        return { ok: false, error: serialize(error) };
      }
    };
    if (existsSync(socketPath)) rmSync(socketPath, { force: true });
    server.listen(socketPath, () => {
      chmodSync(socketPath, 0o600);
      report({
        type: "hired",
        seatId: config.seatId,
        sessionId: seat.sessionId,
        controllerPid: process.pid,
        admission: seat.parts.admission,
        selected: seat.parts.selected,
        pane: seat.parts.tui.pane,
        socketPath: seat.parts.leader.socketPath,
      });
    });
  });
}
