/*
 * `seat hire --visible`: plan and launch a visible grok TUI seat, held by a detached per-seat controller.
 * Owns: the hire flags, `--dry-run` (print the plan, launch nothing), starting the controller process
 *   and relaying its hire outcome; with `--worktree`, making the seat worktree the TUI's cwd (the controller
 *   locks it and commits it at release).
 * Does not own: the hire itself (seat/ controller, run in the detached process).
 * Invariant: secret values reach the controller only in its (explicit, minimal) process environment;
 *   hire.json, `--dry-run` and `--json` never hold one.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { SeatError } from "../../errors.js";
import { resolveGrokBinary } from "../../grok/index.js";
import { resolveHerdrSocketPath } from "../../mux/index.js";
import {
  VERIFIED_VERSION_FLOOR,
  buildHirePlan,
  buildTuiEnv,
  controllerEnv,
  envValuesOf,
  newSeatId,
  type ControllerConfig,
  launchController,
} from "../../seat/index.js";
import { ensurePrivateDir, seatDir, seatHome } from "../../home/index.js";
import { listFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { secretEnvNamesOf } from "../../notify/index.js";
import { chooseTargets } from "../../notify-config/index.js";
import { loadNotifyConfig } from "../config.js";
import { WORKTREE_FLAGS, planSeatWorktree, worktreeArgv } from "../worktree-run.js";
import { EXIT, writeJson } from "../output.js";
import { cliHooks } from "../hooks.js";
import { redact, splitSecretEnv } from "../../internal/redact.js";
import type { Command } from "./command.js";

export const hireCommand: Command = {
  name: "hire",
  help: `Usage: seat hire --visible [--mux tmux|herdr] [--cwd DIR] [--worktree [NAME]] [--model ID] [--effort LEVEL] [--dry-run] [--json]

  --visible            required: a visible \`grok --leader\` TUI in a terminal pane
  --mux tmux|herdr     pane backend (default tmux; herdr uses HERDR_SOCKET_PATH or --herdr-socket)
  --cwd DIR            the session's working directory (default: current directory)
  --worktree [NAME]    the TUI works in a git worktree of the repository at --cwd, on branch seat/NAME (default:
                       the seat id), kept under the seat home; committed when the seat is released after its TUI
                       exited (review: seat diff NAME / seat merge NAME / seat discard NAME)
  --base REF           with --worktree: branch from REF instead of HEAD
  --reuse              with --worktree: work on an existing seat/NAME branch
  --model ID           a model from grok's native options; unknown ids refuse (no fallback)
  --effort LEVEL       a reasoning effort from grok's native options; unknown levels refuse
  --dry-run            print the plan and launch nothing
  --grok PATH          grok binary (else GROK_BIN, PATH, then the pinned npm package)
  --version-floor V    lowest admitted grok version (default ${VERIFIED_VERSION_FLOOR}; GROK_SEAT_VERSION_FLOOR)
  --tmux-socket NAME   private tmux server name (default grok-seat)
  --herdr-socket PATH  Herdr server socket
  --ready-timeout S    seconds for the TUI to become ready (default 30)
  --notify NAME        tell notification target NAME (the user config's "notify" section; repeatable) when the
                       seat waits for you in its TUI, a delivered turn ends, or the seat loses its TUI; default: the
                       config's "default" targets; --notify none for none. Only the names are recorded
  --json               one JSON object on stdout

State lives in $GROK_SEAT_HOME (default ~/.grok-seat): journal seats.db and seats/<seat>/.
Leader mode ignores grok's CLI permission allow/deny flags, so none are offered: permission prompts stay in the TUI.

Examples:
  seat hire --visible --mux tmux --cwd ~/src/app
  seat hire --visible --dry-run --json
  seat hire --visible --worktree ui-fix   # then, after seat release: seat diff ui-fix; seat merge ui-fix`,
  async run(argv) {
    const args = parseFlags("hire", worktreeArgv(argv), {
      ...WORKTREE_FLAGS,
      visible: { type: "boolean" },
      mux: { type: "string" },
      cwd: { type: "string" },
      model: { type: "string" },
      effort: { type: "string" },
      "dry-run": { type: "boolean" },
      grok: { type: "string" },
      "grok-arg": { type: "string", multiple: true },
      "version-floor": { type: "string" },
      "tmux-socket": { type: "string" },
      "herdr-socket": { type: "string" },
      "ready-timeout": { type: "string" },
      notify: { type: "string", multiple: true },
      json: { type: "boolean" },
    });
    if (!args.values.visible)
      throw new SeatError(
        "CLI_USAGE",
        "seat hire: only visible seats are hired here; pass --visible (use `seat run` for a headless turn).",
      );
    const mux = stringFlag(args, "mux") ?? "tmux";
    if (mux !== "tmux" && mux !== "herdr")
      throw new SeatError("CLI_USAGE", `seat hire: --mux takes tmux or herdr, got "${mux}".`);
    // Targets are checked with the other flags (an unknown name is a usage error) and recorded by name only.
    const notifyConfig = loadNotifyConfig();
    const notifyNames = chooseTargets(notifyConfig, listFlag(args, "notify")).map((target) => target.name);
    const asked = resolve(stringFlag(args, "cwd") ?? process.cwd());
    const explicit = stringFlag(args, "grok");
    const binary = await resolveGrokBinary(explicit ? { explicitPath: explicit } : {});
    const binaryArgs = (args.values["grok-arg"] as string[] | undefined) ?? [];
    const versionFloor =
      stringFlag(args, "version-floor") ?? process.env.GROK_SEAT_VERSION_FLOOR ?? VERIFIED_VERSION_FLOOR;
    const seatId = newSeatId();
    // With --worktree the TUI's cwd is the seat worktree: planned (usage errors) now, made only for a real hire.
    const worktreePlan = await planSeatWorktree(args, seatId, asked);
    const cwd = worktreePlan?.path ?? asked;
    const plan = buildHirePlan({
      grokBinary: binary.path,
      binaryArgs,
      cwd,
      env: process.env,
      mux,
      seatId,
      versionFloor,
      ...(stringFlag(args, "model") ? { model: stringFlag(args, "model")! } : {}),
      ...(stringFlag(args, "effort") ? { effort: stringFlag(args, "effort")! } : {}),
    });
    const home = seatHome();
    if (args.values["dry-run"]) {
      const shown = {
        ...plan,
        socketPath: join(plan.socketRoot, "gs-XXXXXX", "s"),
        argv: plan.argv.map((a) => (a === "<socket>" ? join(plan.socketRoot, "gs-XXXXXX", "s") : a)),
      };
      if (args.values.json)
        writeJson({ type: "plan", plan: redact(shown), seatHome: home, journal: join(home, "seats.db") });
      else {
        process.stdout.write(
          `${[
            `seat:        ${plan.seatId} (dry run: nothing launched)`,
            `session:     ${plan.sessionId} (fresh UUID)`,
            `mux:         ${plan.mux}`,
            `cwd:         ${plan.cwd}${worktreePlan ? ` (seat worktree, made at hire)` : ""}`,
            `argv:        ${shown.argv.join(" ")}`,
            `env:         ${Object.keys(plan.env).join(", ")}`,
            `socket:      ${shown.socketPath} (fresh 0700 dir, outside ${plan.grokHome})`,
            `model:       ${plan.model ?? "(grok's default)"}  effort: ${plan.effort ?? "(grok's default)"}`,
            `floor:       ${plan.versionFloor}${plan.versionFloor !== VERIFIED_VERSION_FLOOR ? ` (verified floor is ${VERIFIED_VERSION_FLOOR})` : ""}`,
            `state:       ${home}`,
          ].join("\n")}\n`,
        );
      }
      return EXIT.ok;
    }
    const worktree = worktreePlan ? await worktreePlan.make() : undefined;
    const dir = seatDir(home, seatId);
    ensurePrivateDir(home);
    ensurePrivateDir(join(home, "seats"));
    ensurePrivateDir(dir);
    const readyMs = secondsFlag("hire", args, "ready-timeout", 30_000)!;
    // hire.json names the secrets but holds no value: the controller gets them in its own environment.
    const { plain, secret } = splitSecretEnv(buildTuiEnv(process.env));
    // The notify targets' secrets reach the controller in its environment only, never the TUI's.
    const notifySecretEnvNames = secretEnvNamesOf(notifyConfig, notifyNames);
    const config: ControllerConfig = {
      seatHome: home,
      seatId,
      grokBinary: binary.path,
      binaryArgs,
      cwd,
      env: plain,
      secretEnvNames: Object.keys(secret),
      mux,
      versionFloor,
      readyTimeoutMs: readyMs,
      ...(plan.model ? { model: plan.model } : {}),
      ...(plan.effort ? { effort: plan.effort } : {}),
      ...(stringFlag(args, "tmux-socket") ? { tmuxSocket: stringFlag(args, "tmux-socket")! } : {}),
      ...(mux === "herdr" ? { herdrSocket: stringFlag(args, "herdr-socket") ?? resolveHerdrSocketPath() } : {}),
      ...(cliHooks().holdBeforeDispatch === true ? { holdBeforeDispatch: true } : {}),
      ...(notifyNames.length > 0 ? { notify: notifyNames } : {}),
      ...(notifySecretEnvNames.length > 0 ? { notifySecretEnvNames } : {}),
      ...(cliHooks().notifyCoalesceMs !== undefined ? { notifyCoalesceMs: cliHooks().notifyCoalesceMs } : {}),
      ...(worktree ? { worktree } : {}),
    };
    const configPath = join(dir, "hire.json");
    writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
    const outcome = await launchController(
      dir,
      configPath,
      controllerEnv(process.env, { ...envValuesOf(process.env, notifySecretEnvNames), ...secret }),
    );
    if (outcome.type !== "hired") {
      const error = (outcome.error ?? {}) as { code?: string; message?: string; context?: Record<string, unknown> };
      throw new SeatError(
        (error.code as never) ?? "SEAT_CONTROLLER_FAILED",
        (error.message ?? "the hire was refused").replace(/ \[[A-Z_]+\]$/, ""),
        { context: { ...(error.context ?? {}), seatId, log: join(dir, "controller.log") } },
      );
    }
    if (args.values.json) writeJson({ ...outcome, type: "hired" });
    else {
      const admission = outcome.admission as { version: string; belowVerifiedFloor: boolean };
      process.stdout.write(`${seatId}\n`);
      process.stderr.write(
        `hired ${seatId}: session ${String(outcome.sessionId)}, grok ${admission.version}${admission.belowVerifiedFloor ? ` (below the verified floor ${VERIFIED_VERSION_FLOOR})` : ""}; watch it with \`seat attach ${seatId}\`\n`,
      );
    }
    return EXIT.ok;
  },
};
