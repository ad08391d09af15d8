/*
 * Redis failures by cause: a connection or command error turned into the code that names it.
 * Owns: telling a TLS handshake failure (FLEET_REDIS_TLS_FAILED), a refused login (FLEET_REDIS_AUTH_FAILED:
 *   WRONGPASS, NOAUTH) and a command the ACL user may not run (FLEET_REDIS_FORBIDDEN: NOPERM) from an unreachable
 *   Redis (FLEET_REDIS_UNAVAILABLE); remembering a connection's last such error, because ioredis reports it as
 *   an `error` event while the command that waited on it only says "Connection is closed" or "max retries".
 * Does not own: making connections (connection.ts).
 * Invariant: decided by error codes — Node's TLS/OpenSSL `code` and the first word of a Redis error reply (its
 *   code, e.g. `WRONGPASS`) — never by the rest of a message. A fatal cause (TLS, login) is not retried.
 */
import { SeatError, messageOf, type ErrorCode } from "../errors.js";

/** Node's own codes for a certificate that does not verify (besides the ERR_TLS_ / ERR_SSL_ / CERT_ families). */
const CERT_CODES = new Set([
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "HOSTNAME_MISMATCH",
  "EPROTO",
]);

/** Our code for a TLS connection the server reset after the handshake, before its first reply. */
const CLOSED_AFTER_HANDSHAKE = "SEAT_TLS_CLOSED_AFTER_HANDSHAKE";

/**
 * The error to record for `error` on a TLS connection whose handshake completed but which has had no reply yet:
 * a reset there is how a server that requires a client certificate (TLS 1.3) refuses one that is missing or
 * untrusted — its alert often arrives after our first write, which then fails ECONNRESET/EPIPE instead.
 */
export function afterHandshake(error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== "ECONNRESET" && code !== "EPIPE") return error;
  return Object.assign(
    new Error(
      `the server closed the connection right after the TLS handshake (${code}), as a server that requires a client certificate does when none, or one it does not trust, is given`,
      { cause: error },
    ),
    { code: CLOSED_AFTER_HANDSHAKE },
  );
}

/** Which fatal cause `error` shows, or undefined (then it may pass: a restart, a network blip). */
export function fatalCause(error: unknown): "tls" | "auth" | "forbidden" | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as NodeJS.ErrnoException).code;
  if (
    typeof code === "string" &&
    (code === CLOSED_AFTER_HANDSHAKE || CERT_CODES.has(code) || /^(ERR_TLS_|ERR_SSL_|CERT_)/.test(code))
  )
    return "tls";
  // A Redis error reply: its first word is its code.
  if (error.name === "ReplyError") {
    const word = error.message.split(" ", 1)[0];
    if (word === "WRONGPASS" || word === "NOAUTH") return "auth";
    if (word === "NOPERM") return "forbidden";
    // A command a script may not run comes back with the generic code ERR (Redis 7.0); Redis's fixed text for
    // it is the only sign, so it is read here, once.
    if (word === "ERR" && error.message.includes("The user executing the script can't run this command"))
      return "forbidden";
  }
  return undefined;
}

const seen = new WeakMap<object, Error>();

/** Notes a connection-level error of the connections made for `owner` (a RedisTarget): a failed handshake or login. */
export function noteFailure(owner: object, error: unknown): void {
  const cause = fatalCause(error);
  if (cause === "tls" || cause === "auth") seen.set(owner, error as Error);
}

/** Forgets `owner`'s noted failure (a connection of it became ready). */
export function clearFailure(owner: object): void {
  seen.delete(owner);
}

/** The SeatError for `error` from a connection to `displayUrl` made for `owner` (its last fatal cause first). */
export function describeFailure(owner: object, displayUrl: string, error: unknown): SeatError {
  if (error instanceof SeatError) return error;
  const direct = fatalCause(error);
  const cause = direct !== undefined ? (error as Error) : (seen.get(owner) ?? error);
  const kind = fatalCause(cause);
  const detail = messageOf(cause);
  const table: Record<NonNullable<typeof kind>, [ErrorCode, string]> = {
    tls: [
      "FLEET_REDIS_TLS_FAILED",
      `The TLS handshake with Redis at ${displayUrl} failed: ${detail}. Give the CA that signed the server's certificate (GROK_SEAT_REDIS_CA / --redis-ca), a client certificate and key if the server asks for one (GROK_SEAT_REDIS_CERT, GROK_SEAT_REDIS_KEY), and check that the port speaks TLS.`,
    ],
    auth: [
      "FLEET_REDIS_AUTH_FAILED",
      `Redis at ${displayUrl} refused the login: ${detail}. Check the user name (URL or GROK_SEAT_REDIS_USERNAME) and password (GROK_SEAT_REDIS_PASSWORD); \`seat fleet acl\` prints the users a fleet needs.`,
    ],
    forbidden: [
      "FLEET_REDIS_FORBIDDEN",
      `Redis at ${displayUrl} refused a command to this user: ${detail}. The user lacks a command or key its role needs (or tried something its role may not do); \`seat fleet acl --role ROLE\` prints each role's rules.`,
    ],
  };
  if (kind !== undefined) {
    const [code, message] = table[kind];
    return new SeatError(code, message, { cause, context: { url: displayUrl } });
  }
  return new SeatError(
    "FLEET_REDIS_UNAVAILABLE",
    `Redis at ${displayUrl} failed: ${detail}. Check that redis-server runs there and the password is right.`,
    { cause: error, retryable: true },
  );
}
