/*
 * `seat fleet acl [--role worker|submitter|watcher]`: print the Redis ACL users a fleet needs, one role each.
 * Owns: the flags and the printing. Does not own: the rules (fleet/acl.ts).
 * Invariant: a password (GROK_SEAT_REDIS_PASSWORD, with --role) is printed only as its SHA-256; nothing is sent
 *   to Redis — the lines are for an administrator to run (redis-cli, or the server's ACL file).
 */
import { SeatError } from "../../errors.js";
import { ACL_ROLES, REDIS_PASSWORD_ENV, aclRules, aclSetuserLine, aclUser, type AclRole } from "../../fleet/index.js";
import { parseFlags, stringFlag } from "../args.js";
import { EXIT, writeJson } from "../output.js";
import type { Command } from "./command.js";

export const fleetCommand: Command = {
  name: "fleet",
  help: `Usage: seat fleet acl [--role worker|submitter|watcher] [--user NAME] [--json]

  Prints the ACL SETUSER line of each role (all three without --role), for Redis 7.0 or newer:
    worker     takes and runs jobs, holds approvals; cannot request a cancel or add to the job index
    submitter  submits, cancels, watches, answers approvals; cannot take a job
    watcher    reads jobs, events, approvals and queue counts (seat jobs, the board); writes nothing
  Users are seat-<role> (--user NAME with --role). With --role and ${REDIS_PASSWORD_ENV} set, the line
  carries that password's SHA-256 (#hex); otherwise a placeholder Redis refuses. Clients log in with the
  URL's userinfo or GROK_SEAT_REDIS_USERNAME + ${REDIS_PASSWORD_ENV} (never argv).

Examples:
  seat fleet acl | sed "s/#SHA256-OF-THE-PASSWORD/#$(printf %s "$PW" | sha256sum | cut -d' ' -f1)/"
  ${REDIS_PASSWORD_ENV}=… seat fleet acl --role worker | redis-cli -h 10.0.0.5 --tls …`,
  async run(argv) {
    const args = parseFlags("fleet", argv, {
      role: { type: "string" },
      user: { type: "string" },
      json: { type: "boolean" },
    });
    const [sub, ...rest] = args.positionals;
    if (sub !== "acl" || rest.length > 0)
      throw new SeatError(
        "CLI_USAGE",
        "seat fleet: the one subcommand is `acl` (seat fleet acl [--role worker|submitter|watcher]).",
      );
    const role = stringFlag(args, "role");
    if (role !== undefined && !(ACL_ROLES as readonly string[]).includes(role))
      throw new SeatError("CLI_USAGE", `seat fleet acl: --role is one of ${ACL_ROLES.join(", ")}, not "${role}".`);
    const user = stringFlag(args, "user");
    if (user !== undefined && role === undefined)
      throw new SeatError("CLI_USAGE", "seat fleet acl: --user names the user of one role; give --role too.");
    if (user !== undefined && !/^[A-Za-z0-9._-]{1,64}$/.test(user))
      throw new SeatError("CLI_USAGE", `seat fleet acl: --user may only use [A-Za-z0-9._-] (1–64 characters).`);
    const roles: AclRole[] = role === undefined ? [...ACL_ROLES] : [role as AclRole];
    const password = role !== undefined ? process.env[REDIS_PASSWORD_ENV] || undefined : undefined;
    for (const r of roles) {
      const line = aclSetuserLine(r, { ...(user ? { user } : {}), ...(password ? { password } : {}) });
      if (args.values.json) writeJson({ type: "acl", role: r, user: user ?? aclUser(r), rules: aclRules(r), line });
      else process.stdout.write(`${line}\n`);
    }
    return EXIT.ok;
  },
};
