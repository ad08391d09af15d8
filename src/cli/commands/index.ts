/*
 * The verb table of the `seat` CLI: each verb's name and one-line summary, and how to load it. A verb's module
 * (and what it imports: the ACP SDK, SQLite, BullMQ…) is loaded only when that verb runs, so `seat run` does not
 * pay for the fleet or the visible seat.
 */
import type { Command } from "./command.js";

/** One verb: its name, its summary for `seat --help`, and its module, loaded on use. */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** Every verb, in help order. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: "run",
    summary: "run one prompt on a headless grok session and stream the answer",
    load: async () => (await import("./run.js")).runCommand,
  },
  {
    name: "sessions",
    summary: "list, show, close or remove named sessions (seat run -s NAME)",
    load: async () => (await import("./sessions.js")).sessionsCommand,
  },
  {
    name: "cancel",
    summary: "cancel the running turn of a named session (seat cancel -s NAME)",
    load: async () => (await import("./cancel.js")).cancelCommand,
  },
  {
    name: "approvals",
    summary: "list the permission requests your live runs hold for a person",
    load: async () => (await import("./approvals.js")).approvalsCommand,
  },
  {
    name: "approve",
    summary: "allow a held approval (seat approve ID [--always])",
    load: async () => (await import("./approve.js")).approveCommand,
  },
  {
    name: "deny",
    summary: "deny a held approval (seat deny ID [--message TEXT])",
    load: async () => (await import("./deny.js")).denyCommand,
  },
  {
    name: "probe",
    summary: "report the grok binary, its version and the ACP auth it advertises",
    load: async () => (await import("./probe.js")).probeCommand,
  },
  {
    name: "agents",
    summary: "list the ACP agents grok-seat can drive: installed, version, auth, capabilities",
    load: async () => (await import("./agents.js")).agentsCommand,
  },
  {
    name: "models",
    summary: "list grok's models as grok-cli/<id>",
    load: async () => (await import("./models.js")).modelsCommand,
  },
  {
    name: "demo",
    summary: "offline demo: real grok + scripted loopback model + a host tool",
    load: async () => (await import("./demo.js")).demoCommand,
  },
  {
    name: "hire",
    summary: "launch a visible grok TUI seat (--visible) held by a per-seat controller",
    load: async () => (await import("./hire.js")).hireCommand,
  },
  {
    name: "send",
    summary: "deliver a brief to a visible seat (fenced, then sent once with its own prompt id)",
    load: async () => (await import("./send.js")).sendCommand,
  },
  {
    name: "status",
    summary: "show seats and their deliveries (live from the controller, else from the journal)",
    load: async () => (await import("./status.js")).statusCommand,
  },
  {
    name: "release",
    summary: "release a visible seat (stops its own leader only after the TUI exited)",
    load: async () => (await import("./release.js")).releaseCommand,
  },
  {
    name: "attach",
    summary: "attach your terminal to a visible seat's pane (or --print the command)",
    load: async () => (await import("./attach.js")).attachCommand,
  },
  {
    name: "worker",
    summary: "run fleet jobs from Redis (BullMQ) on this host until SIGTERM",
    load: async () => (await import("./worker.js")).workerCommand,
  },
  {
    name: "submit",
    summary: "queue a prompt for the fleet (BullMQ on Redis); --wait streams it",
    load: async () => (await import("./submit.js")).submitCommand,
  },
  {
    name: "usage",
    summary: "totals of what turns used and cost (the ledger): --since, --until, --by, --json, --csv",
    load: async () => (await import("./usage.js")).usageCommand,
  },
  {
    name: "fleet",
    summary: "print the Redis ACL users of a fleet's roles: worker, submitter, watcher (seat fleet acl)",
    load: async () => (await import("./fleet.js")).fleetCommand,
  },
  {
    name: "jobs",
    summary: "list, show, watch or cancel fleet jobs",
    load: async () => (await import("./jobs.js")).jobsCommand,
  },
  {
    name: "config",
    summary: "show the effective defaults (agent, model, policy, agentsDir, redis) and their source",
    load: async () => (await import("./config.js")).configCommand,
  },
  {
    name: "completion",
    summary: "print a bash, zsh or fish completion script",
    load: async () => (await import("./completion.js")).completionCommand,
  },
  {
    name: "board",
    summary: "serve the attention page and the fleet's queues (bull-board) on loopback behind a token",
    load: async () => (await import("./board.js")).boardCommand,
  },
  {
    name: "notify",
    summary: "list the notification targets of the config, or send one a sample (seat notify test NAME)",
    load: async () => (await import("./notify.js")).notifyCommand,
  },
  {
    name: "restore",
    summary: "bring back the seats and sessions a reboot took (seat ps shows them lost)",
    load: async () => (await import("./restore.js")).restoreCommand,
  },
  {
    name: "ps",
    summary: "list what is live (named sessions, seats, fleet jobs) and its state; --watch, --on-waiting",
    load: async () => (await import("./ps.js")).psCommand,
  },
  {
    name: "worktrees",
    summary: "list this repository's seat worktrees: branch, ahead/behind, dirty, who uses it",
    load: async () => (await import("./worktrees.js")).worktreesCommand,
  },
  {
    name: "diff",
    summary: "show what a seat's worktree changed (seat diff NAME [--stat])",
    load: async () => (await import("./diff.js")).diffCommand,
  },
  {
    name: "merge",
    summary: "merge a seat's branch into your checked-out branch (clean tree only; a conflict changes nothing)",
    load: async () => (await import("./merge.js")).mergeCommand,
  },
  {
    name: "discard",
    summary: "remove a seat's worktree and its branch (--force drops uncommitted changes)",
    load: async () => (await import("./discard.js")).discardCommand,
  },
  {
    name: "compare",
    summary: "run one prompt on several agents at once, each in its own worktree; one table of results",
    load: async () => (await import("./compare.js")).compareCommand,
  },
  {
    name: "mcp",
    summary: "serve seats to an MCP host over stdio: run, sessions, … under this server's policy and roots",
    load: async () => (await import("./mcp.js")).mcpCommand,
  },
];
