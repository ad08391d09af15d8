/*
 * What the fleet verbs (`seat worker`, `seat submit`, `seat jobs`) share: where Redis is, and how a job's end
 *   becomes an exit code.
 * Owns: `--redis URL` / GROK_SEAT_REDIS_URL, the TLS file flags (--redis-ca / --redis-cert / --redis-key, which
 *   set GROK_SEAT_REDIS_CA / _CERT / _KEY for this process), the job-status → exit-code rule (the same codes as
 *   `seat run`).
 * Does not own: the fleet itself (fleet/) or the code table (output.ts).
 */
import { SeatError, type ErrorCode } from "../../errors.js";
import type { JobResult } from "../../fleet/index.js";
import { stringFlag, type FlagSpec, type ParsedArgs } from "../args.js";
import { REDIS_CA_ENV, REDIS_CERT_ENV, REDIS_KEY_ENV } from "../../redis-tls/index.js";
import { EXIT, exitCodeFor } from "../output.js";

/** Help text lines for the Redis flag. */
export const REDIS_HELP = `  --redis URL           the fleet's Redis: redis://[:password@]host[:port][/db] (or GROK_SEAT_REDIS_URL;
                        a password is better given as GROK_SEAT_REDIS_PASSWORD: argv is visible to ps;
                        an ACL user as GROK_SEAT_REDIS_USERNAME — \`seat fleet acl\` prints the roles), or
                        redis+sentinel://[user:password@]host:port[,host:port…]/MASTER_NAME to follow the
                        primary through a failover (rediss+sentinel:// for TLS; GROK_SEAT_SENTINEL_PASSWORD)
  --redis-ca FILE       rediss://: the CA (PEM) that signed the server's certificate (or GROK_SEAT_REDIS_CA)
  --redis-cert FILE     rediss://: a client certificate, for a server that asks for one (or GROK_SEAT_REDIS_CERT)
  --redis-key FILE      the client certificate's key (or GROK_SEAT_REDIS_KEY)`;

/** The TLS file flags every fleet verb takes (spread into its flag spec). */
export const REDIS_TLS_FLAGS: FlagSpec = {
  "redis-ca": { type: "string" },
  "redis-cert": { type: "string" },
  "redis-key": { type: "string" },
};

/** The Redis URL of a fleet verb; CLI_USAGE when there is none. */
export function redisUrl(verb: string, args: ParsedArgs): string {
  const url = stringFlag(args, "redis") ?? process.env.GROK_SEAT_REDIS_URL;
  if (!url) throw new SeatError("CLI_USAGE", `seat ${verb}: give --redis URL (or set GROK_SEAT_REDIS_URL).`);
  // The files travel as this process's environment, where the fleet reads them (paths, not secrets).
  for (const [flag, name] of [
    ["redis-ca", REDIS_CA_ENV],
    ["redis-cert", REDIS_CERT_ENV],
    ["redis-key", REDIS_KEY_ENV],
  ] as const) {
    const path = stringFlag(args, flag);
    if (path !== undefined) process.env[name] = path;
  }
  return url;
}

/** Statuses after which a job does nothing more. */
export const TERMINAL_STATUSES: readonly string[] = ["completed", "failed", "cancelled", "uncertain"];

/** The exit code for how a job ended: the same as `seat run` (0, 130 cancelled, the turn's code), 76 uncertain. */
export function exitCodeForJob(result: Pick<JobResult, "status" | "code">): number {
  switch (result.status) {
    case "completed":
      return EXIT.ok;
    case "cancelled":
      // A turn the job's own budget cancelled exits like seat run's (BUDGET_EXCEEDED), not as an interruption.
      return result.code === "BUDGET_EXCEEDED" ? exitCodeFor("BUDGET_EXCEEDED") : EXIT.interrupted;
    case "uncertain":
      return exitCodeFor("FLEET_JOB_UNCERTAIN");
    default:
      return exitCodeFor(result.code as ErrorCode | undefined);
  }
}
