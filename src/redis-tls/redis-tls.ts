/*
 * Fleet TLS: the CA file and optional client certificate of a `rediss://` URL, read into ioredis's `tls` options.
 * Owns: the documented names (GROK_SEAT_REDIS_CA / _CERT / _KEY; the CLI's --redis-ca / --redis-cert /
 *   --redis-key and the config keys redisCa / redisCert / redisKey set the same variables), reading the files,
 *   and checking that they are PEM a TLS context accepts, before any connection is tried.
 * Does not own: the URL (redis/connection.ts) or what a failed handshake is called (redis/redis-failure.ts).
 * Invariant: a file that is missing, unreadable or not PEM is FLEET_REDIS_TLS_FILE_UNREADABLE naming the
 *   variable and the path, at once (never a retry loop); settings that do not fit the URL (a CA for redis://, a
 *   certificate without its key) are FLEET_REDIS_TLS_CONFIG_INVALID. A key's contents never appear in an error.
 */
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext, type ConnectionOptions } from "node:tls";
import { SeatError, messageOf } from "../errors.js";

/** The CA bundle (PEM) that signs the Redis server's certificate. */
export const REDIS_CA_ENV = "GROK_SEAT_REDIS_CA";
/** The client certificate (PEM) for a Redis that asks for one (`tls-auth-clients yes`). */
export const REDIS_CERT_ENV = "GROK_SEAT_REDIS_CERT";
/** The client certificate's private key (PEM). */
export const REDIS_KEY_ENV = "GROK_SEAT_REDIS_KEY";

type FileRole = "CA" | "client certificate" | "client key";

function readPem(env: NodeJS.ProcessEnv, name: string, role: FileRole): Buffer | undefined {
  const path = env[name];
  if (path === undefined || path === "") return undefined;
  try {
    return readFileSync(path);
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "does not exist"
        : `cannot be read (${(error as NodeJS.ErrnoException).code ?? messageOf(error)})`;
    throw new SeatError(
      "FLEET_REDIS_TLS_FILE_UNREADABLE",
      `The Redis TLS ${role} file ${path} (${name}) ${why}. Give the path of a PEM file this user can read.`,
      { context: { variable: name, path }, cause: error },
    );
  }
}

/**
 * The `tls` options for a connection: `{}` (the system's CAs) for rediss:// without files, the CA and client pair
 * when given; undefined for redis://. Throws FLEET_REDIS_TLS_FILE_UNREADABLE / FLEET_REDIS_TLS_CONFIG_INVALID.
 */
export function tlsOptions(secure: boolean, env: NodeJS.ProcessEnv = process.env): ConnectionOptions | undefined {
  const given = [REDIS_CA_ENV, REDIS_CERT_ENV, REDIS_KEY_ENV].filter((name) => env[name]);
  if (!secure) {
    if (given.length === 0) return undefined;
    throw new SeatError(
      "FLEET_REDIS_TLS_CONFIG_INVALID",
      `${given.join(", ")} ${given.length === 1 ? "is" : "are"} set but the Redis URL is redis:// (no TLS); use rediss:// or unset ${given.length === 1 ? "it" : "them"}.`,
      { context: { variables: given.join(",") } },
    );
  }
  if (Boolean(env[REDIS_CERT_ENV]) !== Boolean(env[REDIS_KEY_ENV])) {
    const [has, lacks] = env[REDIS_CERT_ENV] ? [REDIS_CERT_ENV, REDIS_KEY_ENV] : [REDIS_KEY_ENV, REDIS_CERT_ENV];
    throw new SeatError(
      "FLEET_REDIS_TLS_CONFIG_INVALID",
      `${has} is set without ${lacks}: a client certificate needs its key (and a key its certificate).`,
      { context: { variables: has } },
    );
  }
  const ca = readPem(env, REDIS_CA_ENV, "CA");
  const cert = readPem(env, REDIS_CERT_ENV, "client certificate");
  const key = readPem(env, REDIS_KEY_ENV, "client key");
  const options: ConnectionOptions = { ...(ca ? { ca } : {}), ...(cert ? { cert } : {}), ...(key ? { key } : {}) };
  // Parse them now: a file that is not PEM (or a key that does not match its certificate) is named here,
  // not found by a connection that retries.
  // (A TLS context skips a CA bundle it cannot parse, so the CA is parsed as a certificate first.)
  const checks = [
    [REDIS_CA_ENV, "CA", ca && (() => new X509Certificate(ca))],
    [REDIS_CERT_ENV, "client certificate", cert && key && (() => createSecureContext({ cert, key }))],
  ] as const;
  for (const [name, role, check] of checks) {
    if (!check) continue;
    try {
      check();
    } catch (error) {
      // OpenSSL's text names the failure ("no start line", "key values mismatch"), never the file's contents.
      throw new SeatError(
        "FLEET_REDIS_TLS_FILE_UNREADABLE",
        `The Redis TLS ${role} file ${env[name]} (${name}) cannot be used: ${messageOf(error)}. Give a PEM ${role === "CA" ? "certificate" : "certificate and its matching key"}.`,
        { context: { variable: name, path: env[name] ?? "" }, cause: error },
      );
    }
  }
  return options;
}
