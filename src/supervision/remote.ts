/*
 * Remote approvals: the held approvals of this user's other `seat run` processes, reached over their control
 * sockets (control/socket.ts serves them).
 * Owns: finding live control sockets (ctl-HEX.sock in the seat home's sessions dir, or s in a gs-ctl- directory
 *   under TMPDIR; each a socket we own in a private directory), proving the process that answers holds the
 *   socket, the two requests (`approvals`, `answer`), and remembering which proven run listed each approval
 *   lately, so an answer goes straight there.
 * Does not own: the socket server (control/) or the queues behind it (queue.ts).
 * Invariant: a socket is asked only when it sits in a 0700 directory we own; its approvals are listed only
 *   when the pid it reports is proven (identity/) to hold it — unknown never counts as proven.
 */
import { lstatSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SeatError, ERROR_CODES, type ErrorCode } from "../errors.js";
import { isPrivateDir, ownUid } from "../internal/private-dir.js";
import { platformIdentitySource, type IdentitySource } from "../identity/index.js";
import { seatHome } from "../home/index.js";
import type { PendingApproval } from "../acp/index.js";
import type { ApprovalAnswer } from "../approvals/index.js";
// The one file, not the front door: sessions/ opens sessions that hold approvals (a cycle through index.js).
import { requestControl, type ControlRequest } from "../control/index.js";

/** A live run's control socket and the approvals it holds. */
export interface RemoteRun {
  socket: string;
  pid: number;
  approvals: PendingApproval[];
}

function isOurSocket(path: string): boolean {
  try {
    const stat = lstatSync(path);
    return stat.isSocket() && stat.uid === ownUid();
  } catch {
    return false;
  }
}

/** Control sockets of this user's runs that might be live (not yet proven). */
export function candidateSockets(env: NodeJS.ProcessEnv = process.env): string[] {
  const found: string[] = [];
  const sessions = join(seatHome(env), "sessions");
  if (isPrivateDir(sessions)) {
    for (const name of safeList(sessions))
      if (/^ctl-[0-9a-f]+\.sock$/.test(name) && isOurSocket(join(sessions, name))) found.push(join(sessions, name));
  }
  const root = tmpdir();
  for (const name of safeList(root)) {
    if (!name.startsWith("gs-ctl-")) continue;
    const dir = join(root, name);
    if (isPrivateDir(dir) && isOurSocket(join(dir, "s"))) found.push(join(dir, "s"));
  }
  return found;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Sends one JSON line to a control socket and resolves its one-line JSON answer (rejects when there is none). */
export async function controlRequest(
  path: string,
  request: ControlRequest,
  timeoutMs = 3_000,
): Promise<Record<string, unknown>> {
  const answer = await requestControl(path, request, timeoutMs);
  if (!answer) throw new Error(`no answer from ${path}`);
  return answer;
}

/** Which proven run listed each approval id lately (this process's last listings), for answering it directly. */
const listedBy = new Map<string, { run: RemoteRun; atMs: number }>();
const LISTED_KEPT = 512;
/** How long a listing's proof of a run is relied on to send it an answer without listing again (ms). */
export const LISTED_FRESH_MS = 10_000;

/** The proven run that listed approval `id` within LISTED_FRESH_MS, if any. */
export function lastListedRun(id: string): RemoteRun | undefined {
  const seen = listedBy.get(id);
  return seen && Date.now() - seen.atMs <= LISTED_FRESH_MS ? seen.run : undefined;
}

function remember(runs: readonly RemoteRun[]): void {
  const atMs = Date.now();
  for (const run of runs) for (const approval of run.approvals) listedBy.set(approval.id, { run, atMs });
  for (const id of listedBy.keys()) {
    if (listedBy.size <= LISTED_KEPT) break;
    listedBy.delete(id);
  }
}

/**
 * The live runs of this user (other than this process) and their held approvals. A socket that does not
 * answer, or whose holder cannot be proven, is left out.
 */
export async function remoteRuns(
  options: { env?: NodeJS.ProcessEnv; source?: IdentitySource } = {},
): Promise<RemoteRun[]> {
  const source = options.source ?? platformIdentitySource();
  const runs = await Promise.all(
    candidateSockets(options.env).map(async (socket): Promise<RemoteRun | undefined> => {
      try {
        const reply = await controlRequest(socket, { op: "approvals" });
        const pid = reply.pid;
        if (reply.ok !== true || typeof pid !== "number" || pid === process.pid || !Array.isArray(reply.approvals))
          return undefined;
        const holds = await source.checkSocketHolder(pid, socket);
        if (holds.check.verdict !== "match") return undefined;
        return { socket, pid, approvals: reply.approvals as PendingApproval[] };
      } catch {
        return undefined;
      }
    }),
  );
  const live = runs.filter((r): r is RemoteRun => r !== undefined);
  remember(live);
  return live;
}

/** Sends one answer to the run holding the approval; a refusal becomes a SeatError with the run's code. */
export async function answerRemote(
  run: RemoteRun,
  id: string,
  answer: ApprovalAnswer,
): Promise<{ id: string; decision: "allow" | "deny" }> {
  const reply = await controlRequest(run.socket, { op: "answer", id, answer });
  if (reply.ok === true && (reply.decision === "allow" || reply.decision === "deny"))
    return { id, decision: reply.decision };
  const code =
    typeof reply.code === "string" && Object.hasOwn(ERROR_CODES, reply.code)
      ? (reply.code as ErrorCode)
      : "APPROVAL_NOT_FOUND";
  const context =
    typeof reply.context === "object" && reply.context !== null ? (reply.context as Record<string, unknown>) : { id };
  // The holder's message already ends with its code; SeatError adds it again, so it is taken off once here.
  const message =
    typeof reply.error === "string"
      ? reply.error.replace(new RegExp(` \\[${code}\\]$`), "")
      : `The run holding approval ${id} refused the answer.`;
  throw new SeatError(code, message, { context: { ...context, holderPid: run.pid } });
}
