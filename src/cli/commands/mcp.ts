/*
 * `seat mcp`: the seat as a stdio MCP server — an MCP host (Claude Code, Codex, Gemini CLI, Cursor, …)
 *   starts it and hands seats work through its tools, under the limits given here.
 * Owns: the verb's flags (the same permission flags as `seat run`), keeping stdout for the protocol alone, and the
 *   process's end: the host gone (stdin closed, stdout broken) or a signal aborts every call, waits until each
 *   turn's agent is disposed and recorded, then exits.
 * Does not own: the server (mcp/server.ts) or its tools (mcp/tools/).
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { SeatError } from "../../errors.js";
import { agentProfile } from "../../agents/index.js";
import { format } from "node:util";
import { redactText, registerSecrets } from "../../internal/redact.js";
import { DEFAULT_APPROVAL_TIMEOUT_MS } from "../../approvals/index.js";
import { createSeatMcpServer, realDirectory } from "../../mcp/index.js";
import { policyFromArgs } from "../policy.js";
import { chooseTargets } from "../../notify-config/index.js";
import { loadNotifyConfig } from "../config.js";
import { countFlag, listFlag, parseFlags, secondsFlag, stringFlag } from "../args.js";
import { onStdoutClosed } from "../pipes.js";
import { EXIT } from "../output.js";
import { cliHooks } from "../hooks.js";
import type { Command } from "./command.js";

const DEFAULT_TURN_TIMEOUT_MS = 15 * 60_000;
const DEFAULT_IDLE_TIMEOUT_MS = 3 * 60_000;
/** Well inside the 60 s most clients wait for a tool call, so one that resets on progress never gives up early. */
const DEFAULT_HEARTBEAT_MS = 15_000;

