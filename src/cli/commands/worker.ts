/*
 * `seat worker --redis URL`: a long-running fleet worker on this host; SIGTERM/SIGINT stop it gracefully
 *   (dispatched turns finish, undispatched jobs go back to the queue), then it exits 0.
 */
import { SeatError } from "../../errors.js";
import { loadToolModules, parseFleetBudget, startWorker } from "../../fleet/index.js";
import { countFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { EXIT } from "../output.js";
import { REDIS_HELP, REDIS_TLS_FLAGS, redisUrl } from "./fleet-common.js";
import { loadNotifyConfig } from "../config.js";
import type { Command } from "./command.js";

export const workerCommand: Command = {
  name: "worker",
  help: `Usage: seat worker --redis URL [flags]

${REDIS_HELP}
  --concurrency N       turns run at once from the shared queue (default 1)
  --name HOST           this host's name; its own queue is host-<HOST> (default: hostname)
  --tools MODULE        a module exporting \`tools\`: HostTool objects served to every job (repeatable)
  --allow-volatile-redis
                        run although Redis may lose acknowledged writes (appendonly no, appendfsync not
                        always): without it the worker refuses such a Redis (FLEET_REDIS_VOLATILE)
  --budget LIMIT        a spend limit shared by every worker of the queue: <N>tokens/hour|day or <USD>usd/hour|day;
                        each job reserves its own --max-tokens (or --max-cost) before dispatch, and a job that
                        would go over is never dispatched (BUDGET_EXCEEDED)
  --replica-ack-timeout SECS
                        how long a dispatch mark waits for the replicas that could be promoted (WAIT; default
                        1); not acknowledged in time, the prompt is not sent and the job ends uncertain
                        (replication-unconfirmed). Without replicas the single-primary rule (AOF) applies.
  --lock-duration SECS  BullMQ lock of a running job (default 10); a dead worker's job is found after
  --stalled-interval SECS   about lock + 2 × stalled interval (default 5)

The agent gets this process's allow-listed environment (HOME, GROK_HOME, GROK_BIN, XAI_API_KEY…).
Notifications: a job names targets (seat submit --notify NAME); this worker sends to the target of that name in
its own config's "notify" section (docs/notifications.md#fleet-jobs); a name it lacks is logged, never a failure.
SIGTERM: turns already dispatched finish; jobs not yet dispatched go back to the queue; then exit 0.

Examples:
  seat worker --redis redis://127.0.0.1:6379
  GROK_SEAT_REDIS_PASSWORD=… seat worker --redis redis://fleet:6379`,
  async run(argv) {
    const args = parseFlags("worker", argv, {
      redis: { type: "string" },
      ...REDIS_TLS_FLAGS,
      concurrency: { type: "string" },
      name: { type: "string" },
      tools: { type: "string", multiple: true },
      "allow-volatile-redis": { type: "boolean" },
      "lock-duration": { type: "string" },
      "stalled-interval": { type: "string" },
      budget: { type: "string" },
      "replica-ack-timeout": { type: "string" },
    });
    const url = redisUrl("worker", args);
    const budget = stringFlag(args, "budget") === undefined ? undefined : parseFleetBudget(stringFlag(args, "budget")!);
    const toolPaths = (args.values.tools as string[] | undefined) ?? [];
    const tools = await loadToolModules(toolPaths);
    const concurrency = countFlag("worker", args, "concurrency");
    const name = stringFlag(args, "name");
    const lockDurationMs = secondsFlag("worker", args, "lock-duration");
    const stalledIntervalMs = secondsFlag("worker", args, "stalled-interval");
    const replicaAckTimeoutMs = secondsFlag("worker", args, "replica-ack-timeout");
    if (replicaAckTimeoutMs === 0)
      throw new SeatError("CLI_USAGE", "seat worker: --replica-ack-timeout must be more than 0 seconds.");
    if (lockDurationMs === 0 || stalledIntervalMs === 0)
      throw new SeatError(
        "CLI_USAGE",
        "seat worker: --lock-duration and --stalled-interval must be more than 0 seconds.",
      );
    // This worker's own notification targets (its user config): jobs name them, this says where they go.
    const notify = loadNotifyConfig();
    const worker = await startWorker({
      redis: url,
      ...(notify ? { notify } : {}),
      ...(args.values["allow-volatile-redis"] === true ? { allowVolatileRedis: true } : {}),
      ...(lockDurationMs ? { lockDurationMs } : {}),
      ...(stalledIntervalMs ? { stalledIntervalMs } : {}),
      ...(name ? { name } : {}),
      ...(concurrency ? { concurrency } : {}),
      ...(budget ? { budget } : {}),
      ...(replicaAckTimeoutMs ? { replicaAckTimeoutMs } : {}),
      tools,
      onLog: (line) => process.stderr.write(`seat worker: ${line}\n`),
    });
    // stdout carries one line a supervisor can wait for.
    process.stdout.write(
      `${JSON.stringify({ type: "worker", id: worker.id, name: worker.name, tools: tools.map((t) => t.name), rule: worker.replicaRule.rule, replicas: worker.replicaRule.required })}\n`,
    );
    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off("SIGTERM", stop);
        process.off("SIGINT", stop);
        void worker.close().then(resolve);
      };
      process.on("SIGTERM", stop);
      process.on("SIGINT", stop);
    });
    return EXIT.ok;
  },
};
