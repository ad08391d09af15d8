/*
 * Fleet notifications: a job's events told to the targets it names, once across the whole fleet.
 * Owns: choosing a job's targets from the WORKER's own notify config (a job carries names only, never a URL, a
 *   command or a secret), the fleet-wide event id (from the job id, the event and its sequence — never from the
 *   worker, so a worker that takes over derives the same id), and the claim in Redis (`SET NX PX` per event id and
 *   target) that lets exactly one worker hand an event to a target.
 * Does not own: delivery, retries and coalescing (notify/notifier.ts, one notifier per target on this worker),
 *   which job transitions are told (run-job.ts).
 * Invariant: tell() never throws and never waits on a receiver; a name this worker lacks is a log line, never the
 *   job's failure; the claim is taken before delivery, so a worker that dies after it sends nothing twice (at most
 *   once per target; a claim whose delivery died with its worker is not re-sent).
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";
import { createNotifier, type Notifier, type NotifierOptions } from "../notify/index.js";
import {
  createNotifyEvent,
  type NotifyApproval,
  type NotifyConfig,
  type NotifyEventName,
  type NotifyTarget,
} from "../notify-config/index.js";
import { notifyClaimKey } from "./keys.js";
import { fleetApprovalLinks } from "./approval-links.js";

/** What a worker's fleet notifier needs. */
export interface FleetNotifierOptions {
  redis: Redis;
  /** The worker's own notify config (its user config's `notify` section), or undefined when it has none. */
  config: NotifyConfig | undefined;
  /** How long a claim is kept (ms): as long as the job's record. */
  claimMs: number;
  log(line: string): void;
  /**
   * The fleet's link key (fleet/approval-links.ts, from GROK_SEAT_FLEET_KEY): a `waiting` then carries Approve /
   * Deny links to the `seat board --redis` that serves the fleet. Absent: no links, and the text says why.
   */
  linkKey?: Buffer;
  /** The Redis URL as shown to a person (password masked), for the `seat approve … --redis` hint. */
  displayUrl?: string;
  /** Passed to each target's notifier (tests shorten the coalescing window and retries). */
  notifier?: Omit<NotifierOptions, "targets">;
}

/** One event of one job, before its fleet-wide id is derived. */
export interface JobNotification {
  jobId: string;
  event: NotifyEventName;
  /** Which occurrence of `event` in this job (an approval's number; "end" for the job's end). */
  seq: string;
  text: string;
  approval?: NotifyApproval;
  /** A `waiting`'s approval deadline (ISO 8601): its links expire with it. */
  deadline?: string;
}

/** A worker's notifier for the jobs it runs. */
export interface FleetNotifier {
  /** The targets a job names (its `notify`, else the worker's default); names this worker lacks are logged. */
  targetsFor(jobId: string, names: readonly string[] | undefined): NotifyTarget[];
  /** Claims the event for each target in Redis and hands it to the claimed ones. Never throws, never waits. */
  tell(targets: readonly NotifyTarget[], notification: JobNotification): Promise<void>;
  close(graceMs?: number): Promise<void>;
}

/** The fleet-wide id of a job's event: the same on every worker and every retry. */
export function jobEventId(jobId: string, event: NotifyEventName, seq: string): string {
  return createHash("sha256")
    .update(`grok-seat.fleet-notify.v1\n${jobId}\n${event}\n${seq}`)
    .digest("hex")
    .slice(0, 32);
}

