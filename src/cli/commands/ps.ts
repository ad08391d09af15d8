/*
 * `seat ps [--json] [--watch [--interval SECS] [--on-waiting CMD]] [--redis URL]`: one table of what is live on
 *   this machine (named sessions with a live holder, plain `seat run`s, visible seats) and, with --redis, the fleet's unfinished
 *   jobs — kind, name/id, agent, state, since, cwd, pending approvals.
 * --watch lists again every --interval and prints each change; --on-waiting runs CMD (split like a shell
 *   would, never run by one) once for each item that starts waiting, with SEAT_PS_* variables describing it.
 */
import { answerApproval, listApprovals } from "../../supervision/index.js";
import { spawn } from "node:child_process";
import { SeatError } from "../../errors.js";
import { splitCommandLine } from "../../command-line/index.js";
import { listLive, type ListLiveOptions, type LiveItem } from "../../listing/index.js";
import { diffListings, startsWaiting, waitingEnv } from "../../listing/index.js";
import type { ApprovalsSource } from "../../supervision/index.js";
import { parseFlags, secondsFlag, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import { REDIS_HELP } from "./fleet-common.js";
import type { Command } from "./command.js";

/** Pending approvals of this user's runs (their control sockets) and, with --redis, of the fleet. */
function approvalsSource(redis: string | undefined): ApprovalsSource {
  const where = redis ? { redis } : {};
  return { list: () => listApprovals(where), answer: (id, answer) => answerApproval(id, answer, where) };
}

function table(items: readonly LiveItem[]): string {
  const rows = [["KIND", "NAME/ID", "AGENT", "STATE", "SINCE", "APPROVALS", "CWD"]];
  for (const i of items) {
    const state = i.waitingOn ? `${i.state}(${i.waitingOn})` : i.state;
    rows.push([
      i.kind,
      i.id,
      i.agent,
      state,
      i.since ?? "-",
      String(i.pendingApprovals),
      i.cwd ?? (i.host ? `@${i.host}` : "-"),
    ]);
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  return rows
    .map((r) => r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join("  "))
    .join("\n");
}

function runOnWaiting(argv: readonly string[], item: LiveItem): void {
  // The command's output goes to our stderr: stdout stays the listing (or its NDJSON).
  const child = spawn(argv[0]!, argv.slice(1), {
    env: { ...process.env, ...waitingEnv(item) },
    stdio: ["ignore", 2, 2],
  });
  child.on("error", (error) =>
    process.stderr.write(
      `seat ps: --on-waiting command could not run (${(error as NodeJS.ErrnoException).code ?? error.message})\n`,
    ),
  );
}

export const psCommand: Command = {
  name: "ps",
  help: `Usage: seat ps [--json] [--watch] [--redis URL]

  --json              one JSON object per line: {"type":"item",…} (with --watch: {"type":"change",…})
  --watch             keep listing; print what changed (appeared, state, gone) until Ctrl-C
  --interval SECS     with --watch: how often to list again (default 1)
  --on-waiting CMD    with --watch: run CMD (argv, no shell) for each item that starts waiting, with
                      SEAT_PS_KIND, SEAT_PS_ID, SEAT_PS_NAME, SEAT_PS_AGENT, SEAT_PS_STATE, SEAT_PS_WAITING_ON,
                      SEAT_PS_SINCE, SEAT_PS_CWD, SEAT_PS_PID, SEAT_PS_HOST, SEAT_PS_PENDING_APPROVALS set
${REDIS_HELP}

States: starting, working, waiting, idle, done, failed, cancelled, interrupted, uncertain.

Examples:
  seat ps
  seat ps --json --redis redis://127.0.0.1:6379
  seat ps --watch --on-waiting notify-send`,
  async run(argv) {
    const args = parseFlags("ps", argv, {
      json: { type: "boolean" },
      watch: { type: "boolean" },
      interval: { type: "string" },
      "on-waiting": { type: "string" },
      redis: { type: "string" },
    });
    if (args.positionals.length > 0)
      throw new SeatError("CLI_USAGE", `seat ps takes no arguments (got "${args.positionals[0]}").`);
    const watch = args.values.watch === true;
    const onWaiting = stringFlag(args, "on-waiting");
    if (!watch && (onWaiting !== undefined || stringFlag(args, "interval") !== undefined))
      throw new SeatError("CLI_USAGE", "seat ps: --on-waiting and --interval only apply with --watch.");
    const command = onWaiting === undefined ? undefined : splitCommandLine(onWaiting);
    if (command !== undefined && command.length === 0)
      throw new SeatError("CLI_USAGE", "seat ps: --on-waiting needs a command.");
    const intervalMs = secondsFlag("ps", args, "interval", 1_000) || 1_000;
    const json = args.values.json === true;
    // Only an explicit --redis lists the fleet: a bare `seat ps` stays about this machine.
    const redis = stringFlag(args, "redis");
    const fleet = redis === undefined ? undefined : await (await import("../../fleet/index.js")).connectFleet(redis);
    const approvals = approvalsSource(redis);
    const options: ListLiveOptions = { ...(fleet ? { fleet } : {}), ...(approvals ? { approvals } : {}) };
    try {
      if (!watch) {
        const items = await listLive(options);
        if (json) for (const item of items) writeJson({ type: "item", ...item });
        else process.stdout.write(`${table(items)}\n`);
        return EXIT.ok;
      }
      let stopped = false;
      let wake: () => void = () => undefined;
      const stop = () => {
        stopped = true;
        wake();
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
      try {
        let before: LiveItem[] = [];
        while (!stopped) {
          const after = await listLive(options);
          for (const change of diffListings(before, after)) {
            if (json)
              writeJson({
                type: "change",
                change: change.change,
                ...(change.previous ? { previous: change.previous } : {}),
                ...change.item,
              });
            else
              process.stdout.write(
                `${change.change.padEnd(8)}  ${change.item.kind}  ${change.item.id}  ${change.change === "gone" ? "" : change.item.state}${change.item.waitingOn ? `(${change.item.waitingOn})` : ""}\n`,
              );
            if (command && startsWaiting(change)) runOnWaiting(command, change.item);
          }
          before = after;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, intervalMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
      }
      return EXIT.ok;
    } finally {
      await fleet?.close();
    }
  },
};
