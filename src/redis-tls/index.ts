/*
 * Redis TLS front door: the CA file and optional client certificate of a `rediss://` URL, named by environment
 *   variables and read into ioredis's `tls` options — without loading ioredis, so a verb's help can name them.
 * Owns: the list of names other rooms may import from redis-tls/.
 * Invariant: other rooms import "../redis-tls/index.js", never a file inside redis-tls/.
 */
export { REDIS_CA_ENV, REDIS_CERT_ENV, REDIS_KEY_ENV, tlsOptions } from "./redis-tls.js";
