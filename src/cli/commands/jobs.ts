/*
 * `seat jobs list|show ID|watch ID [--from CURSOR]|cancel ID [--ack-timeout SECS]`: the fleet's jobs as Redis
 *   records them. `watch` prints NDJSON, each line with its `cursor` (resume with --from); `show` reports a
 *   dispatched job whose worker stopped beating as uncertain (and records it so); `cancel` waits for a worker to
 *   acknowledge and says whether one did (exit 1 when none did within the wait).
 */
import { SeatError } from "../../errors.js";
import { connectFleet, isCursor, type JobEvent, type JobRecord } from "../../fleet/index.js";
import { countFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import { REDIS_HELP, REDIS_TLS_FLAGS, TERMINAL_STATUSES, exitCodeForJob, redisUrl } from "./fleet-common.js";
import { ledgerEntriesOf, totalsOf, type UsageTotals } from "../../usage/index.js";
import { usageLine } from "../usage-line.js";
import type { Command } from "./command.js";

function line(record: JobRecord): string {
  const when = record.submittedAt ? new Date(record.submittedAt).toISOString() : "-";
  const status = record.derived ? "uncertain*" : record.status;
  return `${record.id}  ${status.padEnd(10)}  ${when}  ${record.host ?? "-"}  ${JSON.stringify((record.prompt ?? "").slice(0, 60))}`;
}

/**
 * A job's ledger totals, from the turn its record carries (what the worker also wrote to its own ledger), in the
 * shape `seat usage` prints: unknown stays unknown; none while the job has not ended and reported nothing.
 */
function jobLedger(record: JobRecord): UsageTotals | undefined {
  if (record.endedAt === undefined && !record.usage) return undefined;
  const turn = {
    promptId: record.promptId ?? record.id,
    ...(record.stopReason ? { stopReason: record.stopReason } : {}),
    ...(record.usage ? { usage: record.usage } : {}),
    ...(record.sideCalls ? { sideCalls: record.sideCalls } : {}),
  };
  return totalsOf(ledgerEntriesOf(turn, { source: "job", agent: record.agent ?? "grok", jobId: record.id }));
}

export const jobsCommand: Command = {
  name: "jobs",
  help: `Usage: seat jobs list|show ID|diff ID|watch ID|cancel ID --redis URL [flags]

${REDIS_HELP}
  --json                list/show as JSON
  --limit N             list: how many, newest first (default 50)
  --from CURSOR         watch: resume after this cursor (each watched line carries its cursor)
  --ack-timeout SECS    cancel: how long to wait for the worker to acknowledge (default 5)

show exits like the job would (0 completed, 130 cancelled, 76 uncertain, …; 1 while it still runs).
diff shows a --repo job's pushed branch (seat/<job id>), its commit and the diffstat against its base.
cancel says whether a worker acknowledged the cancel (exit 0), or that none did within --ack-timeout (exit 1).
An uncertain job's worker died after the prompt was sent: it may have reached the model; it is never re-sent.

Examples:
  seat jobs list --redis redis://127.0.0.1:6379
  seat jobs watch 3f2c… --redis redis://127.0.0.1:6379
  seat jobs cancel 3f2c… --ack-timeout 10`,
  async run(argv) {
    const [sub, ...rest] = argv;
    const args = parseFlags("jobs", rest, {
      redis: { type: "string" },
      ...REDIS_TLS_FLAGS,
      json: { type: "boolean" },
      limit: { type: "string" },
      from: { type: "string" },
      "ack-timeout": { type: "string" },
    });
    if (!sub || !["list", "show", "watch", "cancel", "diff"].includes(sub))
      throw new SeatError("CLI_USAGE", "seat jobs: say list, show ID, diff ID, watch ID or cancel ID.");
    const id = args.positionals[0];
    if (sub !== "list" && !id) throw new SeatError("CLI_USAGE", `seat jobs ${sub}: give the job id.`);
    const from = stringFlag(args, "from");
    if (from !== undefined && !isCursor(from))
      throw new SeatError("CLI_USAGE", `seat jobs watch: --from takes a cursor like 1712345678901-0, not "${from}".`);
    const client = await connectFleet(redisUrl("jobs", args));
    try {
      if (sub === "list") {
        const records = await client.list(countFlag("jobs", args, "limit") ?? 50);
        if (args.values.json === true) for (const r of records) writeJson({ type: "job", ...r });
        else for (const r of records) process.stdout.write(`${line(r)}\n`);
        return EXIT.ok;
      }
      const handle = client.job(id!);
      if (sub === "show") {
        const record = await handle.state();
        if (args.values.json === true) writeJson({ type: "job", ...record, ledger: jobLedger(record) ?? null });
        else {
          process.stdout.write(`${line(record)}\n`);
          // The only spec a worker runs is the one its submitter sealed (a rewritten one fails FLEET_JOB_TAMPERED).
          if (record.specDigest)
            process.stdout.write(
              `submitted by ${record.submittedBy ?? "-"}, spec sha256 ${record.specDigest}${record.signed ? " (signed)" : ""}\n`,
            );
          if (record.status === "uncertain")
            process.stdout.write(
              `uncertain: ${record.message ?? "its worker stopped after dispatch"} — the prompt may have reached the model; it was not re-sent\n`,
            );
          else if (record.code) process.stdout.write(`${record.code}: ${record.message ?? ""}\n`);
          // What the agent reported; a job whose agent reported nothing says so rather than showing zeros.
          const ledger = jobLedger(record);
          if (ledger) process.stdout.write(`usage: ${usageLine(ledger)}\n`);
        }
        return ["waiting", "active", "dispatched"].includes(record.status) ? EXIT.turnFailed : exitCodeForJob(record);
      }
      if (sub === "diff") {
        // A --repo job's result: the branch it pushed, its commit and the diffstat against its base.
        const record = await handle.state();
        if (args.values.json === true)
          writeJson({
            type: "job_diff",
            id: id!,
            branch: record.branch ?? null,
            commit: record.commit ?? null,
            diffstat: record.diffstat ?? null,
            status: record.status,
          });
        else if (!record.branch)
          process.stdout.write(
            `${id}: no branch (${record.status}; only a --repo … --worktree job that ended has one)\n`,
          );
        else
          process.stdout.write(
            `${record.branch} ${record.commit ?? ""} (${record.status})\n${record.diffstat ? `${record.diffstat}\n` : "no changes\n"}`,
          );
        return record.branch ? EXIT.ok : EXIT.turnFailed;
      }
      if (sub === "cancel") {
        const ackTimeoutMs = secondsFlag("jobs", args, "ack-timeout");
        const outcome = await handle.cancel(ackTimeoutMs !== undefined ? { ackTimeoutMs } : {});
        const ended = ["completed", "failed", "uncertain"].includes(outcome.status);
        if (args.values.json === true) writeJson({ type: "cancel", id: id!, ...outcome });
        else {
          const said = outcome.removed
            ? "removed from the queue (it never ran)"
            : outcome.acknowledged
              ? `cancel acknowledged${outcome.acknowledgedBy ? ` by worker ${outcome.acknowledgedBy}` : ""} (${outcome.status})`
              : ended
                ? `not cancelled: the job already ended ${outcome.status}`
                : `cancel requested, but no worker acknowledged it within ${(ackTimeoutMs ?? 5_000) / 1_000} s (${outcome.status}); a worker that runs it re-reads the request on its next heartbeat`;
          process.stdout.write(`${id}: ${said}\n`);
        }
        return outcome.acknowledged || ended ? EXIT.ok : EXIT.turnFailed;
      }
      let last: JobEvent | undefined;
      for await (const { cursor, event } of handle.events(from ? { from } : {})) {
        if (event.type === "job") last = event;
        writeJson({ ...event, cursor });
      }
      return exitCodeForJob(last && TERMINAL_STATUSES.includes(last.status) ? last : await handle.state());
    } finally {
      await client.close();
    }
  },
};