/** Creates a worker's fleet notifier. */
export function createFleetNotifier(options: FleetNotifierOptions): FleetNotifier {
  const notifiers = new Map<string, Notifier>();
  const pending = new Set<Promise<void>>();
  const notifierFor = (target: NotifyTarget): Notifier => {
    let n = notifiers.get(target.name);
    if (n === undefined) {
      n = createNotifier({
        ...options.notifier,
        targets: [target],
        onOutcome: (outcome) => {
          if (!outcome.ok) options.log(`notify ${target.name}: not delivered (${JSON.stringify(outcome)})`);
          options.notifier?.onOutcome?.(outcome);
        },
      });
      notifiers.set(target.name, n);
    }
    return n;
  };
  return {
    targetsFor(jobId, names) {
      const config = options.config;
      const wanted = names === undefined || names.length === 0 ? (config?.default ?? []) : names;
      if (wanted.includes("none")) return [];
      const out: NotifyTarget[] = [];
      for (const name of new Set(wanted)) {
        const target = config?.targets[name];
        if (target === undefined)
          options.log(
            `job ${jobId}: notification target "${name}" is not configured on this worker (NOTIFY_TARGET_UNKNOWN); not told`,
          );
        else if (target.type === "webhook" && target.unsetSecretEnv !== undefined)
          options.log(
            `job ${jobId}: notification target "${name}" needs ${target.unsetSecretEnv}, unset on this worker (NOTIFY_CONFIG_INVALID); not told`,
          );
        else out.push(target);
      }
      return out;
    },
    tell(targets, n) {
      const told = tellNow(targets, n).finally(() => pending.delete(told));
      pending.add(told);
      return told;
    },
    async close(graceMs = 3_000) {
      // A tell whose claim is still on its way reaches its notifier before the notifiers close.
      // Bounded: a claim Redis never answers does not hold the worker's stop.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...pending]),
        new Promise((r) => {
          timer = setTimeout(r, graceMs);
        }),
      ]);
      clearTimeout(timer);
      await Promise.all([...notifiers.values()].map((n) => n.close(graceMs)));
    },
  };

  /** An approval's links, or (none to be had) how to answer from a shell and why there are no links. */
  async function answerWith(
    approval: NotifyApproval,
    deadline: string | undefined,
  ): Promise<{ links?: { approve_url: string; deny_url: string }; how: string }> {
    const redisFlag = `--redis ${options.displayUrl ?? "URL"}`;
    const how = (why: string) =>
      ` — answer with \`seat approve ${approval.id} --digest ${approval.digest} ${redisFlag}\` or \`seat deny ${approval.id} ${redisFlag}\` (${why})`;
    if (options.linkKey === undefined)
      return { how: how("no links: this worker has no fleet key, GROK_SEAT_FLEET_KEY") };
    let links: { approve_url: string; deny_url: string } | undefined;
    try {
      links =
        deadline === undefined
          ? undefined
          : await fleetApprovalLinks(options.redis, options.linkKey, {
              id: approval.id,
              digest: approval.digest,
              deadline,
            });
    } catch {
      links = undefined;
    }
    return links ? { links, how: "" } : { how: how("no links: no seat board serves this fleet's links now") };
  }

  async function tellNow(targets: readonly NotifyTarget[], n: JobNotification): Promise<void> {
    try {
      const answered = n.approval ? await answerWith(n.approval, n.deadline) : undefined;
      const event = createNotifyEvent({
        id: jobEventId(n.jobId, n.event, n.seq),
        event: n.event,
        subject: { kind: "job", id: n.jobId },
        text: `${n.text}${answered?.how ?? ""}`,
        ...(n.approval ? { approval: { ...n.approval, ...(answered?.links ?? {}) } } : {}),
      });
      for (const target of targets) {
        if (!target.events.includes(event.event)) continue;
        let claimed: string | null;
        try {
          claimed = await options.redis.set(
            notifyClaimKey(n.jobId, event.id, target.name),
            "1",
            "PX",
            options.claimMs,
            "NX",
          );
        } catch {
          // Without the claim this worker cannot know another did not send it: nothing is sent twice.
          options.log(`job ${n.jobId}: ${event.event} not told to ${target.name}: Redis did not take the claim`);
          continue;
        }
        if (claimed === "OK") notifierFor(target).notify(event);
      }
    } catch (error) {
      options.log(`job ${n.jobId}: ${n.event} not told: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}
