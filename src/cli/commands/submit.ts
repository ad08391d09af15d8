/*
 * `seat submit --redis URL "<prompt>"`: queue one headless turn for the fleet and print its job id;
 *   `--wait` streams its events as the same NDJSON as `seat run --json` and exits with the same codes
 *   (76 when the job ended uncertain). Ctrl-C while waiting cancels the job; so does a closed stdout (exit 141).
 *   The prompt is an argument or `-f FILE|-`.
 */
import { SeatError } from "../../errors.js";
import { connectFleet, type JobEvent } from "../../fleet/index.js";
import { agentProfile } from "../../agents/index.js";
import { policyFromArgs } from "../policy.js";
import { listFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { promptFrom } from "../prompt-input.js";
import { onStdoutClosed } from "../pipes.js";
import { EXIT, writeJson } from "../output.js";
import { REDIS_HELP, REDIS_TLS_FLAGS, TERMINAL_STATUSES, exitCodeForJob, redisUrl } from "./fleet-common.js";
import type { Command } from "./command.js";
import { BUDGET_FLAG_SPEC, BUDGET_HELP, budgetFromArgs, joinBudgetValues } from "../budget-flags.js";
import { meteringOf, unmeteredProblem } from "../../metering/index.js";

export const submitCommand: Command = {
  name: "submit",
  help: `Usage: seat submit --redis URL "<prompt>" [flags]
       seat submit --redis URL -f FILE|- [flags]

${REDIS_HELP}
  -f, --file FILE       read the prompt from FILE, or from stdin when FILE is "-"
  --agent NAME          grok (default), codex, claude, opencode, gemini — on the worker's host
  --model ID            model for the turn
  --cwd DIR             working directory on the worker's host (absolute; default: the worker's)
  -s, --session NAME    continue a named session (runs on the host that owns it)
  --repo URL|PATH --worktree   work on that repository in a worktree of the worker's cache clone, on
                        branch seat/<job id>, pushed to the repository when the turn completes
  --base REF            with --repo: branch from REF instead of the repository's HEAD
  --policy FILE         a grok-seat.permissions.v1 policy that travels with the job
  --allow/--ask/--block LIST, --unrestricted   as for seat run; a call that needs approval is held in Redis
                        for a person: seat approvals --redis URL, seat approve|deny ID --redis URL
  --approval-timeout SECS  deny a held approval nobody answered after SECS (APPROVAL_TIMEOUT; default 900)
  --turn-timeout SECS   --idle-timeout SECS    as for seat run
${BUDGET_HELP}
  --notify NAME         tell notification target NAME of the job's events (repeatable; --notify none for none;
                        default: the worker's "default"). A job only names targets: each worker sends to the
                        target of that name in its own config; a name it lacks is a diagnostic, never a failure
  --id ID               your own job id (default a UUID)
  --wait                stream the job's events (NDJSON as seat run --json, plus {"type":"job"} lines)
                        and exit like seat run (0, 1, 124, 130…; 76 = uncertain)
  --json                print the job id as {"type":"submitted","id":…}

Examples:
  seat submit --redis redis://127.0.0.1:6379 "summarize the open issues"
  seat submit --wait -f prompt.md --cwd /srv/repo   # GROK_SEAT_REDIS_URL set
  seat submit --wait --repo git@example.com:team/app.git --worktree --allow edit "fix the flaky test"`,
  async run(argv) {
    const args = parseFlags("submit", joinBudgetValues(argv), {
      file: { type: "string", short: "f" },
      redis: { type: "string" },
      ...REDIS_TLS_FLAGS,
      agent: { type: "string" },
      model: { type: "string" },
      cwd: { type: "string" },
      session: { type: "string", short: "s" },
      repo: { type: "string" },
      worktree: { type: "boolean" },
      base: { type: "string" },
      policy: { type: "string" },
      allow: { type: "string", multiple: true },
      ask: { type: "string", multiple: true },
      block: { type: "string", multiple: true },
      unrestricted: { type: "boolean" },
      "turn-timeout": { type: "string" },
      "idle-timeout": { type: "string" },
      "approval-timeout": { type: "string" },
      id: { type: "string" },
      notify: { type: "string", multiple: true },
      wait: { type: "boolean" },
      json: { type: "boolean" },
      ...BUDGET_FLAG_SPEC,
    });
    const url = redisUrl("submit", args);
    const agent = stringFlag(args, "agent");
    if (agent !== undefined) agentProfile(agent);
    const cwd = stringFlag(args, "cwd");
    if (cwd !== undefined && !cwd.startsWith("/"))
      throw new SeatError(
        "CLI_USAGE",
        `seat submit: --cwd is a directory on the worker's host and must be absolute, not "${cwd}".`,
      );
    const repo = stringFlag(args, "repo");
    if ((repo !== undefined) !== (args.values.worktree === true))
      throw new SeatError(
        "CLI_USAGE",
        "seat submit: --repo and --worktree go together (the job works in a worktree of that repository).",
      );
    if (repo !== undefined && (cwd !== undefined || stringFlag(args, "session") !== undefined))
      throw new SeatError(
        "CLI_USAGE",
        "seat submit: a --repo job works in its own worktree; it takes neither --cwd nor --session.",
      );
    if (stringFlag(args, "base") !== undefined && repo === undefined)
      throw new SeatError("CLI_USAGE", "seat submit: --base only applies with --repo … --worktree.");
    const { budget, allowUnmetered } = budgetFromArgs("submit", args);
    // A budget the agent cannot be held to is refused here, before anything is queued.
    const unmetered =
      budget && !allowUnmetered ? unmeteredProblem(budget, meteringOf(agent), agent ?? "grok", false) : undefined;
    if (unmetered) throw new SeatError("BUDGET_UNMETERED", `seat submit: ${unmetered} Nothing was queued.`);
    const policy = await policyFromArgs(args);
    const approvalTimeoutMs = secondsFlag("submit", args, "approval-timeout");
    if (approvalTimeoutMs !== undefined) {
      if (approvalTimeoutMs <= 0)
        throw new SeatError("CLI_USAGE", "seat submit: --approval-timeout takes a number of seconds above 0.");
      policy.approvalTimeoutMs = approvalTimeoutMs;
    }
    const turnTimeoutMs = secondsFlag("submit", args, "turn-timeout");
    const idleTimeoutMs = secondsFlag("submit", args, "idle-timeout");
    const prompt = await promptFrom(
      "submit",
      stringFlag(args, "file"),
      args.positionals,
      'seat submit --redis redis://127.0.0.1:6379 "explain this repo"',
    );
    const client = await connectFleet(url);
    try {
      const handle = await client.enqueue({
        prompt,
        policy,
        ...(agent ? { agent } : {}),
        ...(stringFlag(args, "model") ? { model: stringFlag(args, "model") } : {}),
        ...(cwd ? { cwd } : {}),
        ...(stringFlag(args, "session") ? { session: stringFlag(args, "session") } : {}),
        ...(repo ? { repo } : {}),
        ...(stringFlag(args, "base") ? { base: stringFlag(args, "base") } : {}),
        ...(stringFlag(args, "id") ? { jobId: stringFlag(args, "id") } : {}),
        ...(turnTimeoutMs ? { turnTimeoutMs } : {}),
        ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
        ...(budget ? { budget } : {}),
        ...(allowUnmetered ? { allowUnmetered } : {}),
        ...(listFlag(args, "notify").length > 0 ? { notify: listFlag(args, "notify") } : {}),
      });
      if (args.values.wait !== true) {
        if (args.values.json === true) writeJson({ type: "submitted", id: handle.id });
        else process.stdout.write(`${handle.id}\n`);
        return EXIT.ok;
      }
      writeJson({ type: "submitted", id: handle.id });
      let interrupted = 0;
      let pipeClosed = false;
      const onSigint = () => {
        interrupted += 1;
        if (interrupted === 1) void handle.cancel().catch(() => undefined);
        else process.exit(EXIT.interrupted);
      };
      // Nobody reads the stream any more (`| head`): the job is cancelled like a Ctrl-C, and we exit 141.
      const releasePipe = onStdoutClosed(() => {
        pipeClosed = true;
        void handle.cancel().catch(() => undefined);
      });
      process.on("SIGINT", onSigint);
      try {
        // The job's own last transition decides the exit code: its record may be gone by now (a volatile Redis).
        let last: JobEvent | undefined;
        for await (const { event } of handle.events()) {
          if (event.type === "job") last = event;
          writeJson(event);
        }
        const code = exitCodeForJob(last && TERMINAL_STATUSES.includes(last.status) ? last : await handle.state());
        return pipeClosed ? EXIT.brokenPipe : code;
      } finally {
        process.off("SIGINT", onSigint);
        releasePipe();
      }
    } finally {
      await client.close();
    }
  },
};