export const mcpCommand: Command = {
  name: "mcp",
  help: `Usage: seat mcp [flags]

  A stdio MCP server: an MCP host starts it (docs/mcp.md) and calls its tools. Nothing a caller sends can
  widen the limits below. stdout carries the protocol only; notes go to stderr.

  --policy FILE         a grok-seat.permissions.v1 JSON policy (flags override it)
  --allow LIST          categories to allow: read,edit,execute,network,mcp,other
  --ask LIST            categories held for approval: the host answers its own turns' and submitted jobs'
                        with the approvals, approve and deny tools; a person with seat approve / seat deny
  --block LIST          categories to refuse
  --unrestricted        allow sensitive categories unless --ask/--block name them
  --approval-timeout SECS  deny a held approval nobody answered after SECS (default 900, or the policy's)
  --root DIR            a directory a call's cwd may lie under (repeatable; the client's declared roots
                        count too; with neither, the server's working directory)
  --agents LIST         the agents a call may drive (default grok; the first is the default agent)
  --grok PATH           grok binary to use
  --redis URL           serve the fleet's tools too (submit, job, jobs, seat://jobs/{id}/events): BullMQ on
                        this Redis, as seat submit (a password is better given as GROK_SEAT_REDIS_PASSWORD)
  --tmux-socket NAME    hire_visible: the private tmux server (tmux -L NAME) the seats' panes live on
  --version-floor V     hire_visible: the lowest grok version a seat admits (as seat hire)
  --turn-timeout SECS   cancel a turn after SECS (default 900, 0 = off)
  --idle-timeout SECS   cancel a turn silent for SECS (default 180, 0 = off)
  --heartbeat SECS      while a turn runs, send a "still working" progress notification after SECS without
                        one (default 15, 0 = off): clients that reset their timeout on progress keep waiting
  --max-runs N          how many run calls may run at once (default 4); one more is refused with
                        MCP_RUNS_LIMIT before anything starts
  --notify NAME         tell notification target NAME (the config's "notify" section; repeatable) when a run
                        turn's approval waits and when it ends; default: the config's "default" targets;
                        --notify none for none

Examples:
  seat mcp --root ~/src/service --allow read
  seat mcp --root ~/src --policy policy.json --agents grok,codex`,
  async run(argv) {
    const args = parseFlags("mcp", argv, {
      policy: { type: "string" },
      allow: { type: "string", multiple: true },
      ask: { type: "string", multiple: true },
      block: { type: "string", multiple: true },
      unrestricted: { type: "boolean" },
      "approval-timeout": { type: "string" },
      root: { type: "string", multiple: true },
      agents: { type: "string", multiple: true },
      grok: { type: "string" },
      redis: { type: "string" },
      "tmux-socket": { type: "string" },
      "version-floor": { type: "string" },
      "turn-timeout": { type: "string" },
      "idle-timeout": { type: "string" },
      heartbeat: { type: "string" },
      "max-runs": { type: "string" },
      notify: { type: "string", multiple: true },
    });
    if (args.positionals.length > 0)
      throw new SeatError(
        "CLI_USAGE",
        `seat mcp: takes no arguments, got "${args.positionals.join(" ")}". See \`seat mcp --help\`.`,
      );
    // Everything the operator can get wrong is refused before the server answers anyone.
    const policy = await policyFromArgs(args);
    const approvalTimeoutMs =
      secondsFlag("mcp", args, "approval-timeout", policy.approvalTimeoutMs ?? DEFAULT_APPROVAL_TIMEOUT_MS) ??
      DEFAULT_APPROVAL_TIMEOUT_MS;
    if (approvalTimeoutMs <= 0)
      throw new SeatError(
        "CLI_USAGE",
        "seat mcp: --approval-timeout takes a number of seconds above 0 (a held approval always has a deadline).",
      );
    const roots = (Array.isArray(args.values.root) ? args.values.root : []).map((dir) => {
      const real = realDirectory(String(dir));
      if (real === undefined)
        throw new SeatError(
          "CLI_USAGE",
          `seat mcp: --root ${String(dir)} does not exist or is not a directory; give an existing directory.`,
          { context: { root: dir } },
        );
      return real;
    });
    const agents = listFlag(args, "agents");
    for (const agent of agents) agentProfile(agent);
    const turnTimeoutMs = secondsFlag("mcp", args, "turn-timeout", DEFAULT_TURN_TIMEOUT_MS) || undefined;
    const idleTimeoutMs = secondsFlag("mcp", args, "idle-timeout", DEFAULT_IDLE_TIMEOUT_MS) || undefined;
    const heartbeatMs = secondsFlag("mcp", args, "heartbeat", DEFAULT_HEARTBEAT_MS) || undefined;
    const maxRuns = countFlag("mcp", args, "max-runs");
    // Targets come from the user's config only (never from a caller); an unknown --notify name is a usage error.
    const notify = chooseTargets(loadNotifyConfig(), listFlag(args, "notify"));
    const grok = stringFlag(args, "grok");
    const visible = {
      ...(stringFlag(args, "tmux-socket") ? { tmuxSocket: stringFlag(args, "tmux-socket")! } : {}),
      ...(stringFlag(args, "version-floor") ? { versionFloor: stringFlag(args, "version-floor")! } : {}),
    };
    const redisUrl = stringFlag(args, "redis");
    // A malformed URL is refused now (its text is never echoed: it may hold a password); Redis itself is reached
    // on the first fleet call, so a server whose Redis is down still serves run and sessions.
    if (redisUrl !== undefined) (await import("../../redis/index.js")).parseRedisUrl(redisUrl);

    // stdout is the protocol's: a stray console.log from anywhere would corrupt it, so every console level goes
    // to stderr, redacted like everything else that leaves the server (a library's warning may quote a secret).
    registerSecrets(process.env);
    for (const level of ["log", "info", "debug", "warn", "error"] as const) {
      console[level] = (...parts: unknown[]) => void process.stderr.write(`${redactText(format(...parts))}\n`);
    }

    const seat = await createSeatMcpServer({
      policy,
      roots,
      agents: agents.length > 0 ? agents : ["grok"],
      approvalTimeoutMs,
      ...(grok ? { grokCliBinaryPath: grok } : {}),
      ...(redisUrl ? { redisUrl } : {}),
      ...(visible.tmuxSocket || visible.versionFloor ? { visible } : {}),
      ...(turnTimeoutMs ? { turnTimeoutMs } : {}),
      ...(idleTimeoutMs ? { idleTimeoutMs } : {}),
      ...(heartbeatMs ? { heartbeatMs } : {}),
      ...(maxRuns !== undefined ? { maxRuns } : {}),
      ...(notify.length > 0 ? { notify } : {}),
    });
    let code: number = EXIT.ok;
    const ended = new Promise<void>((resolve) => {
      const end = (exitCode: number) => {
        code = exitCode;
        resolve();
      };
      // The host is gone when our stdin ends or our stdout breaks; a signal ends the server the same way.
      process.stdin.once("end", () => end(EXIT.ok));
      process.stdin.once("close", () => end(EXIT.ok));
      onStdoutClosed(() => end(EXIT.brokenPipe));
      for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => end(EXIT.interrupted));
    });
    await seat.connect(new StdioServerTransport());
    cliHooks().onMcpServing?.();
    await ended;
    await seat.close();
    // Every agent is disposed; a handle still open (stdin after a signal) must not keep the process alive.
    process.stdin.destroy();
    setTimeout(() => process.exit(code), 200).unref();
    return code;
  },
};
