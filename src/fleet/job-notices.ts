/*
 * What a fleet job tells the notification targets it names: each notice's event, sequence and text.
 * Owns: the notice of a held approval (one per approval, numbered in the job), of a recorded end, and of a job found
 *   uncertain by the worker that took it over; the target names a job's data carries.
 * Does not own: choosing the targets or delivering once across the fleet (notify.ts), when a notice is due (the run's
 *   steps: job-stream.ts, job-end.ts, job-take.ts send every one through `JobRun.tell`).
 */
import type { PendingApproval } from "../acp/index.js";
import { approvalCommand } from "../notify/index.js";
import type { NotifyEventName } from "../notify-config/index.js";
import type { FleetNotifier } from "./notify.js";
import type { JobStatus } from "./state.js";

/** One notice: its event, its sequence in the job (one per job, event and sequence), its text, its approval. */
export type JobNotice = [
  event: NotifyEventName,
  seq: string,
  text: string,
  approval?: Parameters<FleetNotifier["tell"]>[1]["approval"],
  /** The approval's deadline: its links expire with it. */
  deadline?: string,
];

/** The notice of the job's `n`-th held approval (the notifier adds the Approve / Deny links, or how to answer from a shell). */
export function approvalNotice(a: PendingApproval, n: number): JobNotice {
  return [
    "waiting",
    `approval-${n}`,
    `waits for your approval: ${a.category} ${a.title}`,
    {
      id: a.id,
      category: a.category,
      command: approvalCommand(a),
      digest: a.digest,
    },
    a.deadline,
  ];
}

/** The notice a recorded end calls for: its event, its sequence (one end per job and event) and its text. */
export function endNotification(to: JobStatus, fields: Record<string, string | number>): JobNotice {
  const code = typeof fields.code === "string" ? fields.code : undefined;
  if (code === "BUDGET_EXCEEDED") return ["budget", "end", `stopped by its budget (${code})`];
  if (to === "completed") return ["done", "end", "finished its turn"];
  if (to === "failed" || to === "cancelled" || to === "uncertain") return [to, "end", code ? `${to} (${code})` : to];
  return ["failed", `unexpected-${to}`, to];
}

/** The notice of a job the worker that took it over found uncertain (`how` its old worker went). */
export function uncertainNotice(how: "died" | "stopped"): JobNotice {
  return ["uncertain", "end", `uncertain (its worker ${how} after dispatch; the prompt was not re-sent)`];
}

/** The target names a job's data carries (validated with the spec; anything else names none). */
export function notifyNamesOf(data: unknown): string[] | undefined {
  const names = (data as { notify?: unknown } | null)?.notify;
  return Array.isArray(names) && names.every((n) => typeof n === "string") ? names : undefined;
}
