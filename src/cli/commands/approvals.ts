/*
 * `seat approvals [--json] [--watch] [--full ID]`: the held approvals of this user's live runs on this machine.
 * Owns: the flags, the table, the full view of one approval and the watch loop. Also answerCommand(), the shared
 *   body of `seat approve` and `seat deny` (with `--digest D`). Does not own: finding or answering approvals, or
 *   how a target is shown (approvals/: display.ts).
 * Invariant: an approval is printed exact (value-masked only, and then it says so, never masked by shape): a JSON
 *   line is written as maskView() left it, not through writeJson's redact(); a text row says when it is cut.
 */
import { hostname, userInfo } from "node:os";
import { SeatError } from "../../errors.js";
import { answerApproval, listApprovals } from "../../supervision/index.js";
import {
  assertApprovalId,
  assertDigest,
  maskView,
  shortTarget,
  visibleText,
  type ApprovalAnswer,
  type PendingApproval,
} from "../../approvals/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

const WATCH_INTERVAL_MS = 500;

function row(a: PendingApproval, redis: string | undefined): string {
  const what = shortTarget(a, `seat approvals --full ${a.id}${redis !== undefined ? " --redis URL" : ""}`);
  const owner = a.owner.name ? `${a.owner.kind} ${a.owner.name}` : `${a.owner.kind} ${a.owner.id.slice(0, 12)}`;
  const masked = a.masked?.length ? `  masked: [${a.masked.join(", ")}]` : "";
  return `${a.id}  ${a.category.padEnd(7)}  ${owner} (pid ${a.owner.pid ?? "?"})  until ${a.deadline}  ${what}\n    digest ${a.digest ?? "(none: held by an older version)"}${masked}`;
}

/** One approval in full: every field, the title and the whole target (control characters shown as escapes). */
function fullView(a: PendingApproval): string {
  const owner = `${a.owner.kind} ${a.owner.name ?? a.owner.id}${a.owner.pid !== undefined ? ` (pid ${a.owner.pid})` : ""}${a.owner.host ? ` @${a.owner.host}` : ""}`;
  const lines = [
    `id        ${a.id}`,
    `category  ${a.category}`,
    `owner     ${owner}`,
    `asked     ${a.askedAt}`,
    `deadline  ${a.deadline}`,
    `digest    ${a.digest ?? "(none: held by an older version)"}`,
  ];
  if (a.masked?.length)
    lines.push(
      `masked    [${a.masked.join(", ")}] (their values are shown as [redacted]; the call runs with the real values)`,
    );
  lines.push(`title     ${visibleText(a.title, true)}`);
  if (a.target.toolName !== undefined) lines.push(`tool      ${visibleText(a.target.toolName, true)}`);
  for (const path of a.target.paths ?? []) lines.push(`path      ${visibleText(path, true)}`);
  if (a.target.command !== undefined)
    lines.push(
      `command   (${a.target.command.length} characters, exactly as it will run, between the lines)`,
      "-----",
      visibleText(a.target.command),
      "-----",
    );
  return `${lines.join("\n")}\n`;
}

/** An approval as one JSON line, exact: maskView() masked only known secret values (never writeJson's shapes). */
function writeApproval(type: "approval", a: PendingApproval): void {
  process.stdout.write(`${JSON.stringify({ type, ...maskView(a) })}\n`);
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
    digest: { type: "string" },
    ...(verb === "approve" ? { always: { type: "boolean" } } : { message: { type: "string" } }),
  });
  if (args.positionals.length !== 1)
    throw new SeatError("CLI_USAGE", `seat ${verb}: give exactly one approval id (see \`seat approvals\`).`);
  const id = args.positionals[0]!;
  const message = stringFlag(args, "message");
  const digest = stringFlag(args, "digest");
  if (digest !== undefined) assertDigest(digest);
  const answer: ApprovalAnswer = {
    decision: verb === "approve" ? "allow" : "deny",
    ...(args.values.always === true ? { always: true } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(digest !== undefined ? { digest } : {}),
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
  help: `Usage: seat approvals [--json] [--watch] [--full ID] [--redis URL]

  Lists the permission requests your live seat runs hold for a person (seat run with --ask, or the
  default policy): id, category, whose it is, its deadline, what it would touch and the digest of that
  exact target. The target is shown exactly as it will run: only the values of secrets the seat knows
  are replaced, and then the listing says which (masked: [NAMES]). A target longer than 200 characters
  is cut in this listing, and the row says so and how long it is; --full ID shows it whole. Only runs
  of your own user are reached: their control sockets sit in 0700 directories, and each answering
  process is proven to hold its socket. Answer with seat approve ID [--always] [--digest D] or
  seat deny ID [--message TEXT] [--digest D]; the first answer wins, and an answer whose digest is not
  the held call's is refused (APPROVAL_TARGET_CHANGED) with nothing run.
  --json    one {"type":"approval",...} line per approval (targets always whole)
  --full ID the one approval ID, every field and its whole target (with --json: its JSON line)
  --watch   keep listing: print each approval as it appears and when it goes (Ctrl-C stops)
  --redis URL  also the fleet's jobs (their approvals live in Redis; seat approve|deny ID --redis URL)

Examples:
  seat approvals
  seat approvals --full ap_3f2c9a0b1d2e3f40
  seat approvals --watch --json
  seat approvals --redis redis://127.0.0.1:6379`,
  async run(argv) {
    const args = parseFlags("approvals", argv, {
      json: { type: "boolean" },
      watch: { type: "boolean" },
      redis: { type: "string" },
      full: { type: "string" },
    });
    if (args.positionals.length > 0)
      throw new SeatError("CLI_USAGE", "seat approvals takes no arguments (seat approvals --full ID shows one).");
    const json = args.values.json === true;
    const redis = stringFlag(args, "redis");
    const options = redis !== undefined ? { redis } : undefined;
    const full = stringFlag(args, "full");
    if (full !== undefined) {
      if (args.values.watch === true)
        throw new SeatError("CLI_USAGE", "seat approvals: --full ID shows one approval; it does not go with --watch.");
      assertApprovalId(full);
      const found = (await listApprovals(options)).find((a) => a.id === full);
      if (!found)
        throw new SeatError(
          "APPROVAL_NOT_FOUND",
          `No pending approval has id ${full}. List them with \`seat approvals\`${redis !== undefined ? " --redis URL" : ""}.`,
          { context: { id: full } },
        );
      if (json) writeApproval("approval", found);
      else process.stdout.write(fullView(maskView(found)));
      return EXIT.ok;
    }
    if (args.values.watch !== true) {
      const approvals = await listApprovals(options);
      if (json) for (const a of approvals) writeApproval("approval", a);
      else if (approvals.length === 0) process.stdout.write("no pending approvals\n");
      else for (const a of approvals) process.stdout.write(`${row(maskView(a), redis)}\n`);
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
          if (json) writeApproval("approval", a);
          else process.stdout.write(`+ ${row(maskView(a), redis)}\n`);
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
