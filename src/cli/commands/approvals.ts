/*
 * `seat approvals [--json] [--watch]`: the held approvals of this user's live runs on this machine.
 * Owns: the flags, the table and the watch loop. Also answerCommand(), the shared body of `seat approve` and
 *   `seat deny`. Does not own: finding or answering approvals (approvals/).
 */
import { hostname, userInfo } from "node:os";
import { SeatError } from "../../errors.js";
import { answerApproval, listApprovals, type ApprovalAnswer, type PendingApproval } from "../../approvals/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const WATCH_INTERVAL_MS = 500;

function row(a: PendingApproval): string {
  const what = a.target.command ?? a.target.paths?.join(", ") ?? a.target.toolName ?? a.title;
  const owner = a.owner.name ? `${a.owner.kind} ${a.owner.name}` : `${a.owner.kind} ${a.owner.id.slice(0, 12)}`;
  return `${a.id}  ${a.category.padEnd(7)}  ${owner} (pid ${a.owner.pid ?? "?"})  until ${a.deadline}  ${what}`;
}

/** Who answers from this shell, for the audit and for a later answer's APPROVAL_ALREADY_ANSWERED. */
export function cliAnswerer(verb: string): string {
  let user = "user";
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers): keep the placeholder
  }
  return `${user}@${hostname()} (seat ${verb}, pid ${process.pid})`;
}

/** Runs `seat approve|deny ID`: one answer, printed; refusals are coded errors (exit per cli/output.ts). */
export async function answerCommand(verb: "approve" | "deny", argv: string[]): Promise<number> {
  const args = parseFlags(verb, argv, {
    json: { type: "boolean" },
    redis: { type: "string" },
    ...(verb === "approve" ? { always: { type: "boolean" } } : { message: { type: "string" } }),
  });
  if (args.positionals.length !== 1) throw new SeatError("CLI_USAGE", `seat ${verb}: give exactly one approval id (see \`seat approvals\`).`);
  const id = args.positionals[0]!;
  const message = stringFlag(args, "message");
  const answer: ApprovalAnswer = {
    decision: verb === "approve" ? "allow" : "deny",
    ...(args.values.always === true ? { always: true } : {}),
    ...(message !== undefined ? { message } : {}),
    by: cliAnswerer(verb),
  };
  const redis = stringFlag(args, "redis");
  const result = await answerApproval(id, answer, redis !== undefined ? { redis } : undefined);
  if (args.values.json) writeJson({ type: "answered", ...result });
  else process.stdout.write(`${result.id}: ${result.decision === "allow" ? "allowed" : "denied"}\n`);
  return EXIT.ok;
}

export const approvalsCommand: Command = {
  name: "approvals",
  help: `Usage: seat approvals [--json] [--watch] [--redis URL]

  Lists the permission requests your live seat runs hold for a person (seat run with --ask, or the
  default policy): id, category, whose it is, its deadline and what it would touch (redacted). Only runs
  of your own user are reached: their control sockets sit in 0700 directories, and each answering
  process is proven to hold its socket. Answer with seat approve ID [--always] or seat deny ID
  [--message TEXT]; the first answer wins.
  --json    one {"type":"approval",...} line per approval
  --watch   keep listing: print each approval as it appears and when it goes (Ctrl-C stops)
  --redis URL  also the fleet's jobs (their approvals live in Redis; seat approve|deny ID --redis URL)

Examples:
  seat approvals
  seat approvals --watch --json
  seat approvals --redis redis://127.0.0.1:6379`,
  async run(argv) {
    const args = parseFlags("approvals", argv, { json: { type: "boolean" }, watch: { type: "boolean" }, redis: { type: "string" } });
    if (args.positionals.length > 0) throw new SeatError("CLI_USAGE", "seat approvals takes no arguments.");
    const json = args.values.json === true;
    const redis = stringFlag(args, "redis");
    const options = redis !== undefined ? { redis } : undefined;
    if (args.values.watch !== true) {
      const approvals = await listApprovals(options);
      if (json) for (const a of approvals) writeJson({ type: "approval", ...a });
      else if (approvals.length === 0) process.stdout.write("no pending approvals\n");
      else for (const a of approvals) process.stdout.write(`${row(a)}\n`);
      return EXIT.ok;
    }
    let stopped = false;
    const stop = () => (stopped = true);
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
    const shown = new Map<string, PendingApproval>();
    try {
      while (!stopped) {
        const now = new Map((await listApprovals(options)).map((a) => [a.id, a]));
        for (const [id, a] of now) {
          if (shown.has(id)) continue;
          shown.set(id, a);
          if (json) writeJson({ type: "approval", ...a });
          else process.stdout.write(`+ ${row(a)}\n`);
        }
        for (const id of [...shown.keys()]) {
          if (now.has(id)) continue;
          shown.delete(id);
          if (json) writeJson({ type: "approval_gone", id });
          else process.stdout.write(`- ${id}\n`);
        }
        await new Promise((resolve) => setTimeout(resolve, WATCH_INTERVAL_MS));
      }
    } finally {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
    }
    return EXIT.ok;
  },
};
